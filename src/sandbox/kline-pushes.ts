/**
 * What each kline stream has been sent: a stream gets every bar that closes from its subscription
 * on, several in one push when a fast replay closed more than one since the last (2 s) push, then
 * the open bar. Bars are the market history's (market-data.ts: a replay's on its own clock).
 */
import type { KlineIntervalName, SymbolInfo } from '../core/index.js';
import type { MarketData, WireCandle } from './market-data.js';
import { klinePayload } from './stream-payloads.js';

/** The symbol and interval of a kline stream key; undefined for any other stream. */
export type KlineStreamOf = (key: string) => { readonly info: SymbolInfo; readonly interval: KlineIntervalName } | undefined;

/** Closed-bar bookkeeping of the subscribed kline streams, by stream key (`host|name`). */
export class KlinePushes {
  /** Per stream: open time of the last closed bar it was sent or had when it subscribed (undefined: none). */
  readonly #last = new Map<string, number | undefined>();

  constructor(
    readonly market: MarketData,
    readonly streamOf: KlineStreamOf,
  ) {}

  /** A stream's first subscriber: bars closed before now are history, not pushes. */
  subscribed(key: string): void {
    const k = this.streamOf(key);
    if (k) this.#last.set(key, this.market.closedKlines(k.info.symbol, k.interval, undefined).at(-1)?.t);
  }

  /** What to push to stream `key` at `now`: the bars closed since its last push (x=true), then the open one. */
  due(key: string, now: number): { type: SymbolInfo['type']; name: string; payload: Record<string, unknown> }[] {
    const k = this.streamOf(key);
    if (!k) return [];
    const closed = this.market.closedKlines(k.info.symbol, k.interval, this.#last.get(key));
    if (closed.length > 0) this.#last.set(key, (closed[closed.length - 1] as WireCandle).t);
    const open = this.market.currentKline(k.info.symbol, k.interval);
    const name = key.slice(key.indexOf('|') + 1);
    const push = (bar: WireCandle, x: boolean): { type: SymbolInfo['type']; name: string; payload: Record<string, unknown> } => ({ type: k.info.type, name, payload: klinePayload(k.info, k.interval, bar, x, now) });
    return [...closed.map((b) => push(b, true)), ...(open ? [push(open, false)] : [])];
  }
}
