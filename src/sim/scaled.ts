/**
 * Scaled-integer arithmetic for the hot path. A value with `scale` decimals is held as the integer
 * value * 10^scale: prices and quantities as safe-integer numbers, balances and notionals as bigint.
 * Every conversion is exact or refuses; the differential test checks the engine against decimal.js.
 */
import type { Decimal } from '../core/decimal.js';
import type { DecimalInput } from '../core/newOrder.js';
import { scaledOfDecimal } from '../core/decimalScaled.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';
import { NEEDS_SCALE, NOT_PLAIN, scaledDecimal } from '../core/scaledLevels.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

/** Largest integer a double holds exactly. */
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const TWO53 = 9007199254740992;

export type { DecimalInput };

/** Number of decimals of a Decimal (0.010 -> 2). */
export function decimalsOf(d: Decimal): number {
  return Math.max(0, d.decimalPlaces());
}

/**
 * Parses a plain non-negative decimal string into an integer at `scale` decimals (core's
 * {@link scaledDecimal}, the parser the replay and the local book use, with this module's codes).
 * Returns -1 when it is not a plain decimal, -2 when it has non-zero digits beyond `scale`,
 * -3 when it does not fit in a safe integer.
 */
export function parseScaled(s: string, scale: number): number {
  const v = scaledDecimal(s, scale);
  if (v < 0) return v === NOT_PLAIN ? -1 : v === NEEDS_SCALE ? -2 : -3;
  // The parse yields a double even when integral; `| 0` hands V8 a small integer instead, so
  // order fields stay untagged-integer fields rather than boxed doubles (one heap object each).
  return v <= 0x7fffffff ? v | 0 : v;
}

/**
 * Converts a DecimalInput to a scaled integer (same error codes as parseScaled). A Decimal that fits
 * is read from its digit words (core/decimalScaled's scaledOfDecimal, exact, no text: an order entry
 * from a strategy's intent spent ~0.3 us a field in `toFixed()` and the parse back); anything it
 * refuses (negative, too many decimals, too large, not finite) takes the text path for its code.
 */
export function toScaled(v: DecimalInput, scale: number): number {
  if (typeof v === 'string') return parseScaled(v, scale);
  const f = scaledOfDecimal(v, scale);
  if (f >= 0) return f <= 0x7fffffff ? f | 0 : f;
  if (v.isNegative() || !v.isFinite()) return -1;
  return parseScaled(v.toFixed(), scale);
}

/** Powers of ten as bigint. */
export function pow10n(k: number): bigint {
  return 10n ** BigInt(k);
}

/** Formats a scaled integer as a canonical decimal string (no trailing zeros). */
export function fmt(v: number, scale: number): string {
  if (scale === 0) return String(v);
  if (v < 0) return `-${fmt(-v, scale)}`;
  if (v <= 0x7fffffff && scale <= 9) {
    // Most prices and quantities: int32 arithmetic throughout (no floating-point remainder), and
    // the fraction's digits with their leading zeros as the text of frac + 10^digits after its 1.
    const p = POW10_32[scale]!;
    const f = v % p | 0;
    return withFraction(((v - f) / p) | 0, f, scale);
  }
  if (v <= 0x10000000000000 && scale <= 9) {
    // Quote amounts and fees (price x size at both scales, past 2^31): the integer part from a
    // double quotient corrected by one at most (v <= 2^52, so q x p is exact), then the fraction,
    // below 10^9, in int32 as above; no floating-point remainder (a libc fmod call per digit).
    const p = POW10_32[scale]!;
    let ip = Math.floor(v / p);
    let r = v - ip * p;
    if (r < 0) {
      ip--;
      r += p;
    } else if (r >= p) {
      ip++;
      r -= p;
    }
    return withFraction(ip, r | 0, scale);
  }
  if (scale >= POW10.length) return point(String(v), scale);
  const p = POW10[scale]!;
  // Integer remainder and exact division: no rounding for any safe integer.
  let frac = v % p;
  const ip = (v - frac) / p;
  if (frac === 0) return String(ip);
  let digits = scale;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  const fs = String(frac);
  return `${ip}.${ZEROS[digits - fs.length]!}${fs}`;
}

/** 10^0 .. 10^9 as int32 (fmt's small-integer path). */
const POW10_32 = Int32Array.from({ length: 10 }, (_, i) => 10 ** i);

/** ZEROS[n] is n zeros (padding of fractional digits). */
const ZEROS: readonly string[] = Array.from({ length: 23 }, (_, i) => '0'.repeat(i));

/**
 * `ip.frac` for an integer part and a fraction `f` (0 <= f < 10^scale <= 10^9, an int32) at
 * `scale`: the fraction's digits with their leading zeros as the text of f + 10^digits after its
 * 1, trailing zeros dropped, no point when it is zero.
 */
