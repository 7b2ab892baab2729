/**
 * A Decimal as a scaled integer and back without writing its text: the local book takes parsed
 * levels (eagerly parsed stream events, REST snapshots) as Decimals, and `toFixed()` plus a parse
 * per price and quantity cost ~0.3 µs a level (a 1,000-level snapshot side ~0.6 ms of a replay);
 * a simulated venue turns the matching engine's scaled fills into Decimals.
 */
import { type Decimal, ZERO } from './decimal.js';
import { UNPACKED, unpackDecimal } from './decimalNumber.js';
import { decimalOf, decimalOfBig } from './decimalSum.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

/**
 * `x` as an integer count of 10^-scale units when `x` is non-negative (sign +), finite, has no
 * digit beyond `scale` and the count is a safe integer; -1 otherwise (the caller then takes the
 * text path, which reports or rescales as before). `scale` 0..22.
 *
 * x = m x 10^k read from decimal.js's digit words (core/decimalNumber's unpackDecimal). Exact: m x 10^t
 * for t >= 0 is computed from exact factors and refused past 2^53 (a true product beyond it rounds
 * to at least 2^53); for t < 0 the remainder and quotient of safe integers by 10^-t are exact.
 */
export function scaledOfDecimal(x: Decimal, scale: number): number {
  if (x.s !== 1) return -1;
  const v = unitsOfDecimal(x, scale);
  return v === v ? v : -1;
}

/**
 * `x` as a signed integer count of 10^-scale units (scaledOfDecimal for either sign: a negative
 * zero is 0); NaN when `x` is not finite, has a digit beyond `scale`, or the count is not a safe
 * integer. `scale` 0..22. Exact as scaledOfDecimal is: decimal.js's digit words as m x 10^k.
 */
export function unitsOfDecimal(x: Decimal, scale: number): number {
  if (!(scale >= 0 && scale <= 22) || !unpackDecimal(x)) return NaN;
  const m = UNPACKED.m;
  if (m === 0) return 0;
  const t = UNPACKED.k + scale;
  if (t >= 0) {
    if (t > 22) return NaN;
    const v = m * (POW10[t] as number);
    return Math.abs(v) <= Number.MAX_SAFE_INTEGER ? v : NaN;
  }
  if (-t > 22) return NaN;
  const p = POW10[-t] as number;
  return m % p === 0 ? m / p : NaN;
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The exact Decimal of `v` x 10^-scale, equal (value, and decimal.js's s, e and d) to parsing the
 * value's text. A safe integer, as number or bigint, takes core/decimalSum's decimalOf (digit
 * words cut from the integer, no text); a larger bigint takes decimalOfBig (the words cut from
 * its digits; exact: decimal.js's constructor does not round). `scale` 0..22, as the engine's.
 * Throws a RangeError for a number that is not a safe integer (it would not be exact).
 */
export function decimalOfScaled(v: number | bigint, scale: number): Decimal {
  if (typeof v === 'bigint') {
    if (v > MAX_SAFE_BIG || v < -MAX_SAFE_BIG) return decimalOfBig(v, -scale);
    v = Number(v);
  } else if (!Number.isSafeInteger(v)) throw new RangeError(`scaled value ${v} is not a safe integer`);
  return v === 0 ? ZERO : decimalOf(v, -scale);
}

/**
 * Decimals of scaled integers (decimalOfScaled), built once each per scale and kept in a bounded
 * map per scale, cleared when full so memory stays bounded; values never depend on the cache. A
 * simulated venue's fill prices, sizes and a buy's fees repeat, and a lookup by a small integer
 * costs ~10 ns against ~70-120 ns to build the Decimal. Amounts that rarely repeat (quote amounts)
 * are better built directly: a lookup that misses and an entry nobody reads again cost more.
 */
export class ScaledDecimalCache {
  readonly #byScale: (Map<number, Decimal> | undefined)[] = [];

  constructor(readonly limit = 1 << 12) {}

  /** decimalOfScaled(v, scale) for a safe integer v (throws a RangeError otherwise, as it does). */
  get(v: number, scale: number): Decimal {
    let map = this.#byScale[scale];
    if (map === undefined) this.#byScale[scale] = map = new Map();
    let d = map.get(v);
    if (d === undefined) {
      if (map.size >= this.limit) map.clear();
      d = decimalOfScaled(v, scale);
      map.set(v, d);
    }
    return d;
  }
}
