/**
 * The rules on the values as placed on their grids, in the reference's order: the position
 * (whether the order only reduces it: the REDUCING trading state, later the daily loss limit),
 * PRICE_FILTER, PERCENT_PRICE, LOT_SIZE and MARKET_LOT_SIZE. A value inside its grid bounds passes
 * on integers; gridFilters.ts decides the rest.
 */
import type { Decimal } from '../../core/decimal.js';
import type { PlaceIntent } from '../../bus/intents.js';
import * as m from '../messages.js';
import { boundFallbacks } from '../boundFallbacks.js';
import { reducesExactly } from '../exactCompare.js';
import { BAIL as NO_VERDICT } from '../grid.js';
import { lotCheck, lotOk, priceCheck, priceOk } from '../gridFilters.js';
import { cmpWithUnpacked, unpack, unpacked } from '../scaled.js';
import { shapeState } from '../shape.js';
import type { ScaledSymbol, SymbolRules } from '../rules.js';
import type { RiskContext } from '../types.js';
import type { PlaceWork, StepResult } from './placeWork.js';

// Imported bindings read once into module constants (see checkPlace.ts).
const U = unpacked;
const unpackX = unpack;
const cmpU = cmpWithUnpacked;
const BAIL = NO_VERDICT;
const BF = boundFallbacks;
const SHAPE_STATE = shapeState;
const priceOkX = priceOk;
const priceCheckX = priceCheck;
const lotOkX = lotOk;
const lotCheckX = lotCheck;
const reducesX = reducesExactly;

/** Reads the position (into `w`), then the rules on the snapped values; BAIL when numbers cannot decide. */
export function checkGridRules(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext, w: PlaceWork): StepResult {
  const { buy, marketType, ps, qs, ns, slot, price, pLo, pHi, stop, sLo, sHi, qty, qLo, qHi, ice, iLo, iHi } = w;
  const f = sym.info.filters;
  const acct = ctx.account;
  const lim = ctx.limits;
  if (lim !== slot.limits) slot.updateLimits(lim, sym.base, ns);
  const maxPos = slot.maxPos;
  const posDec = acct.position(sym.base);
  // The sign from the leading word (decimal.js: a zero's is 0), without unpacking.
  const posSign = (posDec.d[0] as number) === 0 ? 0 : posDec.s;
  const candidate = qty !== undefined && (buy ? posSign < 0 : posSign > 0);
  // Unfilled quantity of the strategy's open orders on this side, read once when a rule needs it.
  let openDec: Decimal | undefined;
  const side = buy ? slot.buy : slot.sell;
  if (candidate || (qty !== undefined && maxPos !== undefined)) {
    openDec = acct.openQty(intent.symbol, buy ? 'BUY' : 'SELL');
    side.update(buy, posDec, openDec, maxPos, qs);
  }
  let reducing = false;
  if (candidate) {
    const t = side.reduce;
    if (qLo === qHi && t === t) reducing = qLo <= t;
    else {
      // Off-grid quantity (reject mode) or a bound numbers cannot give: the exact comparison.
      BF.reduce++;
      const r = reducesX(qty as Decimal, qLo, qHi, qs, buy, posDec, openDec as Decimal);
      if (r === BAIL) return BAIL;
      reducing = r;
    }
  }
  w.maxPos = maxPos;
  w.posDec = posDec;
  w.openDec = openDec;
  w.side = side;
  w.reducing = reducing;
  if (SHAPE_STATE.value === 'REDUCING' && !reducing) return m.notReducing(intent.side, qty, sym.base, posDec);

  if (price !== undefined && !priceOkX(pLo, pHi, sc)) {
    const r = priceCheckX('price', price, pLo, pHi, sym, sc);
    if (r !== undefined) return r;
  }
  if (stop !== undefined && !priceOkX(sLo, sHi, sc)) {
    const r = priceCheckX('stopPrice', stop, sLo, sHi, sym, sc);
    if (r !== undefined) return r;
  }

  if (price !== undefined && f.percentPrice && sc.percentUp && sc.percentDown) {
    const pp = f.percentPrice;
    const avg = ctx.market.avgPrice(intent.symbol, pp.avgPriceMins);
    if (avg !== undefined) {
      if (avg !== slot.avg) slot.updateAvg(avg, sc.percentUp, sc.percentDown, ps);
      const hi = slot.avgHi;
      const lo = slot.avgLo;
      // Signs of price - avg * multiplier (NaN: truncation leaves it open).
      let up: number;
      let down: number;
      if (hi === hi && lo === lo) {
        // The price is on its grid here (priceCheck refused or deferred any other).
        up = pLo > hi ? 1 : 0;
        down = pLo < lo ? -1 : 0;
      } else {
        BF.percentPrice++;
        // The average may carry 40 digits (it is a division): compared through its truncation.
        const ax = unpackX(avg);
        const am = U.m;
        const ae = U.e;
        up = cmpU(pLo, 1, -ps, am, ae, ax, sc.percentUp.m, sc.percentUp.e);
        down = cmpU(pLo, 1, -ps, am, ae, ax, sc.percentDown.m, sc.percentDown.e);
      }
      if (up !== up) return BAIL;
      if (up > 0) return m.outsideBand('PERCENT_PRICE', price, true, 'average price', avg, 'multiplierUp', pp.multiplierUp);
      if (down !== down) return BAIL;
      if (down < 0) return m.outsideBand('PERCENT_PRICE', price, false, 'average price', avg, 'multiplierDown', pp.multiplierDown);
    }
  }

  if (sc.lot) {
    if (qty !== undefined && !lotOkX(qLo, qHi, sc.lot)) {
      const r = lotCheckX('quantity', qty, qLo, qHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
    if (ice !== undefined && !lotOkX(iLo, iHi, sc.lot)) {
      const r = lotCheckX('icebergQty', ice, iLo, iHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
  }
  if (marketType && qty !== undefined && sc.marketLot && !lotOkX(qLo, qHi, sc.marketLot)) {
    const r = lotCheckX('quantity', qty, qLo, qHi, sc.marketLot, sym, 'MARKET_LOT_SIZE');
    if (r !== undefined) return r;
  }
  return undefined;
}
