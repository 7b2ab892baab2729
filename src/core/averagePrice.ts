/**
 * Volume-weighted average trade price over sliding time windows, as the spec's PERCENT_PRICE and
 * NOTIONAL (applyToMarket) filters define it: sum(price * qty) / sum(qty) over the trades of the
 * last `avgPriceMins` minutes, and the last trade price when `avgPriceMins` is 0. Pure (no clock,
 * no I/O): the caller feeds trades and passes `now`, so live, paper and backtest can share it.
 *
 * Semantics match the matching engine's (src/sim/engine.ts `avg`): a trade belongs to the window
 * when its time is strictly after `now - mins * 60000`; an empty window falls back to the last
 * trade price; with no trade at all the average is unknown (undefined), never invented.
 *
 * Exact throughout: trades are held as integers (core/heldTrades.ts), the running sums are
 * integers in a unit of 10^numE (price * qty) and 10^denE (qty), made finer when a trade with more
 * decimals comes, and the answer is the exact quotient rounded once to 40 digits. Values that do
 * not fit the integer form are held and summed as precision-1000 Decimals beside it.
 * reference/averagePriceReference.ts is the plain decimal.js form the differential test compares with.
 */
import { bigDiv, bigToDecimal } from './bigDecimal.js';
import { Decimal } from './decimal.js';
import { UNPACKED, unpackDecimal } from './decimalNumber.js';
import { HeldTrades, type SideTrade } from './heldTrades.js';
import { IntSum } from './intSum.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Room for any realistic number of digits: side sums never round. */
const Exact = Decimal.clone({ precision: 1000 });

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/**
 * Exponents held in the integer form (Int8 storage): 10^-40 … 10^40 covers every price and
 * quantity an exchange prints, and bounds the sums' unit at 10^-80, so their bigints stay short.
 */
const MAX_EXP = 40;
/** 10^0 … 10^160 as bigints: shifts between exponents within ±MAX_EXP, for products of two. */
const P10: bigint[] = [];
for (let i = 0, p = 1n; i <= 4 * MAX_EXP; i++, p *= 10n) P10.push(p);

/** Running sums of one window length. */
interface Window {
  readonly ms: number;
  /** Index of the oldest trade still inside this window. */
  start: number;
  /** Sums of the integer-form trades inside, in units of the instance's 10^numE and 10^denE. */
  readonly num: IntSum;
  readonly den: IntSum;
  /** Sums of the side trades inside (undefined while there is none). */
  sideNum: Decimal | undefined;
  sideDen: Decimal | undefined;
  sides: number;
  /** Cached answer (same object until the window changes, so callers can compare by identity). */
  avg: Decimal | undefined;
}

