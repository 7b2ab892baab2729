/**
 * The fast risk checker. Same contract, verdicts and messages as the decimal reference
 * (./reference/checkIntentReference.ts), computed on scaled integers: prices on the symbol's tick
 * grid, quantities on its step grid, products compared exactly (BigInt only past 2^52). It
 * allocates nothing on an accepted, unadjusted intent. Values it cannot place on a grid (more
 * decimals than any filter allows with the filter disabled, digits beyond a safe integer) take
 * the decimal path; `riskPathStats` counts how often.
 */
import { Decimal } from '../core/decimal.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { checkCounts } from './counts.js';
import * as m from './messages.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { T_MARKET, T_PRICED, T_STOP, type ScaledLot, type ScaledSymbol, type SymbolRules } from './rules.js';
import { cmpProducts, cmpSum3, cmpWithUnpacked, multipleOf, pow10, unpack, unpacked } from './scaled.js';
import { checkShape, shapeState } from './shape.js';
import { ACCEPT, type RiskContext, type RiskDecision, type RiskReject, type UserLimits } from './types.js';

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
const PRICED = T_PRICED;
const MARKET = T_MARKET;
const STOP = T_STOP;

/** How many place checks took the scaled path and how many fell back to decimals (for tests and the bench). */
export const riskPathStats = { fast: 0, fallback: 0 };

/**
 * Result of `grid` / `snap`: the value lies in [lo, hi] units of the grid (lo === hi when it is on
 * the grid); `moved` tells whether `snap` rounded it.
 */
const G = { lo: 0, hi: 0, moved: false };

