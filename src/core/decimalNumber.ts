/**
 * Decimal to nearest double for reports (equity and price samples), without the string round trip
 * of decimal.js's toNumber (which formats the value and parses the text back) when it can be
 * avoided. The answer is always exactly what `x.toNumber()` gives.
 */
import type { Decimal } from './decimal.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;


/**
 * The double nearest to `x`, equal to `x.toNumber()`.
 *
 * decimal.js keeps the digits in base-1e7 words `d` aligned on the decimal point (word j holds
 * units of 10^(7(floor(e/7) - j))) without trailing zero words. When the words fold into a safe
 * integer m and the value is m x 10^k with |k| <= 22, both m and 10^|k| are exact doubles, so one
 * IEEE multiplication or division rounds the exact value once, to nearest (ties to even), which is
 * what parsing the decimal's text does. Anything else takes decimal.js's own path.
 */
export function decimalToNumber(x: Decimal): number {
  const d = x.d as readonly number[] | null;
  // NaN and infinities have no digit words.
  if (d === null || d.length > 3) return x.toNumber();
  let m = d[0] as number;
  if (m === 0) return x.s < 0 ? -0 : 0;
  for (let i = 1; i < d.length; i++) m = m * 1e7 + (d[i] as number);
  if (m > Number.MAX_SAFE_INTEGER) return x.toNumber();
  const k = 7 * (Math.floor(x.e / 7) - (d.length - 1));
  let v: number;
  if (k >= 0) {
    if (k > 22) return x.toNumber();
    v = m * (POW10[k] as number);
  } else {
    if (k < -22) return x.toNumber();
    v = m / (POW10[-k] as number);
  }
  return x.s < 0 ? -v : v;
}
