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
import { Decimal } from '../core/decimal.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { checkCounts } from './counts.js';
import { mayTake } from './mayTake.js';
import * as m from './messages.js';
import { quoteBuyMostQty } from './quoteBuyQty.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { T_MARKET, T_PRICED, T_STOP, type ScaledLot, type ScaledSymbol, type SymbolRules } from './rules.js';
import { cmpProducts, cmpSum3, cmpWithUnpacked, multipleOf, pow10, unpack, unpacked } from './scaled.js';
import { checkShape, shapeState } from './shape.js';
import { ACCEPT, type RiskContext, type RiskDecision, type RiskReject } from './types.js';

// Imported bindings are read once into module constants: transpilers (tsx, vitest) turn each
// use of an imported name into a getter call, which costs more than the checks themselves here.
const U = unpacked;
const unpackX = unpack;
const cmpP = cmpProducts;
const cmpS = cmpSum3;
const cmpU = cmpWithUnpacked;
const pow10X = pow10;
const multipleX = multipleOf;
const shapeX = checkShape;
const SHAPE_STATE = shapeState;
const countsX = checkCounts;
const ACCEPT_X = ACCEPT;
const quoteBuyMost = quoteBuyMostQty;
const PRICED = T_PRICED;
const MARKET = T_MARKET;
const STOP = T_STOP;

/** How many place checks took the scaled path and how many fell back to decimals (for tests and the bench). */
export const riskPathStats = { fast: 0, fallback: 0 };

/**
 * How often a rule compared exactly (scaled.ts) because its grid bound (boundsCache.ts) was NaN,
 * per rule: the differential test checks that both sides of each bound meet the reference.
 */
export const boundFallbacks = { reduce: 0, percentPrice: 0, notional: 0, priceRange: 0, maxNotional: 0, maxPosition: 0, balance: 0 };
const BF = boundFallbacks;

/**
 * Result of `grid` / `snap`: the value lies in [lo, hi] units of the grid (lo === hi when it is on
 * the grid); `moved` tells whether `snap` rounded it.
 */
const G = { lo: 0, hi: 0, moved: false };

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

function fromScaled(v: number, scale: number): Decimal {
  return new Decimal(`${v}e-${scale}`);
}

/**
 * Floors (`up` false) or ceils a grid interval onto base + k*step (step > 0). A step of one grid
 * unit (the usual case: the grid is chosen from the step's decimals) needs no division.
 */
function toStep(lo: number, hi: number, base: number, step: number, up: boolean): number {
  if (step === 1) return up ? hi : lo;
  return up ? base + Math.ceil((hi - base) / step) * step : base + Math.floor((lo - base) / step) * step;
}

/** `grid`, then (step > 0) rounds onto base + k*step, down or `up`. False when `grid` fails. */
function snap(x: Decimal, scale: number, step: number, base: number, up: boolean): boolean {
  if (!grid(x, scale)) return false;
  G.moved = false;
  if (step > 0) {
    const t = toStep(G.lo, G.hi, base, step, up);
    G.moved = t !== G.lo || G.lo !== G.hi;
    G.lo = G.hi = t;
  }
  return true;
}

/** BAIL: the decimal path must decide. */
const BAIL = null;

/** PRICE_FILTER on a grid interval; BAIL when the value is off-grid and no tick rule decides. */
function priceCheck(field: string, v: Decimal, lo: number, hi: number, sym: SymbolRules, sc: ScaledSymbol): RiskReject | undefined | null {
  const pf = sym.info.filters.priceFilter;
  if (!pf) return lo === hi ? undefined : BAIL;
  // v < min <=> floor(v) < min and v > max <=> ceil(v) > max, because min and max lie on the grid.
  if (sc.minPrice > 0 && lo < sc.minPrice) return m.belowMin('PRICE_FILTER', field, v, 'minPrice', pf.minPrice);
  if (sc.maxPrice > 0 && hi > sc.maxPrice) return m.aboveMax('PRICE_FILTER', field, v, 'maxPrice', pf.maxPrice);
  if (sc.tick > 0) {
    if (lo !== hi || !multipleX(lo - sc.minPrice, sc.tick)) return m.offStep('PRICE_FILTER', field, v, 'minPrice', pf.minPrice, 'tickSize', pf.tickSize);
  } else if (lo !== hi) return BAIL;
  return undefined;
}

