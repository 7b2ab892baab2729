/**
 * PRICE_FILTER and LOT_SIZE / MARKET_LOT_SIZE on grid intervals (grid.ts): a cheap sufficient
 * test that inlines (`priceOk`, `lotOk`) and the full check that names the broken rule.
 */
import type { Decimal } from '../core/decimal.js';
import { BAIL } from './grid.js';
import * as m from './messages.js';
import type { ScaledLot, ScaledSymbol, SymbolRules } from './rules.js';
import { multipleOf } from './scaled.js';
import type { RiskReject } from './types.js';

// Imported bindings read once into module constants (see checkIntent.ts).
const multipleX = multipleOf;
const BAIL_X = BAIL;

/** PRICE_FILTER on a grid interval; BAIL when the value is off-grid and no tick rule decides. */
export function priceCheck(field: string, v: Decimal, lo: number, hi: number, sym: SymbolRules, sc: ScaledSymbol): RiskReject | undefined | null {
  const pf = sym.info.filters.priceFilter;
  if (!pf) return lo === hi ? undefined : BAIL_X;
  // v < min <=> floor(v) < min and v > max <=> ceil(v) > max, because min and max lie on the grid.
  if (sc.minPrice > 0 && lo < sc.minPrice) return m.belowMin('PRICE_FILTER', field, v, 'minPrice', pf.minPrice);
  if (sc.maxPrice > 0 && hi > sc.maxPrice) return m.aboveMax('PRICE_FILTER', field, v, 'maxPrice', pf.maxPrice);
  if (sc.tick > 0) {
    if (lo !== hi || !multipleX(lo - sc.minPrice, sc.tick)) return m.offStep('PRICE_FILTER', field, v, 'minPrice', pf.minPrice, 'tickSize', pf.tickSize);
  } else if (lo !== hi) return BAIL_X;
  return undefined;
}

/**
 * True when a price on the grid passes PRICE_FILTER: a sufficient condition for `priceCheck` to
 * pass, small enough to inline; anything else asks priceCheck for the verdict.
 */
export function priceOk(lo: number, hi: number, sc: ScaledSymbol): boolean {
  // Grid values are integers, so a tick of one unit (the usual case) admits every one of them.
  return lo === hi && lo >= sc.minPrice && lo <= sc.priceCap && (sc.tick === 0 || sc.tick === 1 || multipleX(lo - sc.minPrice, sc.tick));
}

/** True when a quantity on the grid passes the lot filter (a sufficient condition for `lotCheck`, as priceOk). */
export function lotOk(lo: number, hi: number, lot: ScaledLot): boolean {
  return lo === hi && lo >= lot.min && lo <= lot.cap && (lot.step === 0 || lot.step === 1 || multipleX(lo - lot.min, lot.step));
}

/** LOT_SIZE / MARKET_LOT_SIZE on a grid interval. */
export function lotCheck(field: string, v: Decimal, lo: number, hi: number, lot: ScaledLot, sym: SymbolRules, name: 'LOT_SIZE' | 'MARKET_LOT_SIZE'): RiskReject | undefined | null {
  const f = name === 'LOT_SIZE' ? sym.info.filters.lotSize : sym.info.filters.marketLotSize;
  if (!f) return undefined;
  if (lot.min > 0 && lo < lot.min) return m.belowMin(name, field, v, 'minQty', f.minQty);
  if (lot.max > 0 && hi > lot.max) return m.aboveMax(name, field, v, 'maxQty', f.maxQty);
  if (lot.step > 0) {
    if (lo !== hi || !multipleX(lo - lot.min, lot.step)) return m.offStep(name, field, v, 'minQty', f.minQty, 'stepSize', f.stepSize);
  } else if (lo !== hi) return BAIL_X;
  return undefined;
}