/** Places `x` on a 10^-scale grid (floor and ceil). False when it cannot be done exactly with safe integers. */
function grid(x: Decimal, scale: number): boolean {
  if (!unpackX(x)) return false;
  const mant = U.m;
  if (mant === 0) {
    G.lo = G.hi = 0;
    return true;
  }
  const shift = U.e + scale;
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

/** Floors (`up` false) or ceils a grid interval onto base + k*step (step > 0). */
function toStep(lo: number, hi: number, base: number, step: number, up: boolean): number {
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

/** The order value as a Decimal, for messages only (the checks compare scaled integers). */
function valueDecimal(marketValue: Decimal | undefined, intent: PlaceIntent, unitPrice: Decimal | undefined, qty: Decimal | undefined): Decimal {
  return marketValue ?? intent.quoteOrderQty ?? (unitPrice as Decimal).mul(qty as Decimal);
}

/** User limits unpacked once per limits object (they are constant for a run or a strategy). */
interface ScaledLimits {
  readonly maxNotional: { m: number; e: number } | null | undefined;
  readonly lossLimit: { m: number; e: number } | null | undefined;
  /** maxPosition per asset: the Decimal (messages) and its unpacked form (null when it does not fit). */
  readonly maxPos: Map<string, { readonly dec: Decimal; readonly s: { m: number; e: number } | null }>;
}
const limitsCache = new WeakMap<UserLimits, ScaledLimits>();

function scaledOf(d: Decimal | undefined): { m: number; e: number } | null | undefined {
  if (d === undefined) return undefined;
  return unpackX(d) ? { m: U.m, e: U.e } : null;
}

/** The limits object of the last check and its scaled form: a run checks with few limits objects. */
let lastLimits: UserLimits | undefined;
let lastScaled: ScaledLimits | undefined;

function scaledLimits(lim: UserLimits): ScaledLimits {
  if (lim === lastLimits) return lastScaled as ScaledLimits;
  let s = limitsCache.get(lim);
  if (s === undefined) {
    const maxPos: ScaledLimits['maxPos'] = new Map();
    for (const [asset, v] of Object.entries(lim.maxPosition ?? {})) if (v !== undefined) maxPos.set(asset, { dec: v, s: scaledOf(v) ?? null });
    s = { maxNotional: scaledOf(lim.maxOrderNotional), lossLimit: scaledOf(lim.dailyLossLimit), maxPos };
    limitsCache.set(lim, s);
  }
  lastLimits = lim;
  lastScaled = s;
  return s;
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
  const posDec = acct.position(sym.base);
  if (!unpackX(posDec)) return BAIL;
  const posM = U.m;
  const posE = U.e;
  let reducing = false;
  // Unfilled quantity of the strategy's open orders on this side, read at most once.
  let openM = 0;
  let openE = 0;
  let openKnown = false;
  if (qty !== undefined && (buy ? posM < 0 : posM > 0)) {
    // The quantity in exact terms even while off-grid (reject mode): its own digits.
    let qM = qLo;
    let qE = -qs;
    if (qLo !== qHi) {
      if (!unpackX(qty)) return BAIL;
      qM = U.m;
      qE = U.e;
    }
    if (!unpackX(acct.openQty(intent.symbol, buy ? 'BUY' : 'SELL'))) return BAIL;
    openM = U.m;
    openE = U.e;
    openKnown = true;
    // BUY: q + openBuy + pos <= 0; SELL: q + openSell - pos <= 0.
    reducing = cmpS(qM, qE, openM, openE, buy ? posM : -posM, posE, 0, 0) <= 0;
  }
  if (SHAPE_STATE.value === 'REDUCING' && !reducing) return m.notReducing(intent.side, qty, sym.base, posDec);

  if (price !== undefined) {
    const r = priceCheck('price', price, pLo, pHi, sym, sc);
    if (r !== undefined) return r;
  }
  if (stop !== undefined) {
    const r = priceCheck('stopPrice', stop, sLo, sHi, sym, sc);
    if (r !== undefined) return r;
  }

  if (price !== undefined && f.percentPrice && sc.percentUp && sc.percentDown) {
    const pp = f.percentPrice;
    const avg = ctx.market.avgPrice(intent.symbol, pp.avgPriceMins);
    if (avg !== undefined) {
      // The average may carry 40 digits (it is a division): compared through its truncation.
      const ax = unpackX(avg);
      const am = U.m;
      const ae = U.e;
      const up = cmpU(pLo, 1, -ps, am, ae, ax, sc.percentUp.m, sc.percentUp.e);
      if (up !== up) return BAIL;
      if (up > 0) return m.outsideBand('PERCENT_PRICE', price, true, 'average price', avg, 'multiplierUp', pp.multiplierUp);
      const down = cmpU(pLo, 1, -ps, am, ae, ax, sc.percentDown.m, sc.percentDown.e);
      if (down !== down) return BAIL;
      if (down < 0) return m.outsideBand('PERCENT_PRICE', price, false, 'average price', avg, 'multiplierDown', pp.multiplierDown);
    }
  }

  if (sc.lot) {
    if (qty !== undefined) {
      const r = lotCheck('quantity', qty, qLo, qHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
    if (ice !== undefined) {
      const r = lotCheck('icebergQty', ice, iLo, iHi, sc.lot, sym, 'LOT_SIZE');
      if (r !== undefined) return r;
    }
  }
  if (marketType && qty !== undefined && sc.marketLot) {
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
      if (mn) belowMin = cmpP(mn.m, 1, mn.e, P, Q, -ns);
      if (mx) aboveMax = cmpP(mx.m, 1, mx.e, P, Q, -ns);
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
      const up = buy ? sc.bidUp : sc.askUp;
      const down = buy ? sc.bidDown : sc.askDown;
      const rx = unpackX(ref);
      const rm = U.m;
      const re = U.e;
      const cu = up ? cmpU(P, 1, -ps, rm, re, rx, up.m, up.e) : 0;
      if (cu !== cu) return BAIL;
      if (cu > 0) return m.outsideBand('PRICE_RANGE', price, true, 'reference price', ref, buy ? 'bidLimitMultUp' : 'askLimitMultUp', (buy ? range.bidLimitMultUp : range.askLimitMultUp) as Decimal);
      const cd = down ? cmpU(P, 1, -ps, rm, re, rx, down.m, down.e) : 0;
      if (cd !== cd) return BAIL;
      if (cd < 0) return m.outsideBand('PRICE_RANGE', price, false, 'reference price', ref, buy ? 'bidLimitMultDown' : 'askLimitMultDown', (buy ? range.bidLimitMultDown : range.askLimitMultDown) as Decimal);
    }
  }

  const counts = countsX(intent, sym, ctx, ice !== undefined);
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
    if (cost === undefined || cost.filledQty.lt(q)) return m.noLiquidity(q, intent.side);
    // A book walk sums products of arbitrary decimals: compared as a Decimal (no allocation).
    marketValue = cost.quoteQty;
    v1 = 0;
    ve = 0;
  }

  const lim = ctx.limits;
  const sl = scaledLimits(lim);
  const maxNotional = lim.maxOrderNotional;
  if (maxNotional !== undefined) {
    let over: boolean;
    if (marketValue !== undefined) over = marketValue.gt(maxNotional);
    else {
      const mn = sl.maxNotional;
      if (!mn) return BAIL;
      over = cmpP(v1, v2, ve, mn.m, 1, mn.e) > 0;
    }
    if (over) return m.overNotionalLimit(valueDecimal(marketValue, intent, priced ? price : stop, qty), sym.quote, maxNotional);
  }

  // One map read for both forms of the limit (the limits object is unpacked once, see scaledLimits).
  const maxPosEntry = sl.maxPos.get(sym.base);
  if (maxPosEntry !== undefined) {
    const maxPos = maxPosEntry.dec;
    if (qty === undefined) {
      // A quoteOrderQty buy: bounded by the best ask (a rare order; plain decimals suffice).
      const qoq = intent.quoteOrderQty as Decimal;
      const ask = ctx.market.book(intent.symbol)?.bestAsk();
      if (ask === undefined) return m.noAsk(qoq);
      const room = maxPos.minus(posDec).minus(acct.openQty(intent.symbol, 'BUY'));
      if (qoq.gt(room.mul(ask.price))) return m.overPosition('quoteOrderQty', qoq, sym.base, posDec, true, maxPos);
    } else {
      if (!openKnown) {
        if (!unpackX(acct.openQty(intent.symbol, buy ? 'BUY' : 'SELL'))) return BAIL;
        openM = U.m;
        openE = U.e;
      }
      const mp = maxPosEntry.s;
      if (!mp) return BAIL;
      // BUY: q + open + pos > max; SELL: q + open - pos > max.
      if (cmpS(Q, -qs, openM, openE, buy ? posM : -posM, posE, mp.m, mp.e) > 0) return m.overPosition('quantity', qty, sym.base, posDec, buy, maxPos);
    }
  }

  const lossLimit = lim.dailyLossLimit;
  if (lossLimit !== undefined && !reducing) {
    const pnl = acct.dailyPnl();
    const ll = sl.lossLimit;
    if (!ll) return BAIL;
    // pnl <= -limit  <=>  -limit - pnl >= 0
    const px = unpackX(pnl);
    const c = cmpU(-ll.m, 1, ll.e, U.m, U.e, px, 1, 0);
    if (c !== c) return BAIL;
    if (c >= 0) return m.lossLimitHit(pnl, lossLimit);
  }

  if (buy) {
    const free = acct.free(sym.quote);
    let c: number;
    if (marketValue !== undefined) c = marketValue.cmp(free);
    else {
      const fx = unpackX(free);
      c = cmpU(v1, v2, ve, U.m, U.e, fx, 1, 0);
    }
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(true, valueDecimal(marketValue, intent, priced ? price : stop, qty), sym.quote, free);
  } else if (qty !== undefined) {
    const free = acct.free(sym.base);
    const fx = unpackX(free);
    const c = cmpU(Q, 1, -qs, U.m, U.e, fx, 1, 0);
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(false, qty, sym.base, free);
  }

  if (fields === undefined) return ACCEPT_X;
  const adjusted: PlaceIntent = { ...intent, price, stopPrice: stop, quantity: qty, icebergQty: ice };
  return { kind: 'adjust', intent: adjusted, fields };
}