function withFraction(ip: number, f: number, scale: number): string {
  if (f === 0) return String(ip);
  let digits = scale;
  while (f % 10 === 0) {
    f = (f / 10) | 0;
    digits--;
  }
  return `${ip}.${String(f + POW10_32[digits]!).slice(1)}`;
}

/** Formats a scaled bigint as a canonical decimal string. */
export function fmtBig(v: bigint, scale: number): string {
  if (v <= 9007199254740991n && v >= -9007199254740991n) return fmt(Number(v), scale);
  if (scale === 0) return v.toString();
  return v < 0n ? `-${point((-v).toString(), scale)}` : point(v.toString(), scale);
}

/** Places the decimal point `scale` digits from the right of a digit string and drops trailing zeros. */
function point(digits: string, scale: number): string {
  const s = digits.length <= scale ? '0'.repeat(scale - digits.length + 1) + digits : digits;
  const at = s.length - scale;
  let end = s.length;
  while (end > at && s.charCodeAt(end - 1) === 48) end--;
  return end === at ? s.slice(0, at) : `${s.slice(0, at)}.${s.slice(at, end)}`;
}

/** Exact product of two non-negative safe integers as bigint, avoiding bigint multiply when it fits. */
export function mulBig(a: number, b: number): bigint {
  const r = a * b;
  return r < TWO53 ? BigInt(r) : BigInt(a) * BigInt(b);
}

/**
 * Exact a * b * f as bigint for non-negative safe integers a, b and an integer factor f (given as
 * number `fn` and bigint `fb`): one BigInt conversion when the product fits a double exactly.
 */
export function mul3(a: number, b: number, fn: number, fb: bigint): bigint {
  const r = a * b * fn;
  return r < TWO53 ? BigInt(r) : BigInt(a) * BigInt(b) * fb;
}

/**
 * a * b * f for non-negative safe integers a, b and an integer factor f >= 1 as a number when the
 * exact product is a safe integer, else -1 (use mul3). The double product is exact when it is below
 * 2^53: rounding is monotonic, so each intermediate product is then below 2^53 too.
 */
export function mul3n(a: number, b: number, f: number): number {
  const r = a * b * f;
  return r < TWO53 ? r : -1;
}

/**
 * floor(a / b) for safe integers a >= 0, b > 0, exactly: the double quotient is correctly rounded
 * but may round up to the next integer, so the result is corrected with exact products (k * b <= a
 * < 2^53; a product at or above 2^53 is above a whatever its rounding).
 */
export function floorDiv(a: number, b: number): number {
  let k = Math.floor(a / b);
  while (k > 0 && k * b > a) k--;
  while ((k + 1) * b <= a) k++;
  return k;
}

/** Compares a*b with c*d exactly for non-negative safe integers: -1, 0 or 1. */
export function cmpProducts(a: number, b: number, c: number, d: number): number {
  const x = a * b;
  const y = c * d;
  if (x < TWO53 && y < TWO53) return x < y ? -1 : x > y ? 1 : 0;
  const X = BigInt(a) * BigInt(b);
  const Y = BigInt(c) * BigInt(d);
  return X < Y ? -1 : X > Y ? 1 : 0;
}

/** Ceiling division of non-negative bigints. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * Converts a scaled integer from `from` to `to` decimals exactly: multiplies by a power of ten, or
 * divides only when nothing non-zero is cut off. Same codes as parseScaled: -1 when `v` is not a
 * non-negative safe integer, -2 when it has non-zero digits beyond `to`, -3 when the result does
 * not fit in a safe integer.
 */
export function rescale(v: number, from: number, to: number): number {
  if (!(v >= 0 && v <= MAX_SAFE) || Math.floor(v) !== v) return -1;
  if (from !== to) {
    if (from < to) {
      v *= POW10[to - from] ?? Infinity;
      if (!(v <= MAX_SAFE)) return -3;
    } else {
      const f = POW10[from - to] ?? Infinity;
      // Divisible exactly when the quotient's floor multiplies back to v: no floating-point
      // remainder (an fmod, ~1 ms a binary replay's 40k trade values at 8 decimals). Exact: for
      // v < 2^53 the computed quotient lies between the true floor q and q + 1, and q * f (< v) or
      // (q + 1) * f (> v) can never compute to v; v = 0 is 0 at any scale.
      const k = Math.floor(v / f);
      if (k * f !== v && v !== 0) return -2;
      v = k;
    }
  }
  // As in parseScaled: a small integer, so fields holding it stay untagged integers.
  return v <= 0x7fffffff ? v | 0 : v;
}
