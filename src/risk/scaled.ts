/**
 * Scaled-integer arithmetic for the risk checker's hot path. A decimal is read straight from
 * decimal.js's public digit words (`d`, `e`, `s`), so converting a Decimal allocates nothing.
 * Every helper is exact: when a value or product leaves the safe-integer range the caller is told
 * (NaN) or the comparison falls back to BigInt, never to a rounded float.
 */
import type { Decimal } from '../core/decimal.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Float powers of ten 10^-F_RANGE .. 10^F_RANGE for estimates only (never for a final answer). */
const F_RANGE = 40;
const POWF: readonly number[] = Array.from({ length: 2 * F_RANGE + 1 }, (_, i) => 10 ** (i - F_RANGE));

/**
 * Result of the last `unpack`: value = m * 10^e, m a signed safe integer. When `unpack` returned
 * false the digits did not fit: m is the value truncated toward zero at exponent e, so the true
 * magnitude lies strictly between |m| and |m| + 1 units. A shared scratch object so the hot path
 * allocates nothing; read it right after calling `unpack`.
 */
export const unpacked = { m: 0, e: 0 };

/**
 * Splits `x` into unpacked.m * 10^unpacked.e. Returns true when exact, false when truncated
 * (more significant digits than a safe integer holds).
 */
export function unpack(x: Decimal): boolean {
  const d = x.d;
  const n = d.length;
  // decimal.js aligns base-1e7 words on the decimal point: word j holds 10^(7(k - j)) units,
  // and it drops trailing zero words, so the last word is non-zero (unless the value is 0).
  let m = d[0] as number;
  if (n === 1) {
    // One word (the common small value): m < 10^7 needs no normalising. Its trailing zeros are
    // left in place (every consumer reads m * 10^e, whatever the split), which saves a division
    // loop per value on the hot path.
    unpacked.m = x.s < 0 && m !== 0 ? -m : m;
    unpacked.e = m === 0 ? 0 : 7 * Math.floor(x.e / 7);
    return true;
  }
  const k = Math.floor(x.e / 7);
  if (n === 2) {
    // Two words (prices with decimals, large quantities): d0 * 10^7 + d1 < 10^14 is always a
    // safe integer, so the value is exact without folding; trailing zeros stay (see above).
    unpacked.m = x.s < 0 ? -(m * 1e7 + (d[1] as number)) : m * 1e7 + (d[1] as number);
    unpacked.e = 7 * (k - 1);
    return true;
  }
  if (m === 0) {
    unpacked.m = 0;
    unpacked.e = 0;
    return true;
  }
  let e = 7 * k;
  let exact = true;
  for (let i = 1; i < n; i++) {
    let w = d[i] as number;
    let digits = 7;
    if (i === n - 1) {
      // Padding zeros of the last word carry no information: drop them so m stays small.
      while (w % 10 === 0) {
        w /= 10;
        digits--;
      }
    }
    const next = m * (POW10[digits] as number) + w;
    if (next <= MAX_SAFE) {
      m = next;
      e -= 7;
      if (digits < 7) e += 7 - digits;
      continue;
    }
    // Fold as many leading digits of this word as still fit, then truncate.
    let j = digits - 1;
    while (j > 0 && m * (POW10[j] as number) + Math.floor(w / (POW10[digits - j] as number)) > MAX_SAFE) j--;
    if (j > 0) {
      m = m * (POW10[j] as number) + Math.floor(w / (POW10[digits - j] as number));
      e -= j;
    }
    exact = false;
    break;
  }
  if (exact) {
    // multipleOf, not %: m is usually past int32 here, where V8's % is a slow x87 loop.
    while (multipleOf(m, 10)) {
      m /= 10;
      e++;
    }
  }
  unpacked.m = x.s < 0 ? -m : m;
  unpacked.e = e;
  return exact;
}

