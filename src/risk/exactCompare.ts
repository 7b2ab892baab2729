/**
 * Exact comparisons the fast checker (checkIntent.ts) falls back to when a grid bound of
 * boundsCache.ts cannot be had in safe integers, and the order value for messages.
 */
import type { Decimal } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';
import { BAIL } from './grid.js';
import { cmpProducts, cmpSum3, unpack, unpacked } from './scaled.js';

// Imported bindings read once into module constants (see checkIntent.ts).
const U = unpacked;
const unpackX = unpack;
const cmpP = cmpProducts;
const cmpS = cmpSum3;
const BAIL_X = BAIL;

/**
 * Sign of a - b. Through the digits when both unpack exactly (decimal.js's own cmp copies its
 * argument into a new Decimal on every call), otherwise decimal.js decides.
 */
export function decCmp(a: Decimal, b: Decimal): number {
  if (unpackX(a)) {
    const am = U.m;
    const ae = U.e;
    if (unpackX(b)) return cmpP(am, 1, ae, U.m, 1, U.e);
  }
  return a.cmp(b);
}

/** The order value as a Decimal, for messages only (the checks compare scaled integers). */
export function valueDecimal(marketValue: Decimal | undefined, intent: PlaceIntent, unitPrice: Decimal | undefined, qty: Decimal | undefined): Decimal {
  return marketValue ?? intent.quoteOrderQty ?? (unitPrice as Decimal).mul(qty as Decimal);
}

/**
 * Whether q (grid interval [qLo, qHi] of `qs` decimals, or its own digits when off the grid)
 * reduces the position: BUY q + open + pos <= 0, SELL q + open - pos <= 0. BAIL when a value
 * does not unpack exactly.
 */
export function reducesExactly(qty: Decimal, qLo: number, qHi: number, qs: number, buy: boolean, pos: Decimal, open: Decimal): boolean | null {
  let qM = qLo;
  let qE = -qs;
  if (qLo !== qHi) {
    if (!unpackX(qty)) return BAIL_X;
    qM = U.m;
    qE = U.e;
  }
  if (!unpackX(pos)) return BAIL_X;
  const pM = buy ? U.m : -U.m;
  const pE = U.e;
  if (!unpackX(open)) return BAIL_X;
  return cmpS(qM, qE, U.m, U.e, pM, pE, 0, 0) <= 0;
}

/** Whether Q (grid units) takes the position past `max`: BUY q + open + pos > max, SELL q + open - pos > max. */
export function exceedsExactly(Q: number, qs: number, buy: boolean, pos: Decimal, open: Decimal, max: Decimal): boolean | null {
  if (!unpackX(pos)) return BAIL_X;
  const pM = buy ? U.m : -U.m;
  const pE = U.e;
  if (!unpackX(open)) return BAIL_X;
  const oM = U.m;
  const oE = U.e;
  if (!unpackX(max)) return BAIL_X;
  return cmpS(Q, -qs, oM, oE, pM, pE, U.m, U.e) > 0;
}
