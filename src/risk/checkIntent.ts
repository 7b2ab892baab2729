/**
 * The fast risk checker. Same contract, verdicts and messages as the decimal reference
 * (./reference/checkIntentReference.ts), computed on scaled integers: prices on the symbol's tick
 * grid, quantities on its step grid, products compared exactly (BigInt only past 2^52). Bounds
 * that depend only on context values (bands around the average and reference price, balances,
 * position room, user limits) are integers on those grids, kept per context and symbol in
 * ./boundsCache.ts, so an accepted order mostly compares integers. It allocates nothing on an
 * accepted, unadjusted intent (past the first check of a context on a symbol). Values it cannot
 * place on a grid (more decimals than any filter allows with the filter disabled, digits beyond a
 * safe integer) take the decimal path; `riskPathStats` counts how often.
 */
import type { Decimal } from '../core/decimal.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { checkCounts } from './counts.js';
import { mayTake } from './mayTake.js';
import * as m from './messages.js';
import { quoteBuyMostQty } from './quoteBuyQty.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { decCmp, exceedsExactly, reducesExactly, valueDecimal } from './exactCompare.js';
import { BAIL as NO_VERDICT, G as GRID, fromScaled, snap, toStep } from './grid.js';
import { lotCheck, lotOk, priceCheck, priceOk } from './gridFilters.js';
import { T_MARKET, T_PRICED, T_STOP, type ScaledSymbol, type SymbolRules } from './rules.js';
import { cmpProducts, cmpWithUnpacked, unpack, unpacked } from './scaled.js';
import { checkShape, shapeState } from './shape.js';
import { ACCEPT, type RiskContext, type RiskDecision, type RiskReject } from './types.js';

// Imported bindings are read once into module constants: transpilers (tsx, vitest) turn each
// use of an imported name into a getter call, which costs more than the checks themselves here.
const U = unpacked;
const unpackX = unpack;
const cmpP = cmpProducts;
const cmpU = cmpWithUnpacked;
const shapeX = checkShape;
const SHAPE_STATE = shapeState;
const countsX = checkCounts;
const ACCEPT_X = ACCEPT;
const quoteBuyMost = quoteBuyMostQty;
const PRICED = T_PRICED;
const MARKET = T_MARKET;
const STOP = T_STOP;
const G = GRID;
const BAIL = NO_VERDICT;
const snapX = snap;
const toStepX = toStep;
const fromScaledX = fromScaled;
const priceOkX = priceOk;
const priceCheckX = priceCheck;
const lotOkX = lotOk;
const lotCheckX = lotCheck;
const decCmpX = decCmp;
const valueDecimalX = valueDecimal;
const reducesX = reducesExactly;
const exceedsX = exceedsExactly;

/** How many place checks took the scaled path and how many fell back to decimals (for tests and the bench). */
export const riskPathStats = { fast: 0, fallback: 0 };

/**
 * How often a rule compared exactly (scaled.ts) because its grid bound (boundsCache.ts) was NaN,
 * per rule: the differential test checks that both sides of each bound meet the reference.
 */
export const boundFallbacks = { reduce: 0, percentPrice: 0, notional: 0, priceRange: 0, maxNotional: 0, maxPosition: 0, balance: 0 };
const BF = boundFallbacks;

/** Checks one intent: accept, accept with rounding (mode 'adjust'), or reject with a reason. Pure. */
export function checkIntent(intent: Intent, ctx: RiskContext): RiskDecision {
  if (intent.kind !== 'place') return ACCEPT_X;
  const sym = ctx.rules.symbols.get(intent.symbol);
  if (sym === undefined) return shapeX(intent, sym, ctx) as RiskReject;
  if (sym.scaled === undefined) {
    riskPathStats.fallback++;
    return checkIntentReference(intent, ctx);
  }
  const shape = shapeX(intent, sym, ctx);
  if (shape) return shape;
  const r = checkPlace(intent, sym, sym.scaled, ctx);
  if (r !== BAIL) {
    riskPathStats.fast++;
    return r;
  }
  riskPathStats.fallback++;
  return checkIntentReference(intent, ctx);
}