/**
 * True when a price on the grid passes PRICE_FILTER: a sufficient condition for `priceCheck` to
 * pass, small enough to inline; anything else asks priceCheck for the verdict.
 */
function priceOk(lo: number, hi: number, sc: ScaledSymbol): boolean {
  // Grid values are integers, so a tick of one unit (the usual case) admits every one of them.
  return lo === hi && lo >= sc.minPrice && lo <= sc.priceCap && (sc.tick === 0 || sc.tick === 1 || multipleX(lo - sc.minPrice, sc.tick));
}

/** True when a quantity on the grid passes the lot filter (a sufficient condition for `lotCheck`, as priceOk). */
function lotOk(lo: number, hi: number, lot: ScaledLot): boolean {
  return lo === hi && lo >= lot.min && lo <= lot.cap && (lot.step === 0 || lot.step === 1 || multipleX(lo - lot.min, lot.step));
}

/** LOT_SIZE / MARKET_LOT_SIZE on a grid interval. */
function lotCheck(field: string, v: Decimal, lo: number, hi: number, lot: ScaledLot, sym: SymbolRules, name: 'LOT_SIZE' | 'MARKET_LOT_SIZE'): RiskReject | undefined | null {
  const f = name === 'LOT_SIZE' ? sym.info.filters.lotSize : sym.info.filters.marketLotSize;
  if (!f) return undefined;
  if (lot.min > 0 && lo < lot.min) return m.belowMin(name, field, v, 'minQty', f.minQty);
  if (lot.max > 0 && hi > lot.max) return m.aboveMax(name, field, v, 'maxQty', f.maxQty);
  if (lot.step > 0) {
    if (lo !== hi || !multipleX(lo - lot.min, lot.step)) return m.offStep(name, field, v, 'minQty', f.minQty, 'stepSize', f.stepSize);
  } else if (lo !== hi) return BAIL;
  return undefined;
}

/**
 * Sign of a - b. Through the digits when both unpack exactly (decimal.js's own cmp copies its
 * argument into a new Decimal on every call), otherwise decimal.js decides.
 */
function decCmp(a: Decimal, b: Decimal): number {
  if (unpackX(a)) {
    const am = U.m;
    const ae = U.e;
    if (unpackX(b)) return cmpP(am, 1, ae, U.m, 1, U.e);
  }
  return a.cmp(b);
}

/** The order value as a Decimal, for messages only (the checks compare scaled integers). */
function valueDecimal(marketValue: Decimal | undefined, intent: PlaceIntent, unitPrice: Decimal | undefined, qty: Decimal | undefined): Decimal {
  return marketValue ?? intent.quoteOrderQty ?? (unitPrice as Decimal).mul(qty as Decimal);
}

/**
 * Whether q (grid interval [qLo, qHi] of `qs` decimals, or its own digits when off the grid)
 * reduces the position: BUY q + open + pos <= 0, SELL q + open - pos <= 0. BAIL when a value
 * does not unpack exactly.
 */
function reducesExactly(qty: Decimal, qLo: number, qHi: number, qs: number, buy: boolean, pos: Decimal, open: Decimal): boolean | null {
  let qM = qLo;
  let qE = -qs;
  if (qLo !== qHi) {
    if (!unpackX(qty)) return BAIL;
    qM = U.m;
    qE = U.e;
  }
  if (!unpackX(pos)) return BAIL;
  const pM = buy ? U.m : -U.m;
  const pE = U.e;
  if (!unpackX(open)) return BAIL;
  return cmpS(qM, qE, U.m, U.e, pM, pE, 0, 0) <= 0;
}