/** Sliding volume-weighted averages of one symbol's trades, over one or more window lengths. */
export class AveragePriceWindow {
  readonly #held = new HeldTrades();
  readonly #windows = new Map<number, Window>();
  #last: Decimal | undefined;
  #lastTime = -Infinity;
  /** Exponents of the sums' units: the smallest price + qty and qty exponents seen. */
  #numE = 0;
  #denE = 0;

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
    return this.#held.n;
  }

  /**
   * Adds one trade. Trades must come oldest first; a time earlier than the previous trade's is
   * taken as the previous time, since expiry walks the window from its oldest end. Throws a
   * RangeError for a price or quantity that is not finite (no exchange prints one).
   */
  add(time: number, price: Decimal, qty: Decimal): void {
    const t = time < this.#lastTime ? this.#lastTime : time;
    this.#last = price;
    this.#lastTime = t;
    // With no window (all lengths 0) only the last price matters: nothing is held.
    if (this.#windows.size === 0) return;
    const held = this.#held;
    if (unpackDecimal(price) && Math.abs(UNPACKED.k) <= MAX_EXP) {
      const pm = UNPACKED.m;
      const pe = UNPACKED.k;
      if (unpackDecimal(qty) && Math.abs(UNPACKED.k) <= MAX_EXP) {
        this.#refine(pe + UNPACKED.k, UNPACKED.k);
        held.push(t, pm, pe, UNPACKED.m, UNPACKED.k);
      } else held.pushSide(t, sideTrade(price, qty));
    } else held.pushSide(t, sideTrade(price, qty));
    const i = held.n - 1;
    for (const w of this.#windows.values()) {
      this.#apply(w, i, 1);
      w.avg = undefined;
    }
    // Expiring here too keeps memory bounded when nobody asks for the average for a while (after
    // every window took the trade: expiry may compact, which moves the slots).
    for (const w of this.#windows.values()) this.#expire(w, t);
  }

  /**
   * Volume-weighted average over the trades with time in (now - mins * 60000, now]; the last
   * price when `mins` is 0 or the window holds no volume; undefined before any trade.
   */
  average(mins: number, now: number): Decimal | undefined {
    if (mins <= 0) return this.#last;
    const w = this.#window(mins);
    this.#expire(w, now);
    if (w.avg === undefined) {
      const a = this.#quotient(w);
      if (a === undefined) return this.#last;
      w.avg = a;
    }
    return w.avg;
  }

  /** The window's sum(p*q) / sum(q), one rounding of the exact quotient to 40 digits; undefined when sum(q) is 0. */
  #quotient(w: Window): Decimal | undefined {
    if (w.sideNum === undefined || w.sideDen === undefined) {
      if (w.den.isZero()) return undefined;
      return bigToDecimal(bigDiv({ m: w.num.total(), e: this.#numE }, { m: w.den.total(), e: this.#denE }));
    }
    const num = w.sideNum.plus(new Exact(`${w.num.total()}e${this.#numE}`));
    const den = w.sideDen.plus(new Exact(`${w.den.total()}e${this.#denE}`));
    if (den.isZero()) return undefined;
    return new Decimal(num.toString()).div(new Decimal(den.toString()));
  }

  /** Makes the sums' units fine enough for a trade whose p*q and q have exponents `pqe` and `qe`. */
  #refine(pqe: number, qe: number): void {
    if (pqe < this.#numE) {
      for (const w of this.#windows.values()) w.num.scale(P10[this.#numE - pqe] as bigint);
      this.#numE = pqe;
    }
    if (qe < this.#denE) {
      for (const w of this.#windows.values()) w.den.scale(P10[this.#denE - qe] as bigint);
      this.#denE = qe;
    }
  }

  /** Adds (sign 1) or removes (sign -1) the trade in slot `i` to or from the window's sums. */
  #apply(w: Window, i: number, sign: 1 | -1): void {
    const h = this.#held;
    const pm = h.pm[i] as number;
    if (pm !== pm) {
      applySide(w, h.sideAt(i), sign);
      return;
    }
    const qm = h.qm[i] as number;
    const qe = h.qe[i] as number;
    addTerm(w.num, pm * qm, pm, qm, (h.pe[i] as number) + qe - this.#numE, sign);
    addTerm(w.den, qm, 1, qm, qe - this.#denE, sign);
  }

  #window(mins: number): Window {
    let w = this.#windows.get(mins);
    if (w === undefined) {
      // A length first asked for later starts with every trade still held; expiry trims it.
      w = { ms: mins * 60_000, start: this.#held.base, num: new IntSum(), den: new IntSum(), sideNum: undefined, sideDen: undefined, sides: 0, avg: undefined };
      for (let i = 0; i < this.#held.n; i++) this.#apply(w, i, 1);
      this.#windows.set(mins, w);
    }
    return w;
  }

  #expire(w: Window, now: number): void {
    const from = now - w.ms;
    const h = this.#held;
    let i = w.start - h.base;
    const n = h.n;
    if (i >= n || (h.times[i] as number) > from) return;
    while (i < n && (h.times[i] as number) <= from) this.#apply(w, i++, -1);
    w.start = i + h.base;
    w.avg = undefined;
    this.#compact();
  }

  /** Drops trades every window has expired, in batches so the arrays are not shifted per trade. */
  #compact(): void {
    let oldest = Infinity;
    for (const w of this.#windows.values()) oldest = Math.min(oldest, w.start);
    const drop = oldest - this.#held.base;
    if (drop < 1024 || drop * 2 < this.#held.n) return;
    this.#held.dropBefore(oldest);
  }
}

/**
 * Adds sign * m x 10^shift to `sum`, where m = a * b (`ab` its double product) and shift >= 0:
 * in doubles while every step is a safe integer (a true product past 2^53 rounds to at least 2^53,
 * so the checks never pass a rounded value), in bigint otherwise.
 */
function addTerm(sum: IntSum, ab: number, a: number, b: number, shift: number, sign: 1 | -1): void {
  if (Math.abs(ab) <= MAX_SAFE && shift <= 22) {
    const v = ab * (POW10[shift] as number);
    if (Math.abs(v) <= MAX_SAFE) {
      sum.add(sign === 1 ? v : -v);
      return;
    }
  }
  const v = BigInt(a) * BigInt(b) * (P10[shift] as bigint);
  sum.addBig(sign === 1 ? v : -v);
}

/** A trade the integer form cannot hold, as the reference holds every trade. */
function sideTrade(price: Decimal, qty: Decimal): SideTrade {
  if (!price.isFinite()) throw new RangeError(`average price: trade price ${price.toString()} is not a finite number`);
  if (!qty.isFinite()) throw new RangeError(`average price: trade qty ${qty.toString()} is not a finite number`);
  const q = new Exact(qty.toString());
  return { pq: new Exact(price.toString()).mul(q), q };
}

function applySide(w: Window, s: SideTrade, sign: 1 | -1): void {
  w.sides += sign;
  if (w.sides === 0) {
    // No side trade left inside: back to the integer-only quotient.
    w.sideNum = undefined;
    w.sideDen = undefined;
  } else if (sign === 1) {
    w.sideNum = w.sideNum === undefined ? s.pq : w.sideNum.plus(s.pq);
    w.sideDen = w.sideDen === undefined ? s.q : w.sideDen.plus(s.q);
  } else {
    w.sideNum = (w.sideNum as Decimal).minus(s.pq);
    w.sideDen = (w.sideDen as Decimal).minus(s.q);
  }
}
