/**
 * Public market history the REST and stream endpoints serve, built from the engine's trades:
 * recent trades, aggregate trades (consecutive fills of one taker order at one price and time),
 * one-minute bars from which every interval is merged (core/bars.ts: the rule a backtest builds
 * its bars with), and 24-hour mini tickers. Decimal sums stay exact; only wire strings leave.
 *
 * Bars run on one of two clocks per symbol. A replayed symbol's bars are built from the
 * recording's trades at their recorded times (the feed announces each with {@link
 * MarketData.replayedTrade}): bar open times are recording minutes and a bar holds exactly its
 * interval of recording whatever the replay speed, whole bars only, so a run against the replay
 * reads the bars a backtest of the recording builds. Its clients' own trades are not in them (they
 * are in the trade streams): they would make the bars depend on the client. Until the first whole
 * bar of an interval opens, the bar forming is built from the replay's trades so far (a lead-in):
 * the spec pushes and lists the forming bar from the first second, so it is served (x=false) but
 * never closed, since the trades before the replay's start are unknown. Every other symbol's
 * bars take every trade at the sandbox's wall clock and close when the clock passes their end.
 */
import { BarBuilder, barStart, type Bar, Decimal, firstWholeBar, flatBar, type KlineIntervalName, mergeBars, ZERO } from '../core/index.js';
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

const DAY = 86_400_000;
const MAX_TRADES = 10_000;

class SymbolHistory {
  readonly trades: StoredTrade[] = [];
  readonly aggs: StoredAggTrade[] = [];
  /** Closed one-minute bars, oldest first (flat ones for minutes without trades). */
  minutes: Bar[] = [];
  /** Undefined until the first trade that makes bars decides the clock (replayed or wall). */
  builder: BarBuilder | undefined;
  /** A replay's minute bars before its first whole one (the lead-in); dropped once that one opens. */
  leadIn: BarBuilder | undefined;
  /** Recorded times of replayed trades applied but not yet recorded, oldest first. */
  readonly replayTimes: number[] = [];
  lastPrice: Decimal | undefined;
  changed = false;