/** Whether Q (grid units) takes the position past `max`: BUY q + open + pos > max, SELL q + open - pos > max. */
function exceedsExactly(Q: number, qs: number, buy: boolean, pos: Decimal, open: Decimal, max: Decimal): boolean | null {
  if (!unpackX(pos)) return BAIL;
  const pM = buy ? U.m : -U.m;
  const pE = U.e;
  if (!unpackX(open)) return BAIL;
  const oM = U.m;
  const oE = U.e;
  if (!unpackX(max)) return BAIL;
  return cmpS(Q, -qs, oM, oE, pM, pE, U.m, U.e) > 0;
}

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
    if (!snap(price, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return BAIL;
    pLo = G.lo;
    pHi = G.hi;
    if (G.moved) {
      price = fromScaled(pLo, ps);
      (fields ??= []).push('price');
    }
  }
  let stop = intent.stopPrice;
  let sLo = 0;
  let sHi = 0;
  if (stop !== undefined) {
    if (!snap(stop, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return BAIL;
    sLo = G.lo;
    sHi = G.hi;
    if (G.moved) {
      stop = fromScaled(sLo, ps);
      (fields ??= []).push('stopPrice');
    }
  }
  let qty = intent.quantity;
  let qLo = 0;
  let qHi = 0;
  if (qty !== undefined) {
    if (!snap(qty, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return BAIL;
    let moved = G.moved;
    if (adjust && marketType && sc.marketLot && sc.marketLot.step > 0) {
      const t = toStep(G.lo, G.hi, sc.marketLot.min, sc.marketLot.step, false);
      moved ||= t !== G.lo || G.lo !== G.hi;
      G.lo = G.hi = t;
    }
    qLo = G.lo;
    qHi = G.hi;
    if (moved) {
      qty = fromScaled(qLo, qs);
      (fields ??= []).push('quantity');
    }
  }
  let ice = intent.icebergQty;
  let iLo = 0;
  let iHi = 0;
  if (ice !== undefined) {
    if (!snap(ice, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return BAIL;
    iLo = G.lo;
    iHi = G.hi;
    if (G.moved) {
      ice = fromScaled(iLo, qs);
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
      const r = reducesExactly(qty as Decimal, qLo, qHi, qs, buy, posDec, openDec as Decimal);
      if (r === BAIL) return BAIL;
      reducing = r;
    }
  }
  if (SHAPE_STATE.value === 'REDUCING' && !reducing) return m.notReducing(intent.side, qty, sym.base, posDec);

  if (price !== undefined && !priceOk(pLo, pHi, sc)) {
    const r = priceCheck('price', price, pLo, pHi, sym, sc);
    if (r !== undefined) return r;
  }
  if (stop !== undefined && !priceOk(sLo, sHi, sc)) {
    const r = priceCheck('stopPrice', stop, sLo, sHi, sym, sc);
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
    if (qty !== undefined && !lotOk(qLo, qHi, sc.lot)) {
      const r = lotCheck('quantity', qty, qLo, qHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
    if (ice !== undefined && !lotOk(iLo, iHi, sc.lot)) {
      const r = lotCheck('icebergQty', ice, iLo, iHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
  }
  if (marketType && qty !== undefined && sc.marketLot && !lotOk(qLo, qHi, sc.marketLot)) {
    const r = lotCheck('quantity', qty, qLo, qHi, sc.marketLot, sym, 'MARKET_LOT_SIZE');
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
    if (cost === undefined || decCmp(cost.filledQty, q) < 0) return m.noLiquidity(q, intent.side);
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
    if (marketValue !== undefined) over = decCmp(marketValue, maxNotional) > 0;
    else if (onGrid && t === t) over = vg > t;
    else {
      BF.maxNotional++;
      if (!unpackX(maxNotional)) return BAIL;
      over = cmpP(v1, v2, ve, U.m, 1, U.e) > 0;
    }
    if (over) return m.overNotionalLimit(valueDecimal(marketValue, intent, priced ? price : stop, qty), sym.quote, maxNotional);
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
        const r = exceedsExactly(Q, qs, buy, posDec, openDec as Decimal, maxPos);
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
      if (marketValue !== undefined) c = decCmp(marketValue, free);
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
    if (c > 0) return m.insufficient(true, valueDecimal(marketValue, intent, priced ? price : stop, qty), sym.quote, free ?? acct.free(sym.quote));
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
