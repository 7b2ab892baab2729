/**
 * Stream names per the spec's spelling (lower-case symbol, underscore removed for type 1) and
 * the WebSocket host each symbol type uses.
 */
import type { KlineIntervalName, SymbolTypeCode } from '../../core/enums.js';
import { streamSymbol } from '../../core/symbols.js';

/** Which WebSocket host serves which symbol type ({stream_url}, {stream_url_next}, {stream_url_new}). */
export interface StreamHosts {
  readonly stream_url: string;
  readonly stream_url_next?: string;
  readonly stream_url_new?: string;
}

/** The base WebSocket URL for a symbol type; throws when the host for that type is not configured. */
export function streamHostFor(hosts: StreamHosts, type: SymbolTypeCode): string {
  const url = type === 1 ? hosts.stream_url : type === 2 ? hosts.stream_url_next : hosts.stream_url_new;
  if (!url) throw new RangeError(`no stream host configured for symbol type ${type}`);
  return url;
}

/** Diff depth stream; `fast` selects the 100 ms variant. */
export function depthStream(symbol: string, type: SymbolTypeCode, fast = true): string {
  return `${streamSymbol(symbol, type)}@depth${fast ? '@100ms' : ''}`;
}

/** Partial depth stream with 5, 10 or 20 levels. */
export function partialDepthStream(symbol: string, type: SymbolTypeCode, levels: 5 | 10 | 20, fast = false): string {
  return `${streamSymbol(symbol, type)}@depth${levels}${fast ? '@100ms' : ''}`;
}

/** Trade stream. */
export function tradeStream(symbol: string, type: SymbolTypeCode): string {
  return `${streamSymbol(symbol, type)}@trade`;
}

/** Aggregate trade stream. */
export function aggTradeStream(symbol: string, type: SymbolTypeCode): string {
  return `${streamSymbol(symbol, type)}@aggTrade`;
}

/** Kline stream. */
export function klineStream(symbol: string, type: SymbolTypeCode, interval: KlineIntervalName): string {
  return `${streamSymbol(symbol, type)}@kline_${interval}`;
}

/** Mini ticker stream of one symbol. */
export function miniTickerStream(symbol: string, type: SymbolTypeCode): string {
  return `${streamSymbol(symbol, type)}@miniTicker`;
}

/** All changed mini tickers. */
export const ALL_MINI_TICKERS = '!miniTicker@arr';

/** Book ticker stream (present in the real recordings; not in the spec's table). */
export function bookTickerStream(symbol: string, type: SymbolTypeCode): string {
  return `${streamSymbol(symbol, type)}@bookTicker`;
}

/** The stream-spelled symbol part of a stream name (`btcidr@depth@100ms` -> `btcidr`), undefined for `!…` streams. */
export function streamNameSymbol(name: string): string | undefined {
  if (name.startsWith('!')) return undefined;
  const at = name.indexOf('@');
  return at > 0 ? name.slice(0, at) : undefined;
}

/** Levels of a partial depth stream name, undefined for other names. */
export function partialDepthLevels(name: string): 5 | 10 | 20 | undefined {
  const m = /@depth(5|10|20)(?:@|$)/.exec(name);
  return m ? (Number(m[1]) as 5 | 10 | 20) : undefined;
}
