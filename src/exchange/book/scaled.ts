/**
 * Scaled-integer arithmetic for the order book hot path. A price or quantity string is held as
 * an integer count of 10^-scale units in a plain JS number, exact while it stays a safe integer.
 * Differentially tested against decimal.js in scaled.test.ts and order-book.test.ts.
 */
import { Decimal } from '../../core/decimal.js';
import { decimalOf } from '../../core/decimalSum.js';
import { ParseError } from '../../core/errors.js';
import { POW10 as CORE_POW10 } from '../../core/pow10.js';
import { NEEDS_SCALE, scaledDecimal, TOO_LARGE } from '../../core/scaledLevels.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

/** 10^n as an exact number; throws outside 0..22 because larger powers are not exact doubles. */
export function pow10(n: number): number {
  const p = POW10[n];
  if (p === undefined) throw new RangeError(`scale ${n} out of range 0..22`);
  return p;
}

/**
 * Parses a non-negative plain decimal string (`"61837.63000000"`) to an integer scaled by
 * 10^scale. Returns -1 when the string has non-zero digits beyond `scale` (the caller must
 * rescale); throws ParseError for malformed text or a value beyond the safe-integer range.
 * (The parse itself is core's {@link scaledDecimal}, shared with the replay's parse-once path.)
 */
export function toScaled(field: string, s: string, scale: number): number {
  if (scale > 22) throw new RangeError(`scale ${scale} out of range 0..22`);
  const v = scaledDecimal(s, scale);
  if (v >= 0 || v === NEEDS_SCALE) return v;
  throw new ParseError(field, s, v === TOO_LARGE ? `too large for scale ${scale}` : 'not a non-negative plain decimal');
}

/** Formats a scaled integer back to a plain decimal string with exactly `scale` fraction digits. */
export function scaledToString(v: number, scale: number): string {
  const s = String(v);
  if (scale === 0) return s;
  const padded = s.length <= scale ? '0'.repeat(scale - s.length + 1) + s : s;
  return `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/**
 * Converts a scaled integer to an exact Decimal: decimalOf's digit words for a non-zero safe
 * integer (the parser's s, e and d, without writing and parsing a text: a strategy reads the
 * touch and the mark is the mid at every sample), the text otherwise.
 */
export function scaledToDecimal(v: number, scale: number): Decimal {
  return v !== 0 && Number.isSafeInteger(v) ? decimalOf(v, -scale) : new Decimal(scaledToString(v, scale));
}

/**
 * The midpoint (a + b) / 2 of two scaled integers as an exact Decimal. It has at most one more
 * fraction digit than a and b, so while the sum (or five times an odd sum) is a safe integer it
 * is formatted straight from integers; otherwise it falls back to Decimal arithmetic.
 */
export function scaledMidToDecimal(a: number, b: number, scale: number): Decimal {
  const sum = a + b;
  if (sum <= Number.MAX_SAFE_INTEGER) {
    if (sum % 2 === 0) return scaledToDecimal(sum / 2, scale);
    if (sum * 5 <= Number.MAX_SAFE_INTEGER) return scaledToDecimal(sum * 5, scale + 1);
  }
  return scaledToDecimal(a, scale).plus(scaledToDecimal(b, scale)).div(2);
}

/** Scales a Decimal, rounding toward -inf (`floor`) or +inf (`ceil`); used for band limits given by callers. */
export function decimalToScaledRounded(d: Decimal, scale: number, mode: 'floor' | 'ceil'): number {
  const m = d.mul(pow10(scale));
  return (mode === 'floor' ? m.floor() : m.ceil()).toNumber();
}
