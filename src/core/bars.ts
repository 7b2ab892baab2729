/**
 * Bars (klines) from trades: the one rule the sandbox's kline streams and REST and a backtest of a
 * trades recording both build with, so a live run against a replay and a backtest of that
 * recording read the same closed bars.
 *
 * - A trade belongs to the bar of its time (UTC boundaries; weeks start Monday, months on the
 *   1st). Open is its first trade, close its last, high and low their extremes; volumes, quote
 *   volume (price x qty) and the taker-buy sums are exact decimal sums.
 * - A bar closes when a trade of a later bar arrives (or, on a wall clock, when the clock passes
 *   its end: {@link BarBuilder.advance}). Intervals with no trade between two bars are closed as
 *   flat bars at the previous close with zero volume, as an exchange lists them.
 * - `wholeBarsOnly` (a replay, which starts mid-bar and cannot know the trades before it): the
 *   trades before the first bar boundary at or after the first trade are in no bar, so every bar
 *   holds its whole interval. A trade older than the open bar (out of order) joins the open bar.
 */
import { type Decimal, ZERO } from './decimal.js';
import { KlineInterval, type KlineIntervalName } from './enums.js';
import type { KlineEvent } from './marketEvents.js';
import type { TradeId } from './tradeId.js';

const DAY = 86_400_000;

