/**
 * The plain decimal.js form of core/averagePrice.ts's window, kept as the reference that
 * averagePrice.diff.test.ts compares every answer with (each trade held as two
 * precision-1000 Decimals; simple enough to read as the definition).
 *
 * Volume-weighted average trade price over sliding time windows, as the spec's PERCENT_PRICE and
 * NOTIONAL (applyToMarket) filters define it: sum(price * qty) / sum(qty) over the trades of the
 * last `avgPriceMins` minutes, and the last trade price when `avgPriceMins` is 0. Pure (no clock,
 * no I/O): the caller feeds trades and passes `now`, so live, paper and backtest can share it.
 *
 * Semantics match the matching engine's (src/sim/engine.ts `avg`): a trade belongs to the window
 * when its time is strictly after `now - mins * 60000`; an empty window falls back to the last
 * trade price; with no trade at all the average is unknown (undefined), never invented.
 */
import { Decimal } from '../decimal.js';

/**
 * Sums are kept in a clone with room for any realistic number of digits, so adding and removing
 * trades never rounds: the running sums stay exactly the sums of the trades in the window.
 */
const Exact = Decimal.clone({ precision: 1000 });
type Exact = InstanceType<typeof Exact>;

/** Running sums of one window length. */
interface Window {
  readonly ms: number;
  /** Index of the oldest trade still inside this window. */
  start: number;
  num: Exact;
  den: Exact;
  /** Cached answer (same object until the window changes, so callers can compare by identity). */
  avg: Decimal | undefined;
}

/** Sliding volume-weighted averages of one symbol's trades, over one or more window lengths (the reference). */
export class AveragePriceWindowReference {
  readonly #times: number[] = [];
  readonly #pq: Exact[] = [];
  readonly #qty: Exact[] = [];
  /** Index of times[0] in the trade sequence (entries before it were dropped). */
  #base = 0;
  readonly #windows = new Map<number, Window>();
  #last: Decimal | undefined;
  #lastTime = -Infinity;

  /**
   * @param mins window lengths (minutes) to keep from the first trade on. A length first asked for
   * later is built from the trades still held, which cover the longest length given here.
   */
  constructor(mins: readonly number[] = []) {
    for (const m of mins) if (m > 0) this.#window(m);
  }

  /** Last trade price (undefined before the first trade). */
  get last(): Decimal | undefined {
    return this.#last;
  }

  /** Time of the last trade added (-Infinity before the first). */
  get lastTime(): number {
    return this.#lastTime;
  }

  /** Number of trades held (those inside the longest window, plus some not yet compacted). */
  get size(): number {
    return this.#times.length;
  }

  /**
   * Adds one trade. Trades must come oldest first; a time earlier than the previous trade's is
   * taken as the previous time, since expiry walks the window from its oldest end.
   */
  add(time: number, price: Decimal, qty: Decimal): void {
    const t = time < this.#lastTime ? this.#lastTime : time;
    const p = new Exact(price.toString());
    const q = new Exact(qty.toString());
    const pq = p.mul(q);
    this.#last = price;
    this.#lastTime = t;
    // With no window (all lengths 0) only the last price matters: nothing is held.
    if (this.#windows.size === 0) return;
    this.#times.push(t);
    this.#pq.push(pq);
    this.#qty.push(q);
    for (const w of this.#windows.values()) {
      w.num = w.num.plus(pq);
      w.den = w.den.plus(q);
      w.avg = undefined;
      // Expiring here too keeps memory bounded when nobody asks for the average for a while.
      this.#expire(w, t);
    }
  }

  /**
   * Volume-weighted average over the trades with time in (now - mins * 60000, now]; the last
   * price when `mins` is 0 or the window holds no volume; undefined before any trade.
   */
  average(mins: number, now: number): Decimal | undefined {
    if (mins <= 0) return this.#last;
    const w = this.#window(mins);
    this.#expire(w, now);
    if (w.den.isZero()) return this.#last;
    // One rounding, to the project's 40 digits, of the exact quotient (as the engine's averagePrice).
    w.avg ??= new Decimal(w.num.toString()).div(new Decimal(w.den.toString()));
    return w.avg;
  }

  #window(mins: number): Window {
    let w = this.#windows.get(mins);
    if (w === undefined) {
      // A length first asked for later starts with every trade still held; expiry trims it.
      let num = new Exact(0);
      let den = new Exact(0);
      for (let i = 0; i < this.#times.length; i++) {
        num = num.plus(this.#pq[i] as Exact);
        den = den.plus(this.#qty[i] as Exact);
      }
      w = { ms: mins * 60_000, start: this.#base, num, den, avg: undefined };
      this.#windows.set(mins, w);
    }
    return w;
  }

  #expire(w: Window, now: number): void {
    const from = now - w.ms;
    let i = w.start - this.#base;
    const n = this.#times.length;
    if (i >= n || (this.#times[i] as number) > from) return;
    while (i < n && (this.#times[i] as number) <= from) {
      w.num = w.num.minus(this.#pq[i] as Exact);
      w.den = w.den.minus(this.#qty[i] as Exact);
      i++;
    }
    w.start = i + this.#base;
    w.avg = undefined;
    this.#compact();
  }

  /** Drops trades every window has expired, in batches so the arrays are not shifted per trade. */
  #compact(): void {
    let oldest = Infinity;
    for (const w of this.#windows.values()) oldest = Math.min(oldest, w.start);
    const drop = oldest - this.#base;
    if (drop < 1024 || drop * 2 < this.#times.length) return;
    this.#times.splice(0, drop);
    this.#pq.splice(0, drop);
    this.#qty.splice(0, drop);
    this.#base = oldest;
  }
}
