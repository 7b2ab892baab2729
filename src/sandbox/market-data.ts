/**
 * Public market history the REST and stream endpoints serve, built from the engine's trades:
 * recent trades, aggregate trades (consecutive fills of one taker order at one price and time),
 * one-minute candles from which every interval is aggregated, and 24-hour mini tickers.
 * Decimal sums stay exact (Decimal); only the wire strings leave this module.
 */
import { Decimal, type KlineIntervalName, KlineInterval, ZERO } from '../core/index.js';
import type { TradeEvent } from '../sim/index.js';

/** A stored public trade in wire-ready form. */
export interface StoredTrade {
  readonly id: number;
  readonly price: string;
  readonly qty: string;
  readonly time: number;
  readonly isBuyerMaker: boolean;
  readonly buyerOrderId: string;
  readonly sellerOrderId: string;
}

/** A stored aggregate trade (wire keys of the spec). */
export interface StoredAggTrade {
  readonly a: number;
  readonly p: string;
  q: string;
  readonly f: number;
  l: number;
  readonly T: number;
  readonly m: boolean;
  readonly M: boolean;
}

interface Candle {
  readonly t: number;
  o: Decimal;
  h: Decimal;
  l: Decimal;
  c: Decimal;
  v: Decimal;
  q: Decimal;
  n: number;
  V: Decimal;
  Q: Decimal;
  f: number;
  L: number;
}

/** A candle in the spec's stream shape (values as wire strings). */
export interface WireCandle {
  readonly t: number;
  readonly T: number;
  readonly o: string;
  readonly c: string;
  readonly h: string;
  readonly l: string;
  readonly v: string;
  readonly n: number;
  readonly q: string;
  readonly V: string;
  readonly Q: string;
  readonly f: number;
  readonly L: number;
}

