/**
 * Places a decimal on a symbol's 10^-scale grid as safe integers (floor and ceil), and rounds it
 * onto a tick or step: the first move of the fast checker (checkIntent.ts) for every price and
 * quantity. Results go to the shared `G` so the hot path allocates nothing.
 */
import { Decimal } from '../core/decimal.js';
import { pow10, unpack, unpacked } from './scaled.js';

// Imported bindings read once into module constants (see checkIntent.ts).
const U = unpacked;
const unpackX = unpack;
const pow10X = pow10;

/** BAIL: the decimal path must decide (every fast-path helper answers it when numbers cannot). */
export const BAIL = null;

/**
 * Result of `grid` / `snap`: the value lies in [lo, hi] units of the grid (lo === hi when it is on
 * the grid); `moved` tells whether `snap` rounded it.
 */
export const G = { lo: 0, hi: 0, moved: false };

/** Places `x` on a 10^-scale grid (floor and ceil). False when it cannot be done exactly with safe integers. */
function grid(x: Decimal, scale: number): boolean {
  const d = x.d;
  let mant: number;
  let e: number;
  const n = d.length;
  if (n <= 2) {
    // One or two words (nearly every price and quantity), read in place as `unpack` reads them:
    // saves the call. A zero is one word 0.
    const k = Math.floor(x.e / 7);
    mant = n === 1 ? (d[0] as number) : (d[0] as number) * 1e7 + (d[1] as number);
    e = n === 1 ? 7 * k : 7 * (k - 1);
    if (x.s < 0) mant = -mant;
  } else {
    if (!unpackX(x)) return false;
    mant = U.m;
    e = U.e;
  }
  if (mant === 0) {
    G.lo = G.hi = 0;
    return true;
  }
  const shift = e + scale;
  if (shift >= 0) {
    if (shift > 22) return false;
    const v = mant * pow10X(shift);
    if (Math.abs(v) >= 2 ** 52) return false;
    G.lo = G.hi = v;
    return true;
  }
  // Below 2^52 the float quotient floors exactly (see multipleOf); past it the decimal path decides.
  if (-shift > 22 || mant >= 2 ** 52 || mant <= -(2 ** 52)) return false;
  const p = pow10X(-shift);
  const q = Math.floor(mant / p);
  G.lo = q;
  // Off the grid: floor and ceil differ by one unit.
  G.hi = q * p === mant ? q : q + 1;
  return true;
}

/** The Decimal of `v` units of a 10^-scale grid. */
export function fromScaled(v: number, scale: number): Decimal {
  return new Decimal(`${v}e-${scale}`);
}

/**
 * Floors (`up` false) or ceils a grid interval onto base + k*step (step > 0). A step of one grid
 * unit (the usual case: the grid is chosen from the step's decimals) needs no division.
 */
export function toStep(lo: number, hi: number, base: number, step: number, up: boolean): number {
  if (step === 1) return up ? hi : lo;
  return up ? base + Math.ceil((hi - base) / step) * step : base + Math.floor((lo - base) / step) * step;
}

/** `grid`, then (step > 0) rounds onto base + k*step, down or `up`. False when `grid` fails. */
export function snap(x: Decimal, scale: number, step: number, base: number, up: boolean): boolean {
  if (!grid(x, scale)) return false;
  G.moved = false;
  if (step > 0) {
    const t = toStep(G.lo, G.hi, base, step, up);
    G.moved = t !== G.lo || G.lo !== G.hi;
    G.lo = G.hi = t;
  }
  return true;
}