/**
 * Sign of a1*a2*10^ea - x*f*10^fe (a1, a2, f safe integers, f >= 0) for x already unpacked
 * (m * 10^e, truncated toward zero when not `exact`), or NaN when the truncation leaves the
 * answer open.
 */
export function cmpWithUnpacked(a1: number, a2: number, ea: number, xm: number, xe: number, exact: boolean, f: number, fe: number): number {
  if (exact) return cmpProducts(a1, a2, ea, xm, f, xe + fe);
  const m = xm;
  const e = xe + fe;
  // x lies strictly between lo and hi units.
  const lo = m < 0 ? m - 1 : m;
  const hi = m < 0 ? m : m + 1;
  if (cmpProducts(a1, a2, ea, lo, f, e) <= 0) return -1;
  if (cmpProducts(a1, a2, ea, hi, f, e) >= 0) return 1;
  return NaN;
}

/**
 * `x` as an integer count of 10^-scale units, or NaN when `x` has more decimals than `scale`
 * or the result is not a safe integer.
 */
export function toScaled(x: Decimal, scale: number): number {
  if (!unpack(x)) return NaN;
  if (unpacked.m === 0) return 0;
  const shift = unpacked.e + scale;
  if (shift < 0) {
    if (-shift > 22) return NaN;
    const p = POW10[-shift] as number;
    return unpacked.m % p === 0 ? unpacked.m / p : NaN;
  }
  if (shift > 22) return NaN;
  const v = unpacked.m * (POW10[shift] as number);
  return Math.abs(v) <= MAX_SAFE ? v : NaN;
}

/**
 * True when integer `a` is a multiple of integer `b` > 0. Below 2^52 one division decides it:
 * a non-multiple's quotient lies at least 1/b from an integer, more than the rounding of a/b can
 * move it, so floor(a/b) * b equals a only for multiples. (V8 evaluates `%` on values outside
 * int32 with a slow x87 loop; prices and quantities on fine grids are such values.)
 */
export function multipleOf(a: number, b: number): boolean {
  if (a > -(2 ** 52) && a < 2 ** 52) return Math.floor(a / b) * b === a;
  return a % b === 0;
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
  // A float estimate settles every comparison whose sides differ by more than rounding could
  // explain (relative error of these few operations is below 1e-15; the margin is 1e-9).
  if (ea >= -F_RANGE && ea <= F_RANGE && eb >= -F_RANGE && eb <= F_RANGE) {
    const fx = a1 * a2 * (POWF[ea + F_RANGE] as number);
    const fy = b1 * b2 * (POWF[eb + F_RANGE] as number);
    const tol = 1e-9 * (Math.abs(fx) + Math.abs(fy));
    if (fx - fy > tol) return 1;
    if (fy - fx > tol) return -1;
  }
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
  return cmpProductsBig(a1, a2, sa, b1, b2, sb);
}

