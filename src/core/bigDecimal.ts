/**
 * Decimal arithmetic on bigints that gives exactly what the configured decimal.js Decimal gives
 * (40 significant digits, ROUND_HALF_UP): the backtest's position accounting divides to 40 digits
 * on almost every fill (average entry price) and values equity with such prices every sample,
 * which decimal.js does about five times slower, with two allocations per result.
 *
 * A value is m x 10^e with m a bigint. Every operation computes its exact result in integers and
 * rounds it once to 40 significant digits, half away from zero: decimal.js's plus, minus, times
 * and dividedBy are correctly rounded the same way, so the values agree (bigDecimal.test.ts
 * compares them digit for digit on random operands). Signed zeros are not kept: decimal.js prints
 * a negative zero as "0" in toString and toFixed, and a sum with a zero term is the other term.
 */
import { Decimal } from './decimal.js';
import { decimalOfBig } from './decimalSum.js';

/** m x 10^e; results of this module's operations have at most 40 digits in |m|. */
export interface BigDec {
  readonly m: bigint;
  readonly e: number;
}

const PRECISION = 40;
if (Decimal.precision !== PRECISION || Decimal.rounding !== Decimal.ROUND_HALF_UP) throw new Error('bigDecimal.ts assumes the Decimal configuration of core/decimal.ts (40 digits, ROUND_HALF_UP)');

/** 10^0 … 10^399 as bigints. */
const P10: bigint[] = [];
for (let i = 0, p = 1n; i < 400; i++, p *= 10n) P10.push(p);
const LIMIT = P10[PRECISION] as bigint;
const LIMIT_LOW = P10[PRECISION - 1] as bigint;
const NEG_LIMIT = -LIMIT;

/** Zero. */
export const BIG_ZERO: BigDec = { m: 0n, e: 0 };

/** 10^k as a bigint (k >= 0), from a table below 10^400. */
export function bigPow10(k: number): bigint {
  const p = P10[k];
  return p !== undefined ? p : 10n ** BigInt(k);
}

/** -10^0 … -10^399, and ±10^k / 2 (half a unit of the last digit kept when k digits are dropped). */
const NP10: bigint[] = P10.map((p) => -p);
const HALF: bigint[] = P10.map((p) => p / 2n);
const NHALF: bigint[] = HALF.map((h) => -h);

/** Values this module rounds have 41 to ~90 digits (products and aligned sums of 40-digit values): searched first below 10^MID. */
const MID = 64;

/**
 * Number of decimal digits of a >= 10^(lo - 1): binary search over the powers of ten, in
 * [lo, MID] when a < 10^MID (what the accounting's values are), else above.
 */
