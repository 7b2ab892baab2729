/**
 * Scaled-integer arithmetic for the risk checker's hot path. A decimal is read straight from
 * decimal.js's public digit words (`d`, `e`, `s`), so converting a Decimal allocates nothing.
 * Every helper is exact: when a value or product leaves the safe-integer range the caller is told
 * (NaN) or the comparison falls back to BigInt, never to a rounded float.
 */
import type { Decimal } from '../core/decimal.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Powers of ten that are exact doubles (10^0 .. 10^22). */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Result of the last `unpack`: value = m * 10^e, m signed without trailing zeros. A shared scratch
 * object so the hot path allocates nothing; read it right after calling `unpack`.
 */
export const unpacked = { m: 0, e: 0 };

/**
 * Splits `x` into unpacked.m * 10^unpacked.e with unpacked.m a safe integer without trailing zeros.
 * Returns false when the significant digits do not fit a safe integer.
 */
export function unpack(x: Decimal): boolean {
  const d = x.d;
  const n = d.length;
  let m = 0;
  for (let i = 0; i < n; i++) m = m * 1e7 + (d[i] as number);
  if (m > MAX_SAFE) return false;
  if (m === 0) {
    unpacked.m = 0;
    unpacked.e = 0;
    return true;
  }
  // decimal.js aligns base-1e7 words on the decimal point: the first word holds 10^(7k) units.
  let exp = 7 * (Math.floor(x.e / 7) - (n - 1));
  while (m % 10 === 0) {
    m /= 10;
    exp++;
  }
  unpacked.m = x.s < 0 ? -m : m;
  unpacked.e = exp;
  return true;
}

/**
 * `x` as an integer count of 10^-scale units, or NaN when `x` has more decimals than `scale`
 * or the result is not a safe integer.
 */
export function toScaled(x: Decimal, scale: number): number {
  if (!unpack(x)) return NaN;
  if (unpacked.m === 0) return 0;
  const shift = unpacked.e + scale;
  if (shift < 0) return NaN;
  if (shift > 22) return NaN;
  const v = unpacked.m * (POW10[shift] as number);
  return Math.abs(v) <= MAX_SAFE ? v : NaN;
}

/**
 * `x` rounded toward -infinity (`up` false) or +infinity (`up` true) to a count of 10^-scale
 * units; NaN when not a safe integer. Used for bounds and balances, where rounding the bound
 * onto the value's grid keeps every comparison with grid values exact.
 */
export function toScaledRounded(x: Decimal, scale: number, up: boolean): number {
  if (!unpack(x)) return NaN;
  if (unpacked.m === 0) return 0;
  const shift = unpacked.e + scale;
  if (shift >= 0) {
    if (shift > 22) return NaN;
    const v = unpacked.m * (POW10[shift] as number);
    return Math.abs(v) <= MAX_SAFE ? v : NaN;
  }
  if (-shift > 22) return up ? (unpacked.m > 0 ? 1 : 0) : unpacked.m > 0 ? 0 : -1;
  const p = POW10[-shift] as number;
  const q = Math.floor(unpacked.m / p);
  // unpacked.m has no trailing zeros, so with shift < 0 the division is never exact.
  return up ? q + 1 : q;
}

/** 10^k as a number (k in 0..22). */
export function pow10(k: number): number {
  return POW10[k] as number;
}

/** True when the product of two safe integers is itself a safe integer (so `a * b` is exact). */
export function safeProduct(a: number, b: number): boolean {
  return Math.abs(a * b) < 2 ** 52;
}

/**
 * Compares a1*a2*10^ea with b1*b2*10^eb (factors safe integers, exponents any sign).
 * Returns -1, 0 or 1. Exact: falls back to BigInt when a product could leave the safe range.
 */
export function cmpProducts(a1: number, a2: number, ea: number, b1: number, b2: number, eb: number): number {
  // Bring both sides to the smaller exponent by scaling the other side up.
  let sa = 0;
  let sb = 0;
  if (ea > eb) sa = ea - eb;
  else sb = eb - ea;
  if (sa <= 22 && sb <= 22) {
    const x = a1 * a2 * (POW10[sa] as number);
    const y = b1 * b2 * (POW10[sb] as number);
    if (Math.abs(x) < 2 ** 52 && Math.abs(y) < 2 ** 52) return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = BigInt(a1) * BigInt(a2) * 10n ** BigInt(sa);
  const y = BigInt(b1) * BigInt(b2) * 10n ** BigInt(sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Sign of (a + b + c - d) for a = am*10^ae etc. (mantissas safe integers). Exact: number
 * arithmetic on the common exponent when it stays safe, BigInt otherwise.
 */
export function cmpSum3(am: number, ae: number, bm: number, be: number, cm: number, ce: number, dm: number, de: number): number {
  const e0 = Math.min(am === 0 ? Infinity : ae, bm === 0 ? Infinity : be, cm === 0 ? Infinity : ce, dm === 0 ? Infinity : de);
  if (e0 === Infinity) return 0;
  const sa = am === 0 ? 0 : ae - e0;
  const sb = bm === 0 ? 0 : be - e0;
  const sc = cm === 0 ? 0 : ce - e0;
  const sd = dm === 0 ? 0 : de - e0;
  if (sa <= 22 && sb <= 22 && sc <= 22 && sd <= 22) {
    const x = am * (POW10[sa] as number);
    const y = bm * (POW10[sb] as number);
    const z = cm * (POW10[sc] as number);
    const w = dm * (POW10[sd] as number);
    if (Math.abs(x) + Math.abs(y) + Math.abs(z) + Math.abs(w) < 2 ** 52) {
      const r = x + y + z - w;
      return r < 0 ? -1 : r > 0 ? 1 : 0;
    }
  }
  const r = BigInt(am) * 10n ** BigInt(sa) + BigInt(bm) * 10n ** BigInt(sb) + BigInt(cm) * 10n ** BigInt(sc) - BigInt(dm) * 10n ** BigInt(sd);
  return r < 0n ? -1 : r > 0n ? 1 : 0;
}