/** BigInt tail of cmpProducts, kept apart so the number path stays small and optimisable. */
function cmpProductsBig(a1: number, a2: number, sa: number, b1: number, b2: number, sb: number): number {
  const x = BigInt(a1) * BigInt(a2) * 10n ** BigInt(sa);
  const y = BigInt(b1) * BigInt(b2) * 10n ** BigInt(sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Sign of (a + b + c - d) for a = am*10^ae etc. (mantissas safe integers). Exact: number
 * arithmetic on the common exponent when it stays safe, BigInt otherwise.
 */
export function cmpSum3(am: number, ae: number, bm: number, be: number, cm: number, ce: number, dm: number, de: number): number {
  if (Math.max(Math.abs(ae), Math.abs(be), Math.abs(ce), Math.abs(de)) <= F_RANGE) {
    const a = am * (POWF[ae + F_RANGE] as number);
    const b = bm * (POWF[be + F_RANGE] as number);
    const c = cm * (POWF[ce + F_RANGE] as number);
    const d = dm * (POWF[de + F_RANGE] as number);
    const r = a + b + c - d;
    const tol = 1e-9 * (Math.abs(a) + Math.abs(b) + Math.abs(c) + Math.abs(d));
    if (r > tol) return 1;
    if (r < -tol) return -1;
  }
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
  return cmpSum3Big(am, sa, bm, sb, cm, sc, dm, sd);
}

/** BigInt tail of cmpSum3 (each mantissa with its power-of-ten shift). */
function cmpSum3Big(am: number, sa: number, bm: number, sb: number, cm: number, sc: number, dm: number, sd: number): number {
  const r = BigInt(am) * 10n ** BigInt(sa) + BigInt(bm) * 10n ** BigInt(sb) + BigInt(cm) * 10n ** BigInt(sc) - BigInt(dm) * 10n ** BigInt(sd);
  return r < 0n ? -1 : r > 0n ? 1 : 0;
}

/**
 * floor(m1 * m2 * 10^(e1 + e2 + scale)) for safe integers m1, m2: a bound on a grid of 10^-scale
 * units. Values of magnitude 2^52 or more come back as +-Infinity: every grid value and product
 * the checker compares with a bound is below 2^52 in magnitude, so the comparison stays exact.
 * NaN when numbers cannot give the exact floor (the caller then compares the long way).
 */
export function floorProduct(m1: number, e1: number, m2: number, e2: number, scale: number): number {
  let p = m1 * m2;
  if (p === 0) return 0;
  let s = e1 + e2 + scale;
  if (!(p < 2 ** 52 && p > -(2 ** 52))) {
    // Unpacked mantissas keep their trailing zeros (1.3 may read as 13000000e-7): drop them and retry.
    let a = m1;
    let b = m2;
    while (multipleOf(a, 10)) {
      a /= 10;
      s++;
    }
    while (multipleOf(b, 10)) {
      b /= 10;
      s++;
    }
    p = a * b;
  }
  const big = p > 0 ? Infinity : -Infinity;
  if (s >= 0) {
    if (s > 22) return big;
    // p * 10^s: exact while below 2^53 (a product of exact integers), and past 2^52 only the sign counts.
    const v = p * (POW10[s] as number);
    return v < 2 ** 52 && v > -(2 ** 52) ? v : big;
  }
  // Below 2^52 the float quotient floors exactly (see multipleOf).
  if (-s > 22 || !(p < 2 ** 52 && p > -(2 ** 52))) return NaN;
  return Math.floor(p / (POW10[-s] as number));
}

/** ceil(m1 * m2 * 10^(e1 + e2 + scale)); same contract as floorProduct. */
export function ceilProduct(m1: number, e1: number, m2: number, e2: number, scale: number): number {
  return -floorProduct(-m1, e1, m2, e2, scale);
}

/**
 * floor((a + b + c) * 10^scale) for a = am * 10^ae etc. (safe integer mantissas), or NaN when
 * the sum does not stay exact in numbers. Used for position room on the quantity grid.
 */
export function floorSum3(am: number, ae: number, bm: number, be: number, cm: number, ce: number, scale: number): number {
  // Common exponent: the finest term's, and never above the grid itself (so the sum is an integer count).
  let t0 = 0;
  if (am !== 0 && ae + scale < t0) t0 = ae + scale;
  if (bm !== 0 && be + scale < t0) t0 = be + scale;
  if (cm !== 0 && ce + scale < t0) t0 = ce + scale;
  if (-t0 > 22) return NaN;
  const sa = am === 0 ? 0 : ae + scale - t0;
  const sb = bm === 0 ? 0 : be + scale - t0;
  const sc = cm === 0 ? 0 : ce + scale - t0;
  if (sa > 22 || sb > 22 || sc > 22) return NaN;
  const x = am * (POW10[sa] as number);
  const y = bm * (POW10[sb] as number);
  const z = cm * (POW10[sc] as number);
  if (!(Math.abs(x) + Math.abs(y) + Math.abs(z) < 2 ** 52)) return NaN;
  return Math.floor((x + y + z) / (POW10[-t0] as number));
}
