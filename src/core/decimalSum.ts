/**
 * A running sum of Decimals that builds no Decimal per term while the sum stays small: the hot
 * accumulators of backtest accounting (fees, cash, turnover, ordered and filled quantities) and
 * the strategy book's locked balances add tens of thousands of short exchange decimals, each a
 * decimal.js allocation otherwise. In core so that every layer may use it.
 */
import { Decimal } from './decimal.js';
import { decimalToNumber, unpackDecimal, UNPACKED as term } from './decimalNumber.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** decimal.js's tag of Decimal-like objects: its constructor copies s, e and d from any object carrying it. */
const DECIMAL_TAG = '[object Decimal]';
/** Digits per word of decimal.js's digit array. */
const LOG_BASE = 7;

/**
 * new Decimal(`${m}e${k}`) for a non-zero safe integer m, without writing and parsing the text.
 *
 * decimal.js keeps |value| as base-1e7 words aligned on the decimal point (word j holds units of
 * 10^(7(floor(e/7) - j)), e the exponent of the leading digit), with no leading or trailing zero
 * word. The words are cut here from m in integer arithmetic (every step exact: remainders, and
 * divisions that leave none, of safe integers), and the constructor copies them as it copies any
 * Decimal (applying its exponent limits). A differential test compares s, e and d with the parser's.
 */
export function decimalOf(m: number, k: number): Decimal {
  let u = Math.abs(m);
  // Trailing zero digits go to the exponent: the last word then ends in a non-zero digit.
  while (u % 10 === 0) {
    u /= 10;
    k++;
  }
  // The last word's place 10^(7q), and how far its units sit below m's last digit.
  const q = Math.floor(k / LOG_BASE);
  const r = k - LOG_BASE * q;
  const words: number[] = [];
  let p = POW10[LOG_BASE - r] as number;
  let rest = u % p;
  words.push(rest * (POW10[r] as number));
  u = (u - rest) / p;
  while (u > 0) {
    rest = u % 1e7;
    words.push(rest);
    u = (u - rest) / 1e7;
  }
  words.reverse();
  const lead = words[0] as number;
  let digits = 1;
  for (p = 10; p <= lead; p *= 10) digits++;
  const e = LOG_BASE * (q + words.length - 1) + digits - 1;
  return new Decimal({ toStringTag: DECIMAL_TAG, s: m < 0 ? -1 : 1, e, d: words } as unknown as Decimal);
}

/**
 * Sum of the Decimals added so far, equal (value and digits) to what adding them one by one with
 * `plus`/`minus`, starting from 0, gives.
 *
 * Invariant: while `#dec` is undefined the sum is exactly `#units` x 10^`#exp` with `#units` a
 * safe integer, so every partial sum had at most 16 significant digits and decimal.js (40 digits)
 * computed each of them exactly too: the values agree. The first term or partial sum that does
 * not fit switches to Decimal arithmetic from the exact value reached, after which every step is
 * the very `plus` of the plain loop.
 */
export class DecimalSum {
  #units = 0;
  #exp = 0;
  #dec: Decimal | undefined;
  /** The Decimal of the integer form, built when first read after a change. */
  #cached: Decimal | undefined;

  /** Adds `x`. */
  add(x: Decimal): void {
    this.#addSigned(x, 1);
  }

  /** Subtracts `x`. */
  sub(x: Decimal): void {
    this.#addSigned(x, -1);
  }

  /** Adds (sign 1) or subtracts (sign -1) another sum; two integer forms fold without a Decimal. */
  addSum(o: DecimalSum, sign: 1 | -1 = 1): void {
    if (this.#dec === undefined && o.#dec === undefined && this.#fold(sign * o.#units, o.#exp)) {
      this.#cached = undefined;
      return;
    }
    const v = this.value;
    this.#dec = sign > 0 ? v.plus(o.value) : v.minus(o.value);
  }

  /** Adds (sign 1) or subtracts (sign -1) x times y; in integer form when the product of the mantissas is a safe integer. */
  addProduct(x: Decimal, y: Decimal, sign: 1 | -1 = 1): void {
    if (this.#dec === undefined && unpackDecimal(x)) {
      const mx = term.m;
      const kx = term.k;
      if (unpackDecimal(y)) {
        // Exact when the true product is a safe integer; beyond, it never comes out below 2^53.
        const m = mx * term.m;
        if (Math.abs(m) <= MAX_SAFE && this.#fold(sign * m, kx + term.k)) {
          this.#cached = undefined;
          return;
        }
      }
    }
    const v = this.value;
    const xy = x.mul(y);
    this.#dec = sign > 0 ? v.plus(xy) : v.minus(xy);
  }

  /** True while the sum is held in integer form (exact, at most 16 significant digits). */
  get isInteger(): boolean {
    return this.#dec === undefined;
  }

  /** Back to 0 in integer form (a scratch accumulator is reused instead of reallocated). */
  reset(): void {
    this.#units = 0;
    this.#exp = 0;
    this.#dec = undefined;
    this.#cached = undefined;
  }

  /**
   * The nearest double of the sum (what `value.toNumber()` gives): in integer form with
   * |exponent| <= 22 one IEEE multiplication or division of two exact doubles rounds the exact
   * value once, to nearest, as parsing its text does.
   */
  toNumber(): number {
    if (this.#dec === undefined) {
      if (this.#units === 0) return 0;
      const p = POW10[Math.abs(this.#exp)];
      if (p !== undefined) return this.#exp >= 0 ? this.#units * p : this.#units / p;
    }
    return decimalToNumber(this.value);
  }

  /** The sum as a Decimal. */
  get value(): Decimal {
    if (this.#dec !== undefined) return this.#dec;
    return (this.#cached ??= this.#units === 0 ? new Decimal(0) : decimalOf(this.#units, this.#exp));
  }

  #addSigned(x: Decimal, sign: 1 | -1): void {
    if (this.#dec === undefined && unpackDecimal(x) && this.#fold(sign * term.m, term.k)) {
      this.#cached = undefined;
      return;
    }
    const v = this.value;
    this.#dec = sign > 0 ? v.plus(x) : v.minus(x);
  }

  /** units x 10^exp + m x 10^k in integer form; false (nothing changed) when it does not fit. */
  #fold(m: number, k: number): boolean {
    if (m === 0) return true;
    // Products and sums of safe integers are exact while the true result is at most 2^53 - 1,
    // and a true result beyond that never comes out below 2^53: one check after each operation.
    let units = this.#units;
    let exp = this.#exp;
    if (units === 0) exp = k;
    else if (k < exp) {
      // Rescale the sum down to the term's exponent.
      const p = POW10[exp - k];
      if (p === undefined) return false;
      units *= p;
      if (Math.abs(units) > MAX_SAFE) return false;
      exp = k;
    } else if (k > exp) {
      const p = POW10[k - exp];
      if (p === undefined) return false;
      m *= p;
      if (Math.abs(m) > MAX_SAFE) return false;
    }
    const sum = units + m;
    if (Math.abs(sum) > MAX_SAFE) return false;
    this.#units = sum;
    this.#exp = exp;
    return true;
  }
}