/** Start of the bar of `interval` that contains `t` (UTC; weeks start Monday, months on the 1st). */
export function barStart(interval: KlineIntervalName, t: number): number {
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

/** End (inclusive, ms) of the bar of `interval` starting at `start`. */
export function barEnd(interval: KlineIntervalName, start: number): number {
  if (interval === '1M') {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1;
  }
  return start + KlineInterval[interval] - 1;
}

/** The first bar boundary of `interval` at or after `t`. */
export function firstWholeBar(interval: KlineIntervalName, t: number): number {
  const s = barStart(interval, t);
  return s === t ? s : barEnd(interval, s) + 1;
}

/** A trade as bars read it. */
export interface BarTrade {
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly isBuyerMaker: boolean;
  /** The trade's time (ms) on the clock bars are built on. */
  readonly time: number;
  readonly id?: TradeId;
  /** An aggregate trade (aggTrade): the id of its last trade and how many trades it holds (default: one trade, `id`). */
  readonly lastId?: TradeId;
  readonly count?: number;
}

/** One bar: the bar fields of a KlineEvent. */
export type Bar = Pick<
  KlineEvent,
  'openTime' | 'closeTime' | 'open' | 'high' | 'low' | 'close' | 'volume' | 'quoteVolume' | 'trades' | 'takerBuyBaseVolume' | 'takerBuyQuoteVolume' | 'firstTradeId' | 'lastTradeId'
>;

type OpenBar = { -readonly [K in keyof Bar]: Bar[K] };

const NONE: readonly Bar[] = [];

function newBar(interval: KlineIntervalName, start: number, t: BarTrade): OpenBar {
  const quote = t.price.mul(t.qty);
  const buy = !t.isBuyerMaker;
  return {
    openTime: start,
    closeTime: barEnd(interval, start),
    open: t.price,
    high: t.price,
    low: t.price,
    close: t.price,
    volume: t.qty,
    quoteVolume: quote,
    trades: t.count ?? 1,
    takerBuyBaseVolume: buy ? t.qty : ZERO,
    takerBuyQuoteVolume: buy ? quote : ZERO,
    firstTradeId: t.id,
    lastTradeId: t.lastId ?? t.id,
  };
}

/** A bar of `interval` at `start` with no trade, flat at `price`. */
export function flatBar(interval: KlineIntervalName, start: number, price: Decimal): Bar {
  return { openTime: start, closeTime: barEnd(interval, start), open: price, high: price, low: price, close: price, volume: ZERO, quoteVolume: ZERO, trades: 0, takerBuyBaseVolume: ZERO, takerBuyQuoteVolume: ZERO, firstTradeId: undefined, lastTradeId: undefined };
}

function addTrade(b: OpenBar, t: BarTrade): void {
  const quote = t.price.mul(t.qty);
  if (t.price.gt(b.high)) b.high = t.price;
  if (t.price.lt(b.low)) b.low = t.price;
  b.close = t.price;
  b.volume = b.volume.plus(t.qty);
  b.quoteVolume = b.quoteVolume.plus(quote);
  b.trades += t.count ?? 1;
  if (!t.isBuyerMaker) {
    b.takerBuyBaseVolume = b.takerBuyBaseVolume.plus(t.qty);
    b.takerBuyQuoteVolume = b.takerBuyQuoteVolume.plus(quote);
  }
  b.firstTradeId ??= t.id;
  b.lastTradeId = t.lastId ?? t.id ?? b.lastTradeId;
}

/**
 * The bar of `interval` at `start` made of `bars` (narrower bars inside it, oldest first): the
 * same bar a {@link BarBuilder} of `interval` builds from their trades. Bars without trades add
 * nothing; when none has a trade it is flat at the last one's close.
 */
export function mergeBars(interval: KlineIntervalName, start: number, bars: readonly Bar[]): Bar {
  let m: OpenBar | undefined;
  for (const b of bars) {
    if (b.trades === 0) continue;
    if (m === undefined) {
      m = { ...b, openTime: start, closeTime: barEnd(interval, start) };
      continue;
    }
    if (b.high.gt(m.high)) m.high = b.high;
    if (b.low.lt(m.low)) m.low = b.low;
    m.close = b.close;
    m.volume = m.volume.plus(b.volume);
    m.quoteVolume = m.quoteVolume.plus(b.quoteVolume);
    m.trades += b.trades;
    m.takerBuyBaseVolume = m.takerBuyBaseVolume.plus(b.takerBuyBaseVolume);
    m.takerBuyQuoteVolume = m.takerBuyQuoteVolume.plus(b.takerBuyQuoteVolume);
    m.firstTradeId ??= b.firstTradeId;
    m.lastTradeId = b.lastTradeId ?? m.lastTradeId;
  }
  if (m !== undefined) return m;
  const last = bars[bars.length - 1];
  if (last === undefined) throw new RangeError('mergeBars needs at least one bar');
  return flatBar(interval, start, last.close);
}

/** Bars of one interval built trade by trade (the rule in this module's header). */
export class BarBuilder {
  #open: OpenBar | undefined;
  /** Start of the next bar to close (after the last closed one); undefined before the first trade. */
  #next: number | undefined;
  #lastClose: Decimal | undefined;
  #firstTime: number | undefined;

  constructor(
    readonly interval: KlineIntervalName,
    readonly wholeBarsOnly: boolean,
  ) {}

  /** Time of the first trade seen (bars of wider intervals start at their own first whole bar after it). */
  get firstTradeTime(): number | undefined {
    return this.#firstTime;
  }

  /** The bar still open (its last trade so far), if any. */
  get current(): Bar | undefined {
    return this.#open;
  }

  /** Start of the first bar not closed yet; undefined before the first bar. */
  get closedBefore(): number | undefined {
    return this.#open?.openTime ?? this.#next;
  }

  /** Adds a trade; returns the bars it closed, oldest first. */
  add(t: BarTrade): readonly Bar[] {
    const iv = this.interval;
    if (this.#firstTime === undefined) {
      this.#firstTime = t.time;
      this.#next = this.wholeBarsOnly ? firstWholeBar(iv, t.time) : barStart(iv, t.time);
    }
    const open = this.#open;
    if (open !== undefined && t.time <= open.closeTime) {
      addTrade(open, t);
      return NONE;
    }
    if (t.time < (this.#next as number)) return NONE;
    const start = barStart(iv, t.time);
    const out = this.#closeUntil(start);
    this.#open = newBar(iv, start, t);
    return out;
  }

  /** Closes the open bar, and flat bars after it, up to the bar containing `now` (a wall clock's bars). */
  advance(now: number): readonly Bar[] {
    if (this.#lastClose === undefined && this.#open === undefined) return NONE;
    const start = barStart(this.interval, now);
    return this.#next !== undefined && this.#next < start && (this.#open === undefined || this.#open.closeTime < start) ? this.#closeUntil(start) : NONE;
  }

  /** Closes the open bar and the flat bars after it that start before `start`. */
  #closeUntil(start: number): Bar[] {
    const out: Bar[] = [];
    const open = this.#open;
    if (open !== undefined) {
      out.push(open);
      this.#lastClose = open.close;
      this.#next = open.closeTime + 1;
      this.#open = undefined;
    }
    const price = this.#lastClose;
    if (price !== undefined) {
      for (let s = this.#next as number; s < start; s = barEnd(this.interval, s) + 1) out.push(flatBar(this.interval, s, price));
    }
    this.#next = Math.max(this.#next as number, start);
    return out;
  }
}