/** The fast path of a place intent whose shape passed; BAIL when the decimal path must decide. */
function checkPlace(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext): RiskDecision | null {
  const f = sym.info.filters;
  const type = intent.orderType;
  const buy = intent.side === 'BUY';
  const traits = SHAPE_STATE.traits;
  const priced = (traits & PRICED) !== 0;
  const marketType = (traits & MARKET) !== 0;
  const adjust = ctx.mode === 'adjust';
  const { ps, qs } = sc;
  const ns = ps + qs;
  const slot = sc.slots.of(ctx);
  let fields: string[] | undefined;

  // Each value: its Decimal (for messages and the adjusted intent) and its grid interval [lo, hi].
  // In 'adjust' mode `snap` also rounds it onto its tick or step (toward the safe side).
  let price = intent.price;
  let pLo = 0;
  let pHi = 0;
  if (price !== undefined) {
    if (!snapX(price, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return BAIL;
    pLo = G.lo;
    pHi = G.hi;
    if (G.moved) {
      price = fromScaledX(pLo, ps);
      (fields ??= []).push('price');
    }
  }
  let stop = intent.stopPrice;
  let sLo = 0;
  let sHi = 0;
  if (stop !== undefined) {
    if (!snapX(stop, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return BAIL;
    sLo = G.lo;
    sHi = G.hi;
    if (G.moved) {
      stop = fromScaledX(sLo, ps);
      (fields ??= []).push('stopPrice');
    }
  }
  let qty = intent.quantity;
  let qLo = 0;
  let qHi = 0;
  if (qty !== undefined) {
    if (!snapX(qty, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return BAIL;
    let moved = G.moved;
    if (adjust && marketType && sc.marketLot && sc.marketLot.step > 0) {
      const t = toStepX(G.lo, G.hi, sc.marketLot.min, sc.marketLot.step, false);
      moved ||= t !== G.lo || G.lo !== G.hi;
      G.lo = G.hi = t;
    }
    qLo = G.lo;
    qHi = G.hi;
    if (moved) {
      qty = fromScaledX(qLo, qs);
      (fields ??= []).push('quantity');
    }
  }
  let ice = intent.icebergQty;
  let iLo = 0;
  let iHi = 0;
  if (ice !== undefined) {
    if (!snapX(ice, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return BAIL;
    iLo = G.lo;
    iHi = G.hi;
    if (G.moved) {
      ice = fromScaledX(iLo, qs);
      (fields ??= []).push('icebergQty');
    }
  }

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
  // Every check from here on needs exact values: off-grid values that no filter refused are rare.
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
      if (cu > 0 && mayTake(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, true, 'reference price', ref, buy ? 'bidLimitMultUp' : 'askLimitMultUp', (buy ? range.bidLimitMultUp : range.askLimitMultUp) as Decimal);
      if (cd !== cd) return BAIL;
      if (cd < 0 && mayTake(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, false, 'reference price', ref, buy ? 'bidLimitMultDown' : 'askLimitMultDown', (buy ? range.bidLimitMultDown : range.askLimitMultDown) as Decimal);
    }
  }

  const counts = countsX(intent, sym, ctx, ice !== undefined, (traits & STOP) !== 0);
  if (counts) return counts;

  // Order value v1 * v2 * 10^ve in the quote asset; its Decimal is built only for a message.
  let v1: number;
  let v2 = 1;
  let ve: number;
  let marketValue: Decimal | undefined;
  if (priced && price !== undefined && qty !== undefined) {
    v1 = P;
    v2 = Q;
    ve = -ns;
  } else if (intent.quoteOrderQty !== undefined) {
    if (!unpackX(intent.quoteOrderQty)) return BAIL;
    v1 = U.m;
    ve = U.e;
  } else if ((traits & STOP) !== 0 && stop !== undefined && qty !== undefined) {
    v1 = S;
    v2 = Q;
    ve = -ns;
  } else {
    const q = qty as Decimal;
    const cost = ctx.market.book(intent.symbol)?.costToFill(intent.side, q);
    if (cost === undefined || decCmpX(cost.filledQty, q) < 0) return m.noLiquidity(q, intent.side);
    // A book walk sums products of arbitrary decimals: compared as a Decimal (no allocation).
    marketValue = cost.quoteQty;
    v1 = 0;
    ve = 0;
  }

  // The order value on the notional grid when it is exact there (NaN otherwise): compared with
  // the bounds of the slot instead of through products.
  const vg = ve === -ns ? v1 * v2 : NaN;
  const onGrid = vg < 2 ** 52 && vg > -(2 ** 52);

  const maxNotional = lim.maxOrderNotional;
  if (maxNotional !== undefined) {
    let over: boolean;
    const t = slot.notionalMax;
    if (marketValue !== undefined) over = decCmpX(marketValue, maxNotional) > 0;
    else if (onGrid && t === t) over = vg > t;
    else {
      BF.maxNotional++;
      if (!unpackX(maxNotional)) return BAIL;
      over = cmpP(v1, v2, ve, U.m, 1, U.e) > 0;
    }
    if (over) return m.overNotionalLimit(valueDecimalX(marketValue, intent, priced ? price : stop, qty), sym.quote, maxNotional);
  }

  if (maxPos !== undefined) {
    if (qty === undefined) {
      // A quoteOrderQty buy: bounded by the best ask plus the step spec rule 4 may add (a rare order; plain decimals suffice).
      const qoq = intent.quoteOrderQty as Decimal;
      const ask = ctx.market.book(intent.symbol)?.bestAsk();
      if (ask === undefined) return m.noAsk(qoq);
      const room = maxPos.minus(posDec).minus(acct.openQty(intent.symbol, 'BUY'));
      if (quoteBuyMost(qoq, ask.price, sym).gt(room)) return m.overPosition('quoteOrderQty', qoq, sym.base, posDec, true, maxPos);
    } else {
      // `side` was updated for this position, open quantity and maximum above.
      const room = side.room;
      let over: boolean;
      if (room === room) over = Q > room;
      else {
        BF.maxPosition++;
        const r = exceedsX(Q, qs, buy, posDec, openDec as Decimal, maxPos);
        if (r === BAIL) return BAIL;
        over = r;
      }
      if (over) return m.overPosition('quantity', qty, sym.base, posDec, buy, maxPos);
    }
  }

  const lossLimit = lim.dailyLossLimit;
  if (lossLimit !== undefined && !reducing) {
    const pnl = acct.dailyPnl();
    if (pnl !== slot.pnl || lossLimit !== slot.lossLimit) slot.updateLoss(pnl, lossLimit);
    const c = slot.lossCmp;
    if (c !== c) return BAIL;
    if (c >= 0) return m.lossLimitHit(pnl, lossLimit);
  }

  // The balance: an integer value on the grid against floor(free x 10^scale) (v > f exactly when
  // v > floor(f) for an integer v), from the account's integers when it keeps them (freeUnits: no
  // Decimal), else from the free balance's Decimal through the slot; the Decimal is read for a
  // message only on a refusal.
  if (buy) {
    let free: Decimal | undefined;
    let c: number;
    const u = onGrid && marketValue === undefined ? (acct.freeUnits?.(sym.quote, ns) ?? NaN) : NaN;
    if (u === u) c = vg > u ? 1 : 0;
    else {
      free = acct.free(sym.quote);
      if (marketValue !== undefined) c = decCmpX(marketValue, free);
      else {
        if (free !== slot.freeQuote) slot.updateFreeQuote(free, ns);
        const t = slot.quoteMax;
        if (onGrid && t === t) c = vg > t ? 1 : 0;
        else {
          BF.balance++;
          const fx = unpackX(free);
          c = cmpU(v1, v2, ve, U.m, U.e, fx, 1, 0);
        }
      }
    }
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(true, valueDecimalX(marketValue, intent, priced ? price : stop, qty), sym.quote, free ?? acct.free(sym.quote));
  } else if (qty !== undefined) {
    let free: Decimal | undefined;
    let c: number;
    const u = acct.freeUnits?.(sym.base, qs) ?? NaN;
    if (u === u) c = Q > u ? 1 : 0;
    else {
      free = acct.free(sym.base);
      if (free !== slot.freeBase) slot.updateFreeBase(free, qs);
      const t = slot.baseMax;
      if (t === t) c = Q > t ? 1 : 0;
      else {
        BF.balance++;
        const fx = unpackX(free);
        c = cmpU(Q, 1, -qs, U.m, U.e, fx, 1, 0);
      }
    }
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(false, qty, sym.base, free ?? acct.free(sym.base));
  }

  if (fields === undefined) return ACCEPT_X;
  const adjusted: PlaceIntent = { ...intent, price, stopPrice: stop, quantity: qty, icebergQty: ice };
  return { kind: 'adjust', intent: adjusted, fields };
}
