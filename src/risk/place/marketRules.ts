/**
 * The rules that need exact values, in the reference's order: ICEBERG_PARTS, NOTIONAL (price x
 * quantity, or a market order's quoteOrderQty, average-price or stop value), the PRICE_RANGE
 * execution rule around the reference price, and the open order counts (../counts.ts).
 */
import type { Decimal } from '../../core/decimal.js';
import type { PlaceIntent } from '../../bus/intents.js';
import * as m from '../messages.js';
import { boundFallbacks } from '../boundFallbacks.js';
import { checkCounts } from '../counts.js';
import { BAIL as NO_VERDICT } from '../grid.js';
import { mayTake } from '../mayTake.js';
import { T_STOP } from '../rules.js';
import { cmpProducts, cmpWithUnpacked, unpack, unpacked } from '../scaled.js';
import type { ScaledSymbol, SymbolRules } from '../rules.js';
import type { RiskContext } from '../types.js';
import type { PlaceWork, StepResult } from './placeWork.js';

// Imported bindings read once into module constants (see checkPlace.ts).
const U = unpacked;
const unpackX = unpack;
const cmpP = cmpProducts;
const cmpU = cmpWithUnpacked;
const BAIL = NO_VERDICT;
const BF = boundFallbacks;
const countsX = checkCounts;
const STOP = T_STOP;
const mayTakeX = mayTake;

/** BAIL unless every value sits exactly on its grid, then the rules above. */
export function checkMarketRules(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext, w: PlaceWork): StepResult {
  const { buy, traits, priced, marketType, ps, qs, ns, slot, price, pLo, pHi, stop, sLo, sHi, qty, qLo, qHi, ice, iLo, iHi } = w;
  const f = sym.info.filters;
  const type = intent.orderType;
  if (pLo !== pHi || sLo !== sHi || qLo !== qHi || iLo !== iHi) return BAIL;
  const P = pLo;
  const S = sLo;
  const Q = qLo;

  if (ice !== undefined && qty !== undefined && f.icebergPartsLimit !== undefined && cmpP(Q, 1, 0, iLo, f.icebergPartsLimit, 0) > 0) return m.tooManyParts(qty, ice, f.icebergPartsLimit);

  if (f.notional) {
    const n = f.notional;
    const mn = sc.minNotional;
    const mx = sc.maxNotional;
    // Sign of (bound - notional) for the minimum and the maximum; 0 each when the notional is unknown.
    let belowMin = 0;
    let aboveMax = 0;
    if (priced && price !== undefined && qty !== undefined) {
      const pq = P * Q;
      const lo = sc.minNotionalGrid;
      const hi = sc.maxNotionalGrid;
      if (pq < 2 ** 52 && lo === lo && hi === hi) {
        // An exact product against the bounds on the notional grid.
        belowMin = pq < lo ? 1 : 0;
        aboveMax = pq > hi ? -1 : 0;
      } else {
        BF.notional++;
        if (mn) belowMin = cmpP(mn.m, 1, mn.e, P, Q, -ns);
        if (mx) aboveMax = cmpP(mx.m, 1, mx.e, P, Q, -ns);
      }
    } else if (marketType && n.applyToMarket) {
      if (intent.quoteOrderQty !== undefined) {
        if (!unpackX(intent.quoteOrderQty)) return BAIL;
        if (mn) belowMin = cmpP(mn.m, 1, mn.e, U.m, 1, U.e);
        if (mx) aboveMax = cmpP(mx.m, 1, mx.e, U.m, 1, U.e);
      } else if (qty !== undefined) {
        if (type === 'MARKET') {
          const avg = ctx.market.avgPrice(intent.symbol, n.avgPriceMins);
          if (avg !== undefined) {
            const ax = unpackX(avg);
            const am = U.m;
            const ae = U.e;
            if (mn) belowMin = cmpU(mn.m, 1, mn.e, am, ae, ax, Q, -qs);
            if (mx) aboveMax = cmpU(mx.m, 1, mx.e, am, ae, ax, Q, -qs);
          }
        } else if (stop !== undefined) {
          if (mn) belowMin = cmpP(mn.m, 1, mn.e, S, Q, -ns);
          if (mx) aboveMax = cmpP(mx.m, 1, mx.e, S, Q, -ns);
        }
      }
    }
    if (belowMin !== belowMin) return BAIL;
    if (belowMin > 0) return m.notionalOut(qty, false, n.minNotional);
    if (aboveMax !== aboveMax) return BAIL;
    if (aboveMax < 0) return m.notionalOut(qty, true, n.maxNotional);
  }

  const range = sym.priceRange;
  if (range && priced && price !== undefined) {
    const ref = ctx.market.referencePrice(intent.symbol);
    if (ref !== undefined && ref !== null) {
      if (ref !== slot.ref) slot.updateRef(ref, sc.bidUp, sc.bidDown, sc.askUp, sc.askDown, ps);
      const hi = buy ? slot.bidHi : slot.askHi;
      const lo = buy ? slot.bidLo : slot.askLo;
      // Signs of price - ref * multiplier (0 without that multiplier; NaN: truncation leaves it open).
      let cu: number;
      let cd: number;
      if (hi === hi && lo === lo) {
        cu = P > hi ? 1 : 0;
        cd = P < lo ? -1 : 0;
      } else {
        BF.priceRange++;
        const up = buy ? sc.bidUp : sc.askUp;
        const down = buy ? sc.bidDown : sc.askDown;
        const rx = unpackX(ref);
        const rm = U.m;
        const re = U.e;
        cu = up ? cmpU(P, 1, -ps, rm, re, rx, up.m, up.e) : 0;
        cd = down ? cmpU(P, 1, -ps, rm, re, rx, down.m, down.e) : 0;
      }
      if (cu !== cu) return BAIL;
      // Only a taker execution is limited (mayTake.ts): checked only once the price is outside the band.
      if (cu > 0 && mayTakeX(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, true, 'reference price', ref, buy ? 'bidLimitMultUp' : 'askLimitMultUp', (buy ? range.bidLimitMultUp : range.askLimitMultUp) as Decimal);
      if (cd !== cd) return BAIL;
      if (cd < 0 && mayTakeX(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, false, 'reference price', ref, buy ? 'bidLimitMultDown' : 'askLimitMultDown', (buy ? range.bidLimitMultDown : range.askLimitMultDown) as Decimal);
    }
  }

  const counts = countsX(intent, sym, ctx, ice !== undefined, (traits & STOP) !== 0);
  if (counts) return counts;
  return undefined;
}
