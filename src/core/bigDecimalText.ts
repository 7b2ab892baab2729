/**
 * Texts in and out of core/bigDecimal.ts values, as decimal.js reads and prints them: the report's
 * round trips and trade statistics are computed from the fills' texts at the end of a run (tens of
 * thousands of fills in a month of minute bars), where parsing each text into a Decimal and
 * dividing in decimal.js was most of the time. bigDecimalText.test.ts compares every function with
 * decimal.js on random operands.
 */
import { BIG_ZERO, bigToNumber, type BigDec } from './bigDecimal.js';

/** A decimal text: optional minus, digits with an optional point, optional exponent. */
const TEXT_RE = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/** Exact value of a decimal text, as `new Decimal(text)` holds it (every digit). */
export function bigOfText(text: string): BigDec {
  const dot = text.indexOf('.');
  // Plain texts ("-0.00012", "61234.5"), what a report's amounts are: no regular expression.
  if (text.length > 0 && text.length < 300 && isPlain(text, dot)) {
    const digits = dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1);
    const m = BigInt(digits);
    return m === 0n ? BIG_ZERO : { m, e: dot < 0 ? 0 : dot + 1 - text.length };
  }
  const r = TEXT_RE.exec(text);
  const int = r?.[2] ?? '';
  const frac = r?.[3] ?? '';
  if (r === null || int.length + frac.length === 0) throw new RangeError(`not a decimal text: ${JSON.stringify(text)}`);
  const m = BigInt(`${r[1] ?? ''}${int}${frac}` || '0');
  return m === 0n ? BIG_ZERO : { m, e: Number(r[4] ?? 0) - frac.length };
}

/** Whether `text` is an optional minus then digits with at most one point inside or after them (at `dot`). */
function isPlain(text: string, dot: number): boolean {
  const from = text.charCodeAt(0) === 45 ? 1 : 0;
  if (from === text.length || dot === from || dot === text.length - 1) return false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 48 || c > 57) && i !== dot) return false;
  }
  return true;
}

/** x.toFixed() of decimal.js: every digit, no exponent, no trailing zero, "0" for zero. */
export function bigText(x: BigDec): string {
  if (x.m === 0n) return '0';
  const neg = x.m < 0n;
  return placedDigits((neg ? -x.m : x.m).toString(), x.e, neg);
}

/**
 * {@link bigText} of m x 10^e for a safe-integer m, without a bigint: the stores of a run's fills
 * and round trips (backtest/rowStore.ts) print their amounts from such rows.
 */
export function numberText(m: number, e: number): string {
  if (m === 0) return '0';
  const neg = m < 0;
  // A safe integer prints as its digits (no exponent below 10^21).
  return placedDigits(String(neg ? -m : m), e, neg);
}

/** The text of `digits` (no sign, no leading zero) x 10^e: trailing zeros dropped, no exponent. */
function placedDigits(digits: string, e: number, neg: boolean): string {
  let s = digits;
  let end = s.length;
  while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
  e += s.length - end;
  s = s.slice(0, end);
  if (e >= 0) s += '0'.repeat(e);
  else if (-e >= s.length) s = `0.${'0'.repeat(-e - s.length)}${s}`;
  else s = `${s.slice(0, s.length + e)}.${s.slice(s.length + e)}`;
  return neg ? `-${s}` : s;
}

/** 10^0 … 10^63 (a report rounds 40-digit values to 12 places: a few dozen digits dropped at most). */
const P10: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));
/** Half of each of P10 (a table: a bigint division less per rounding). */
const HALF: readonly bigint[] = P10.map((p) => p / 2n);

/** |m| rounded to drop its last `k` (> 0) digits, half away from zero, with the sign of m. */
function dropDigits(m: bigint, k: number): bigint {
  const p = P10[k] ?? 10n ** BigInt(k);
  const q = ((m < 0n ? -m : m) + (HALF[k] ?? p / 2n)) / p;
  return m < 0n ? -q : q;
}

/** x.toDecimalPlaces(places) of decimal.js (ROUND_HALF_UP: half away from zero). */
export function bigToPlaces(x: BigDec, places: number): BigDec {
  if (x.e >= -places) return x;
  const m = dropDigits(x.m, -places - x.e);
  return m === 0n ? BIG_ZERO : { m, e: -places };
}

/** Number(x.toPrecision(digits)) of decimal.js (ROUND_HALF_UP): x to `digits` significant digits, as the nearest double. */
export function bigPrecisionNumber(x: BigDec, digits: number): number {
  if (x.m === 0n) return 0;
  const k = (x.m < 0n ? -x.m : x.m).toString().length - digits;
  return bigToNumber(k > 0 ? { m: dropDigits(x.m, k), e: x.e + k } : x);
}

/** amountText of a BigDec: rounded to `places` decimals (half away from zero) and printed, never "-0". */
export function bigAmountText(x: BigDec, places = 12): string {
  return bigText(bigToPlaces(x, places));
}