  /** The minute bars (closed and the open one) and the bar clock's newest time. */
  allMinutes(): readonly Bar[] {
    const open = this.builder?.current;
    return open ? [...this.minutes, open] : this.minutes;
  }
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
      const price = new Decimal(t.price);
      h.lastPrice = price;
      this.#bar(h, t, price);
    }
    return touched;
  }

  /**
   * A replay feed applied a recorded trade of `symbol` at recorded time `time`: the next replayed
   * trade recorded (in engine order) is put in bars at that time. From then on the symbol's bars
   * are the replay's.
   */
  replayedTrade(symbol: string, time: number): void {
    this.#h(symbol).replayTimes.push(time);
  }

  /** Closes the bars of wall-clock symbols whose end `now` has passed (replayed symbols: no effect). */
  advance(now: number): void {
    for (const h of this.#symbols.values()) {
      if (h.builder === undefined || h.builder.wholeBarsOnly) continue;
      const closed = h.builder.advance(now);
      if (closed.length > 0) h.minutes.push(...closed);
    }
  }

  #bar(h: SymbolHistory, t: TradeEvent, price: Decimal): void {
    const fromReplay = t.buyerOrderId === '0' && t.sellerOrderId === '0' && h.replayTimes.length > 0;
    if (fromReplay && h.builder?.wholeBarsOnly === false) {
      // The replay takes over the symbol's bars from whatever traded before it started.
      h.builder = undefined;
      h.minutes = [];
    }
    if (!fromReplay && h.builder?.wholeBarsOnly === true) return;
    const time = fromReplay ? (h.replayTimes.shift() as number) : t.time;
    const bt = { price, qty: new Decimal(t.qty), isBuyerMaker: t.isBuyerMaker, time, id: String(t.id) };
    if (h.builder === undefined) {
      h.builder = new BarBuilder('1m', fromReplay);
      if (fromReplay) h.leadIn = new BarBuilder('1m', false);
    }
    const closed = h.builder.add(bt);
    if (closed.length > 0) h.minutes.push(...closed);
    if (h.leadIn !== undefined) {
      if (h.builder.current === undefined) h.leadIn.add(bt);
      else h.leadIn = undefined;
    }
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

  /** Bars of `interval` merged from one-minute bars, oldest first (the forming one last, as the spec lists it). */
  klines(symbol: string, interval: KlineIntervalName, q: { startTime?: number; endTime?: number; limit: number }): WireCandle[] {
    const list = this.#bars(this.#h(symbol), interval, q.startTime, q.endTime).map(wireCandle);
    const forming = this.currentKline(symbol, interval);
    const last = list.at(-1);
    if (forming && (last === undefined || last.t < forming.t) && (q.startTime === undefined || forming.T >= q.startTime) && (q.endTime === undefined || forming.t <= q.endTime)) list.push(forming);
    if (q.startTime !== undefined) return list.slice(0, q.limit);
    return list.slice(Math.max(0, list.length - q.limit));
  }

  /** Closed bars of `interval` opening after `after` (all closed ones when undefined), oldest first. */
  closedKlines(symbol: string, interval: KlineIntervalName, after: number | undefined): WireCandle[] {
    const h = this.#h(symbol);
    const before = h.builder?.closedBefore;
    if (before === undefined) return [];
    return this.#bars(h, interval, after === undefined ? undefined : after + 1, before - 1)
      .filter((b) => b.closeTime < before && (after === undefined || b.openTime > after))
      .map(wireCandle);
  }

  /** The open bar of `interval` (the newest one, not closed yet), if any. */
  currentKline(symbol: string, interval: KlineIntervalName): WireCandle | undefined {
    const h = this.#h(symbol);
    const open = h.builder?.current;
    if (h.builder?.wholeBarsOnly === true) return replayForming(h, interval);
    if (open === undefined) {
      // A wall-clock symbol between trades: the bar the clock is in, its trades so far or flat at the last price.
      const before = h.builder?.closedBefore;
      if (before === undefined || h.builder?.wholeBarsOnly !== false || h.lastPrice === undefined) return undefined;
      const start = barStart(interval, before);
      const sofar = this.#bars(h, '1m', start, before - 1);
      return wireCandle(sofar.length > 0 ? mergeBars(interval, start, sofar) : flatBar(interval, start, h.lastPrice));
    }
    const bar = this.#bars(h, interval, barStart(interval, open.openTime), undefined)[0];
    return bar && wireCandle(bar);
  }

  /** Bars of `interval` opening from `from` to `to` (inclusive), merged from the minutes. */
  #bars(h: SymbolHistory, interval: KlineIntervalName, from: number | undefined, to: number | undefined): Bar[] {
    const minutes = h.allMinutes();
    const first = h.builder?.firstTradeTime;
    if (first === undefined) return [];
    // A replay's wider bars start at their own first whole bar, as its minutes do.
    const whole = h.builder?.wholeBarsOnly === true ? firstWholeBar(interval, first) : -Infinity;
    const lo = Math.max(whole, from === undefined ? -Infinity : barStart(interval, from));
    const out: Bar[] = [];
    let group: Bar[] = [];
    let groupStart = NaN;
    const flush = (): void => {
      if (group.length > 0) out.push(interval === '1m' ? (group[0] as Bar) : mergeBars(interval, groupStart, group));
      group = [];
    };
    for (const m of minutes) {
      if (m.openTime < lo) continue;
      if (to !== undefined && m.openTime > to) break;
      const s = barStart(interval, m.openTime);
      if (s !== groupStart) {
        flush();
        groupStart = s;
      }
      group.push(m);
    }
    flush();
    return out;
  }

  /**
   * 24-hour rolling mini ticker at `now` (minute resolution; a replayed symbol's window ends at its
   * newest bar, on the recording's clock), or undefined before any trade.
   */
  miniTicker(symbol: string, now: number): MiniTickerValues | undefined {
    const h = this.#h(symbol);
    if (!h.lastPrice) return undefined;
    const minutes = h.allMinutes();
    const newest = minutes[minutes.length - 1];
    const from = (h.builder?.wholeBarsOnly === true && newest ? newest.closeTime + 1 : now) - DAY;
    let o: Decimal | undefined;
    let hi: Decimal | undefined;
    let lo: Decimal | undefined;
    let v = ZERO;
    let q = ZERO;
    // Walk back from the newest minute only as far as the window reaches.
    let first = minutes.length;
    while (first > 0 && (minutes[first - 1] as Bar).closeTime >= from) first--;
    for (let i = first; i < minutes.length; i++) {
      const c = minutes[i] as Bar;
      // Minutes without trades are listed flat; the ticker reads trades only.
      if (c.trades === 0) continue;
      o ??= c.open;
      hi = hi === undefined || c.high.gt(hi) ? c.high : hi;
      lo = lo === undefined || c.low.lt(lo) ? c.low : lo;
      v = v.plus(c.volume);
      q = q.plus(c.quoteVolume);
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

  /** Drops one-minute bars more than `keepMs` older than each symbol's newest, so a long run stays bounded. */
  prune(keepMs: number): void {
    for (const h of this.#symbols.values()) {
      const newest = h.minutes[h.minutes.length - 1];
      if (newest === undefined) continue;
      let n = 0;
      while (n < h.minutes.length && (h.minutes[n] as Bar).openTime < newest.openTime - keepMs) n++;
      if (n > 0) h.minutes = h.minutes.slice(n);
    }
  }
}

/**
 * The forming bar of `interval` of a replayed symbol: the minutes (the lead-in's included) from
 * the start of the interval bar the newest minute is in, whole-bar rule or not, so a wider bar
 * forms from the replay's first trade as the one-minute bar does.
 */
function replayForming(h: SymbolHistory, interval: KlineIntervalName): WireCandle | undefined {
  const newest = h.builder?.current ?? h.leadIn?.current;
  if (newest === undefined) return undefined;
  const start = barStart(interval, newest.openTime);
  const parts: Bar[] = [];
  const lead = h.leadIn?.current;
  if (lead !== undefined && lead.openTime >= start) parts.push(lead);
  let i = h.minutes.length;
  while (i > 0 && (h.minutes[i - 1] as Bar).openTime >= start) i--;
  for (let j = i; j < h.minutes.length; j++) parts.push(h.minutes[j] as Bar);
  const open = h.builder?.current;
  if (open !== undefined) parts.push(open);
  if (interval === '1m' && parts.length === 1) return wireCandle(parts[0] as Bar);
  return wireCandle(mergeBars(interval, start, parts));
}

function wireCandle(b: Bar): WireCandle {
  return {
    t: b.openTime,
    T: b.closeTime,
    o: b.open.toFixed(),
    c: b.close.toFixed(),
    h: b.high.toFixed(),
    l: b.low.toFixed(),
    v: b.volume.toFixed(),
    n: b.trades,
    q: b.quoteVolume.toFixed(),
    V: b.takerBuyBaseVolume.toFixed(),
    Q: b.takerBuyQuoteVolume.toFixed(),
    f: b.firstTradeId === undefined ? -1 : Number(b.firstTradeId),
    L: b.lastTradeId === undefined ? -1 : Number(b.lastTradeId),
  }
}