function digits(a: bigint, lo = 1): number {
  let hi = MID;
  if (a >= (P10[MID] as bigint)) {
    if (a >= (P10[P10.length - 1] as bigint)) return a.toString().length;
    lo = MID + 1;
    hi = P10.length - 1;
  }
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a < (P10[mid] as bigint)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Number of decimal digits of a <= -(10^(lo - 1)), without negating it (a negation is a new bigint). */
function digitsNeg(a: bigint, lo = 1): number {
  let hi = MID;
  if (a <= (NP10[MID] as bigint)) {
    if (a <= (NP10[NP10.length - 1] as bigint)) return a.toString().length - 1;
    lo = MID + 1;
    hi = NP10.length - 1;
  }
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a > (NP10[mid] as bigint)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * m x 10^e rounded to 40 significant digits, half away from zero. Dropping k digits rounds as
 * (m ± 10^k / 2) / 10^k with bigint division's truncation toward zero: one addition and one
 * division, no remainder to build and compare (a multiplication and a subtraction more), no
 * negation: the accounting rounds several times per fill and per equity sample.
 */
function round(m: bigint, e: number): BigDec {
  if (m < LIMIT && m > NEG_LIMIT) return { m, e };
  const pos = m > 0n;
  let k = (pos ? digits(m, PRECISION + 1) : digitsNeg(m, PRECISION + 1)) - PRECISION;
  const p = bigPow10(k);
  let q = pos ? (m + (k < HALF.length ? (HALF[k] as bigint) : p / 2n)) / p : (m + (k < NHALF.length ? (NHALF[k] as bigint) : -p / 2n)) / p;
  // Rounded up into a 41st digit (all nines): one digit fewer at the next exponent.
  if (q === LIMIT || q === NEG_LIMIT) {
    q = pos ? LIMIT_LOW : -LIMIT_LOW;
    k++;
  }
  return { m: q, e: e + k };
}

/** The exact value of a finite Decimal (all its digits, as decimal.js holds them). */
export function bigOf(x: Decimal): BigDec {
  const d = x.d as readonly number[] | null;
  if (d === null) throw new RangeError(`not a finite decimal: ${x.toString()}`);
  const w0 = d[0] as number;
  if (w0 === 0) return BIG_ZERO;
  // decimal.js's digit words are base 1e7, aligned on the decimal point (see core/decimalSum.ts).
  const e = 7 * (Math.floor(x.e / 7) - (d.length - 1));
  let m: bigint;
  if (d.length <= 2) m = BigInt(d.length === 1 ? w0 : w0 * 1e7 + (d[1] as number));
  else {
    m = BigInt(w0);
    for (let i = 1; i < d.length; i++) m = m * 10_000_000n + BigInt(d[i] as number);
  }
  return { m: x.s < 0 ? -m : m, e };
}

/** The Decimal of a value (exact: the constructor keeps every digit, as of a parsed text). */
export function bigToDecimal(x: BigDec): Decimal {
  return x.m === 0n ? new Decimal(0) : decimalOfBig(x.m, x.e);
}

/** x.plus(y) of decimal.js. */
export function bigPlus(x: BigDec, y: BigDec): BigDec {
  if (y.m === 0n) return round(x.m, x.e);
  if (x.m === 0n) return round(y.m, y.e);
  if (x.e === y.e) return round(x.m + y.m, x.e);
  return x.e > y.e ? round(x.m * bigPow10(x.e - y.e) + y.m, y.e) : round(x.m + y.m * bigPow10(y.e - x.e), x.e);
}

/** x.minus(y) of decimal.js. */
export function bigMinus(x: BigDec, y: BigDec): BigDec {
  return bigPlus(x, { m: -y.m, e: y.e });
}

/** x.times(y) of decimal.js. */
export function bigTimes(x: BigDec, y: BigDec): BigDec {
  if (x.m === 0n || y.m === 0n) return BIG_ZERO;
  return round(x.m * y.m, x.e + y.e);
}

/** x.dividedBy(y) of decimal.js; y must not be zero. */
export function bigDiv(x: BigDec, y: BigDec): BigDec {
  if (y.m === 0n) throw new RangeError('division by zero');
  if (x.m === 0n) return BIG_ZERO;
  const ax = x.m < 0n ? -x.m : x.m;
  const ay = y.m < 0n ? -y.m : y.m;
  // Scale the dividend so the truncated quotient has at least 41 digits: half-up rounding then
  // depends only on the first dropped digit, never on the remainder.
  const s = Math.max(0, PRECISION + 1 - digits(ax) + digits(ay));
  return round((x.m * bigPow10(s)) / y.m, x.e - y.e - s);
}

/**
 * p.dividedBy(z) of decimal.js where p is bigTimes(x, y). When z has y's digits and p kept every
 * digit of the product, the quotient is x itself, rounded: a lot closed whole (one division less
 * per round trip for its entry price and its exit fee).
 */
export function bigDivProduct(p: BigDec, x: BigDec, y: BigDec, z: BigDec): BigDec {
  if (p.m !== 0n && p.e === x.e + y.e && y.m === z.m && y.e === z.e) return bigRound(x);
  return bigDiv(p, z);
}

/** x rounded to 40 significant digits: what decimal.js's abs, neg and plus(0) make of a longer input. */
export function bigRound(x: BigDec): BigDec {
  return x.m < LIMIT && x.m > -LIMIT ? x : round(x.m, x.e);
}

/** -x (exact; decimal.js's neg also rounds, which changes nothing for results of this module). */
export function bigNeg(x: BigDec): BigDec {
  return { m: -x.m, e: x.e };
}

/** Sign of x: -1, 0 or 1. */
export function bigSign(x: BigDec): number {
  return x.m > 0n ? 1 : x.m < 0n ? -1 : 0;
}

/** x.cmp(y) of decimal.js: -1, 0 or 1. */
export function bigCmp(x: BigDec, y: BigDec): number {
  let a = x.m;
  let b = y.m;
  if (x.e > y.e) a *= bigPow10(x.e - y.e);
  else if (y.e > x.e) b *= bigPow10(y.e - x.e);
  return a < b ? -1 : a > b ? 1 : 0;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Exact doubles 10^0 … 10^22. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * The double nearest to x, as decimal.js's toNumber gives it (which parses the value's text: the
 * nearest double of the exact value). With |m| a safe integer and |e| at most 22 one IEEE
 * multiplication or division of two exact doubles rounds the exact value once, to nearest.
 */
export function bigToNumber(x: BigDec): number {
  const m = x.m;
  if (m === 0n) return 0;
  if (m <= MAX_SAFE && m >= -MAX_SAFE) {
    const p = POW10[x.e < 0 ? -x.e : x.e];
    if (p !== undefined) return x.e >= 0 ? Number(m) * p : Number(m) / p;
  }
  return Number(`${m}e${x.e}`);
}
