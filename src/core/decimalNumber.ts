/**
 * Decimal to nearest double for reports (equity and price samples), without the string round trip
 * of decimal.js's toNumber (which formats the value and parses the text back) when it can be
 * avoided. The answer is always exactly what `x.toNumber()` gives.
 */
import type { Decimal } from './decimal.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Scratch result of {@link unpackDecimal}: the value is m x 10^k, m a safe integer. */
const term = { m: 0, k: 0 };

/** What the last successful {@link unpackDecimal} read (overwritten by the next call). */
export const UNPACKED: { readonly m: number; readonly k: number } = term;

/**
 * Reads `x` as m x 10^k into {@link UNPACKED} from decimal.js's digit words (base 1e7, aligned
 * on the decimal point: word j holds units of 10^(7(floor(e/7) - j)), no trailing zero words),
 * with m ending in a non-zero digit (k as high as it goes). False when the significant digits do
 * not fold into a safe integer (or x is not finite): the caller then takes decimal.js's own path.
 *
 * The last word's padding zeros go to the exponent before folding, so that m holds only
 * significant digits (exact while those are at most 3 words and a safe integer: a true value
 * past 2^53 folds to at least 2^53, which is refused). The one place that reads decimal.js's
 * words as m x 10^k (decimalToNumber here, core/decimalSum's running sums, core/decimalScaled).
 */
export function unpackDecimal(x: Decimal): boolean {
  const d = x.d as readonly number[] | null;
  if (d === null || d.length > 3) return false;
  const n = d.length;
  let last = d[n - 1] as number;
  if (last === 0) {
    // Only zero has a zero word at the end (d = [0]).
    term.m = 0;
    term.k = 0;
    return true;
  }
  // In int32 (a word is below 1e7): `last /= 10` would make it a double for V8, and every
  // `% 10` after that a floating-point modulus (a C call per step; every DecimalSum term and
  // decimalToNumber comes through here).
  let z = 0;
  for (let q = (last / 10) | 0; q * 10 === last; q = (last / 10) | 0) {
    last = q;
    z++;
  }
  let m = 0;
  for (let i = 0; i < n - 1; i++) m = m * 1e7 + (d[i] as number);
  m = m * (POW10[7 - z] as number) + last;
  if (m > MAX_SAFE) return false;
  term.m = x.s < 0 ? -m : m;
  term.k = 7 * (Math.floor(x.e / 7) - (n - 1)) + z;
  return true;
}

/**
 * The double nearest to `x`, equal to `x.toNumber()`.
 *
 * When x = m x 10^k with m a safe integer (unpackDecimal) and |k| <= 22, both m and 10^|k| are
 * exact doubles, so one IEEE multiplication or division rounds the exact value once, to nearest
 * (ties to even, symmetric in sign), which is what parsing the decimal's text does. Anything else
 * takes decimal.js's own path.
 */
export function decimalToNumber(x: Decimal): number {
  if (!unpackDecimal(x)) return x.toNumber();
  const m = term.m;
  if (m === 0) return x.s < 0 ? -0 : 0;
  const k = term.k;
  if (k >= 0) return k > 22 ? x.toNumber() : m * (POW10[k] as number);
  return k < -22 ? x.toNumber() : m / (POW10[-k] as number);
}
