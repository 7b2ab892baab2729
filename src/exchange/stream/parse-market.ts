/**
 * Turns one market stream payload into typed events with exact decimals. Accepts combined
 * envelopes' `data` and raw payloads alike; the stream name (when known) disambiguates partial
 * depth, whose payload carries neither event type nor symbol.
 */
import { isKlineInterval } from '../../core/enums.js';
import { ParseError } from '../../core/errors.js';
import { parseOptionalTradeId, parseTradeId } from '../../core/tradeId.js';
import type {
  AggTradeEvent,
  BookTickerEvent,
  DepthDiffEvent,
  KlineEvent,
  MarketEvent,
  MiniTickerEvent,
  PartialDepthEvent,
  TradeEvent,
} from '../../core/marketEvents.js';
import { partialDepthLevels, streamNameSymbol } from './stream-names.js';
import { type Obj, bool, dec, int, levels, obj, str } from './wire-fields.js';

/** Context of a payload. */
export interface MarketParseContext {
  /** Stream name from the combined envelope or the raw connection; needed for partial depth. */
  readonly stream?: string | undefined;
  /** Local receive time (ms): the event time of payloads that carry no E (bookTicker, partial depth). */
  readonly recvTime: number;
  /** Maps the wire symbol (`BTCIDR`) to the caller's spelling (e.g. `BTC_IDR`); identity by default. */
  readonly symbolOf?: ((wire: string) => string) | undefined;
}

/** Parses one payload; an array payload (`!miniTicker@arr`) gives one event per element. Throws ParseError. */
export function parseMarketPayload(data: unknown, ctx: MarketParseContext): MarketEvent[] {
  if (Array.isArray(data)) return data.map((d, i) => parseMiniTicker(obj(`data[${i}]`, d), ctx));
  const d = obj('data', data);
  const e = d.e;
  switch (e) {
    case 'aggTrade':
      return [parseAggTrade(d, ctx)];
    case 'trade':
      return [parseTrade(d, ctx)];
    case 'kline':
      return [parseKline(d, ctx)];
    case '24hrMiniTicker':
      return [parseMiniTicker(d, ctx)];
    case 'depthUpdate':
      return [parseDepthDiff(d, ctx)];
    case undefined:
      if ('lastUpdateId' in d) return [parsePartialDepth(d, ctx)];
      if ('u' in d && 'B' in d && 'A' in d) return [parseBookTicker(d, ctx)];
      throw new ParseError('data', data, 'unknown payload (no event type)');
    default:
      throw new ParseError('data.e', e, 'unknown event type');
  }
}

function sym(d: Obj, ctx: MarketParseContext): string {
  const s = str('s', d.s);
  return ctx.symbolOf ? ctx.symbolOf(s) : s;
}

function parseAggTrade(d: Obj, ctx: MarketParseContext): AggTradeEvent {
  return {
    type: 'aggTrade',
    E: int('E', d.E),
    symbol: sym(d, ctx),
    aggId: parseTradeId('a', d.a),
    price: dec('p', d.p),
    qty: dec('q', d.q),
    firstTradeId: parseTradeId('f', d.f),
    lastTradeId: parseTradeId('l', d.l),
    tradeTime: int('T', d.T),
    isBuyerMaker: bool('m', d.m),
  };
}

function parseTrade(d: Obj, ctx: MarketParseContext): TradeEvent {
  return {
    type: 'trade',
    E: int('E', d.E),
    symbol: sym(d, ctx),
    tradeId: parseTradeId('t', d.t),
    price: dec('p', d.p),
    qty: dec('q', d.q),
    // b/a are listed by the spec but absent from some real payloads (the recordings omit them).
    buyerOrderId: d.b === undefined ? undefined : parseTradeId('b', d.b),
    sellerOrderId: d.a === undefined ? undefined : parseTradeId('a', d.a),
    tradeTime: int('T', d.T),
    isBuyerMaker: bool('m', d.m),
  };
}

function parseKline(d: Obj, ctx: MarketParseContext): KlineEvent {
  const k = obj('k', d.k);
  const interval = str('k.i', k.i);
  if (!isKlineInterval(interval)) throw new ParseError('k.i', interval, 'unknown kline interval');
  return {
    type: 'kline',
    E: int('E', d.E),
    symbol: sym(d, ctx),
    interval,
    openTime: int('k.t', k.t),
    closeTime: int('k.T', k.T),
    firstTradeId: parseOptionalTradeId('k.f', k.f),
    lastTradeId: parseOptionalTradeId('k.L', k.L),
    open: dec('k.o', k.o),
    high: dec('k.h', k.h),
    low: dec('k.l', k.l),
    close: dec('k.c', k.c),
    volume: dec('k.v', k.v),
    quoteVolume: dec('k.q', k.q),
    trades: int('k.n', k.n),
    takerBuyBaseVolume: dec('k.V', k.V),
    takerBuyQuoteVolume: dec('k.Q', k.Q),
    closed: bool('k.x', k.x),
  };
}

function parseMiniTicker(d: Obj, ctx: MarketParseContext): MiniTickerEvent {
  return {
    type: 'miniTicker',
    E: int('E', d.E),
    symbol: sym(d, ctx),
    close: dec('c', d.c),
    open: dec('o', d.o),
    high: dec('h', d.h),
    low: dec('l', d.l),
    volume: dec('v', d.v),
    quoteVolume: dec('q', d.q),
  };
}

function parseDepthDiff(d: Obj, ctx: MarketParseContext): DepthDiffEvent {
  const U = int('U', d.U);
  const u = int('u', d.u);
  if (u < U) throw new ParseError('u', u, `final update id below first update id ${U}`);
  return { type: 'depthDiff', E: int('E', d.E), symbol: sym(d, ctx), firstUpdateId: U, finalUpdateId: u, bids: levels('b', d.b), asks: levels('a', d.a) };
}

function parsePartialDepth(d: Obj, ctx: MarketParseContext): PartialDepthEvent {
  const stream = ctx.stream;
  const lv = stream === undefined ? undefined : partialDepthLevels(stream);
  const wire = stream === undefined ? undefined : streamNameSymbol(stream);
  if (lv === undefined || wire === undefined) throw new ParseError('stream', stream, 'partial depth payload needs its stream name');
  const upper = wire.toUpperCase();
  return {
    type: 'partialDepth',
    E: typeof d.E === 'number' ? int('E', d.E) : ctx.recvTime,
    symbol: ctx.symbolOf ? ctx.symbolOf(upper) : upper,
    levels: lv,
    lastUpdateId: int('lastUpdateId', d.lastUpdateId),
    bids: levels('bids', d.bids),
    asks: levels('asks', d.asks),
  };
}

function parseBookTicker(d: Obj, ctx: MarketParseContext): BookTickerEvent {
  return {
    type: 'bookTicker',
    E: typeof d.E === 'number' ? int('E', d.E) : ctx.recvTime,
    symbol: sym(d, ctx),
    updateId: int('u', d.u),
    bidPrice: dec('b', d.b),
    bidQty: dec('B', d.B),
    askPrice: dec('a', d.a),
    askQty: dec('A', d.A),
  };
}