/** 24-hour rolling mini ticker values. */
export interface MiniTickerValues {
  readonly o: string;
  readonly c: string;
  readonly h: string;
  readonly l: string;
  readonly v: string;
  readonly q: string;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const MAX_TRADES = 10_000;

/** Start of the candle of `interval` that contains `t` (UTC; weeks start Monday, months on the 1st). */
export function candleStart(interval: KlineIntervalName, t: number): number {
  if (interval === '1M') {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  if (interval === '1w') {
    const monday0 = 4 * DAY; // 1970-01-05 was a Monday
    return Math.floor((t - monday0) / (7 * DAY)) * 7 * DAY + monday0;
  }
  const len = KlineInterval[interval];
  return Math.floor(t / len) * len;
}

/** End (inclusive, ms) of the candle of `interval` starting at `start`. */
export function candleEnd(interval: KlineIntervalName, start: number): number {
  if (interval === '1M') {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1;
  }
  return start + KlineInterval[interval] - 1;
}

class SymbolHistory {
  readonly trades: StoredTrade[] = [];
  readonly aggs: StoredAggTrade[] = [];
  readonly minutes = new Map<number, Candle>();
  /** Minute keys in ascending order. */
  readonly minuteKeys: number[] = [];
  lastTakerKey = '';
  lastPrice: Decimal | undefined;
  changed = false;
}

/** Market history of every sandbox symbol. */
export class MarketData {
  readonly #symbols = new Map<string, SymbolHistory>();
  #nextAggId = 1;

  #h(symbol: string): SymbolHistory {
    let h = this.#symbols.get(symbol);
    if (!h) {
      h = new SymbolHistory();
      this.#symbols.set(symbol, h);
    }
    return h;
  }

  /**
   * Records a batch of trades from one engine operation. Returns the aggregate trades that the
   * batch completed or extended, for the aggTrade stream.
   */
  record(trades: readonly TradeEvent[]): StoredAggTrade[] {
    const touched: StoredAggTrade[] = [];
    let prevKey = '';
    for (const t of trades) {
      const h = this.#h(t.symbol);
      h.changed = true;
      h.trades.push({ id: t.id, price: t.price, qty: t.qty, time: t.time, isBuyerMaker: t.isBuyerMaker, buyerOrderId: t.buyerOrderId, sellerOrderId: t.sellerOrderId });
      if (h.trades.length > MAX_TRADES) h.trades.splice(0, h.trades.length - MAX_TRADES);
      // Aggregate fills of one taker order at one price within one operation. Replayed trades
      // carry order id '0' and stay separate, since we cannot know their orders.
      const taker = t.isBuyerMaker ? t.sellerOrderId : t.buyerOrderId;
      const key = taker === '0' ? '' : `${t.symbol}|${taker}|${t.price}|${t.time}`;
      const last = h.aggs[h.aggs.length - 1];
      if (key !== '' && key === prevKey && last) {
        last.q = new Decimal(last.q).plus(t.qty).toFixed();
        last.l = t.id;
        if (touched[touched.length - 1] !== last) touched.push(last);
      } else {
        const agg: StoredAggTrade = { a: this.#nextAggId++, p: t.price, q: t.qty, f: t.id, l: t.id, T: t.time, m: t.isBuyerMaker, M: true };
        h.aggs.push(agg);
        if (h.aggs.length > MAX_TRADES) h.aggs.splice(0, h.aggs.length - MAX_TRADES);
        touched.push(agg);
      }
      prevKey = key;
      this.#candle(h, t);
    }
    return touched;
  }

  #candle(h: SymbolHistory, t: TradeEvent): void {
    const start = candleStart('1m', t.time);
    const price = new Decimal(t.price);
    const qty = new Decimal(t.qty);
    const quote = price.mul(qty);
    const takerBuy = !t.isBuyerMaker;
    let c = h.minutes.get(start);
    if (!c) {
      c = { t: start, o: price, h: price, l: price, c: price, v: ZERO, q: ZERO, n: 0, V: ZERO, Q: ZERO, f: t.id, L: t.id };
      h.minutes.set(start, c);
      // Trades arrive in time order; keep keys sorted even if one arrives late.
      let i = h.minuteKeys.length;
      while (i > 0 && (h.minuteKeys[i - 1] as number) > start) i--;
      h.minuteKeys.splice(i, 0, start);
    }
    if (price.gt(c.h)) c.h = price;
    if (price.lt(c.l)) c.l = price;
    c.c = price;
    c.v = c.v.plus(qty);
    c.q = c.q.plus(quote);
    c.n++;
    if (takerBuy) {
      c.V = c.V.plus(qty);
      c.Q = c.Q.plus(quote);
    }
    c.L = t.id;
    h.lastPrice = price;
  }

  /** Recent trades, oldest first: the last `limit`, or from `fromId` inclusive. */
  trades(symbol: string, limit: number, fromId?: number): StoredTrade[] {
    const all = this.#h(symbol).trades;
    if (fromId === undefined) return all.slice(Math.max(0, all.length - limit));
    return all.filter((t) => t.id >= fromId).slice(0, limit);
  }

  /** Aggregate trades, oldest first, by fromId or time range, else the most recent. */
  aggTrades(symbol: string, q: { fromId?: number; startTime?: number; endTime?: number; limit: number }): StoredAggTrade[] {
    const all = this.#h(symbol).aggs;
    if (q.fromId === undefined && q.startTime === undefined && q.endTime === undefined) return all.slice(Math.max(0, all.length - q.limit));
    return all
      .filter((a) => (q.fromId === undefined || a.a >= q.fromId) && (q.startTime === undefined || a.T >= q.startTime) && (q.endTime === undefined || a.T <= q.endTime))
      .slice(0, q.limit);
  }

  /** Candles of `interval` aggregated from one-minute candles, oldest first. */
  klines(symbol: string, interval: KlineIntervalName, q: { startTime?: number; endTime?: number; limit: number }): WireCandle[] {
    const h = this.#h(symbol);
    const buckets = new Map<number, Candle>();
    for (const k of h.minuteKeys) {
      if (q.startTime !== undefined && k < candleStart(interval, q.startTime)) continue;
      if (q.endTime !== undefined && k > q.endTime) continue;
      const m = h.minutes.get(k) as Candle;
      const s = candleStart(interval, k);
      const b = buckets.get(s);
      if (!b) buckets.set(s, { ...m, t: s });
      else {
        if (m.h.gt(b.h)) b.h = m.h;
        if (m.l.lt(b.l)) b.l = m.l;
        b.c = m.c;
        b.v = b.v.plus(m.v);
        b.q = b.q.plus(m.q);
        b.n += m.n;
        b.V = b.V.plus(m.V);
        b.Q = b.Q.plus(m.Q);
        b.L = m.L;
      }
    }
    const list = [...buckets.values()].map((c) => wireCandle(interval, c));
    if (q.startTime !== undefined) return list.slice(0, q.limit);
    return list.slice(Math.max(0, list.length - q.limit));
  }

  /** The current candle of `interval` at `now`; with no trade in it yet, a flat candle at the last price. */
  currentKline(symbol: string, interval: KlineIntervalName, now: number): WireCandle | undefined {
    const start = candleStart(interval, now);
    const list = this.klines(symbol, interval, { startTime: start, limit: 1 });
    const first = list[0];
    if (first && first.t === start) return first;
    const h = this.#h(symbol);
    if (!h.lastPrice) return undefined;
    const p = h.lastPrice;
    return wireCandle(interval, { t: start, o: p, h: p, l: p, c: p, v: ZERO, q: ZERO, n: 0, V: ZERO, Q: ZERO, f: -1, L: -1 });
  }

  /** 24-hour rolling mini ticker at `now` (minute resolution), or undefined before any trade. */
  miniTicker(symbol: string, now: number): MiniTickerValues | undefined {
    const h = this.#h(symbol);
    if (!h.lastPrice) return undefined;
    const from = now - DAY;
    let o: Decimal | undefined;
    let hi: Decimal | undefined;
    let lo: Decimal | undefined;
    let v = ZERO;
    let q = ZERO;
    // Walk back from the newest minute only as far as the window reaches.
    let first = h.minuteKeys.length;
    while (first > 0 && (h.minuteKeys[first - 1] as number) + MINUTE > from) first--;
    for (let i = first; i < h.minuteKeys.length; i++) {
      const c = h.minutes.get(h.minuteKeys[i] as number) as Candle;
      o ??= c.o;
      hi = hi === undefined || c.h.gt(hi) ? c.h : hi;
      lo = lo === undefined || c.l.lt(lo) ? c.l : lo;
      v = v.plus(c.v);
      q = q.plus(c.q);
    }
    const last = h.lastPrice;
    return { o: (o ?? last).toFixed(), c: last.toFixed(), h: (hi ?? last).toFixed(), l: (lo ?? last).toFixed(), v: v.toFixed(), q: q.toFixed() };
  }

  /** Last trade price, if any. */
  lastPrice(symbol: string): Decimal | undefined {
    return this.#h(symbol).lastPrice;
  }

  /** True once per change: whether `symbol` traded since the last call (for !miniTicker@arr). */
  takeChanged(symbol: string): boolean {
    const h = this.#h(symbol);
    const c = h.changed;
    h.changed = false;
    return c;
  }

  /** Drops candles older than `keepMs` before `now` so a looping replay does not grow without bound. */
  prune(now: number, keepMs: number): void {
    for (const h of this.#symbols.values()) {
      while (h.minuteKeys.length > 0 && (h.minuteKeys[0] as number) < now - keepMs) {
        h.minutes.delete(h.minuteKeys.shift() as number);
      }
    }
  }
}

function wireCandle(interval: KlineIntervalName, c: Candle): WireCandle {
  return {
    t: c.t,
    T: candleEnd(interval, c.t),
    o: c.o.toFixed(),
    c: c.c.toFixed(),
    h: c.h.toFixed(),
    l: c.l.toFixed(),
    v: c.v.toFixed(),
    n: c.n,
    q: c.q.toFixed(),
    V: c.V.toFixed(),
    Q: c.Q.toFixed(),
    f: c.f,
    L: c.L,
  };
}
