/**
 * The risk checker written plainly with decimal.js: the specification the fast checker
 * (../checkIntent.ts) is tested against, intent by intent. Slow on purpose; clarity first.
 *
 * Order of checks (the first failure is reported):
 *  cancels pass; shape (../shape.ts); rounding in 'adjust' mode; REDUCING state; PRICE_FILTER
 *  (price, stopPrice); PERCENT_PRICE; LOT_SIZE (quantity, icebergQty); MARKET_LOT_SIZE;
 *  ICEBERG_PARTS; NOTIONAL; PRICE_RANGE; order counts (../counts.ts); market cost estimate
 *  (NO_MARKET_LIQUIDITY); MAX_ORDER_NOTIONAL; MAX_POSITION; DAILY_LOSS_LIMIT; available balance.
 */
import { ceilToStep, type Decimal, floorToStep, isMultipleOf, ZERO } from '../../core/decimal.js';
import type { LotSizeFilter } from '../../core/filters.js';
import type { Intent, PlaceIntent } from '../../bus/intents.js';
import { checkCounts } from '../counts.js';
import { mayTake } from '../mayTake.js';
import * as m from '../messages.js';
import { quoteBuyMostQty } from '../quoteBuyQty.js';
import { MARKET_TYPES, PRICED_TYPES, STOP_TYPES, type SymbolRules } from '../rules.js';
import { checkShape } from '../shape.js';
import { ACCEPT, type RiskContext, type RiskDecision, type RiskReject } from '../types.js';

function lotCheck(field: string, q: Decimal, lot: LotSizeFilter, name: 'LOT_SIZE' | 'MARKET_LOT_SIZE'): RiskReject | undefined {
  if (lot.minQty.gt(ZERO) && q.lt(lot.minQty)) return m.belowMin(name, field, q, 'minQty', lot.minQty);
  if (lot.maxQty.gt(ZERO) && q.gt(lot.maxQty)) return m.aboveMax(name, field, q, 'maxQty', lot.maxQty);
  if (!isMultipleOf(q.minus(lot.minQty), lot.stepSize)) return m.offStep(name, field, q, 'minQty', lot.minQty, 'stepSize', lot.stepSize);
  return undefined;
}

function priceCheck(field: string, p: Decimal, sym: SymbolRules): RiskReject | undefined {
  const pf = sym.info.filters.priceFilter;
  if (!pf) return undefined;
  if (pf.minPrice.gt(ZERO) && p.lt(pf.minPrice)) return m.belowMin('PRICE_FILTER', field, p, 'minPrice', pf.minPrice);
  if (pf.maxPrice.gt(ZERO) && p.gt(pf.maxPrice)) return m.aboveMax('PRICE_FILTER', field, p, 'maxPrice', pf.maxPrice);
  if (!isMultipleOf(p.minus(pf.minPrice), pf.tickSize)) return m.offStep('PRICE_FILTER', field, p, 'minPrice', pf.minPrice, 'tickSize', pf.tickSize);
  return undefined;
}

/** Rounds price-like values onto the tick: buys down, sells up (never pay more / sell for less than asked). */
function roundPrice(p: Decimal, sym: SymbolRules, buy: boolean): Decimal {
  const pf = sym.info.filters.priceFilter;
  if (!pf || pf.tickSize.isZero()) return p;
  return buy ? floorToStep(p, pf.tickSize, pf.minPrice) : ceilToStep(p, pf.tickSize, pf.minPrice);
}

/** Rounds a quantity down onto the step of LOT_SIZE, then of MARKET_LOT_SIZE for market-executing types. */
function roundQty(q: Decimal, sym: SymbolRules, market: boolean): Decimal {
  const f = sym.info.filters;
  let r = q;
  if (f.lotSize && !f.lotSize.stepSize.isZero()) r = floorToStep(r, f.lotSize.stepSize, f.lotSize.minQty);
  if (market && f.marketLotSize && !f.marketLotSize.stepSize.isZero()) r = floorToStep(r, f.marketLotSize.stepSize, f.marketLotSize.minQty);
  return r;
}

/** Decimal reference of `checkIntent`: same contract, same verdicts, same messages. */
export function checkIntentReference(intent: Intent, ctx: RiskContext): RiskDecision {
  if (intent.kind !== 'place') return ACCEPT;
  const sym = ctx.rules.symbols.get(intent.symbol);
  const shape = checkShape(intent, sym, ctx);
  if (shape) return shape;
  if (sym === undefined) throw new Error('unreachable: checkShape rejects unknown symbols');
  const f = sym.info.filters;
  const type = intent.orderType;
  const buy = intent.side === 'BUY';
  const priced = PRICED_TYPES.has(type);
  const marketType = MARKET_TYPES.has(type);

  let price = intent.price;
  let stopPrice = intent.stopPrice;
  let qty = intent.quantity;
  let iceberg = intent.icebergQty;
  const fields: string[] = [];
  if (ctx.mode === 'adjust') {
    if (price !== undefined) {
      const r = roundPrice(price, sym, buy);
      if (!r.eq(price)) {
        price = r;
        fields.push('price');
      }
    }
    if (stopPrice !== undefined) {
      const r = roundPrice(stopPrice, sym, buy);
      if (!r.eq(stopPrice)) {
        stopPrice = r;
        fields.push('stopPrice');
      }
    }
    if (qty !== undefined) {
      const r = roundQty(qty, sym, marketType);
      if (!r.eq(qty)) {
        qty = r;
        fields.push('quantity');
      }
    }
    if (iceberg !== undefined) {
      const r = roundQty(iceberg, sym, false);
      if (!r.eq(iceberg)) {
        iceberg = r;
        fields.push('icebergQty');
      }
    }
  }

  const position = ctx.account.position(sym.base);
  let reducing = false;
  if (qty !== undefined) {
    if (buy) reducing = position.lt(ZERO) && qty.plus(ctx.account.openQty(intent.symbol, 'BUY')).lte(position.neg());
    else reducing = position.gt(ZERO) && qty.plus(ctx.account.openQty(intent.symbol, 'SELL')).lte(position);
  }
  if (ctx.stateFor(intent.symbol) === 'REDUCING' && !reducing) return m.notReducing(intent.side, qty, sym.base, position);

  const bad = (price !== undefined ? priceCheck('price', price, sym) : undefined) ?? (stopPrice !== undefined ? priceCheck('stopPrice', stopPrice, sym) : undefined);
  if (bad) return bad;

  if (price !== undefined && f.percentPrice) {
    const pp = f.percentPrice;
    // Unknown average: the exchange enforces the filter itself; refusing here would block trading on a data gap.
    const avg = ctx.market.avgPrice(intent.symbol, pp.avgPriceMins);
    if (avg !== undefined) {
      if (price.gt(avg.mul(pp.multiplierUp))) return m.outsideBand('PERCENT_PRICE', price, true, 'average price', avg, 'multiplierUp', pp.multiplierUp);
      if (price.lt(avg.mul(pp.multiplierDown))) return m.outsideBand('PERCENT_PRICE', price, false, 'average price', avg, 'multiplierDown', pp.multiplierDown);
    }
  }

  if (f.lotSize) {
    const l = (qty !== undefined ? lotCheck('quantity', qty, f.lotSize, 'LOT_SIZE') : undefined) ?? (iceberg !== undefined ? lotCheck('icebergQty', iceberg, f.lotSize, 'LOT_SIZE') : undefined);
    if (l) return l;
  }
  if (marketType && qty !== undefined && f.marketLotSize) {
    const l = lotCheck('quantity', qty, f.marketLotSize, 'MARKET_LOT_SIZE');
    if (l) return l;
  }
  // parts = CEIL(qty / icebergQty) > limit  <=>  qty > limit * icebergQty
  if (iceberg !== undefined && qty !== undefined && f.icebergPartsLimit !== undefined && qty.gt(iceberg.mul(f.icebergPartsLimit))) return m.tooManyParts(qty, iceberg, f.icebergPartsLimit);

  if (f.notional) {
    const n = f.notional;
    let notional: Decimal | undefined;
    if (priced && price !== undefined && qty !== undefined) notional = price.mul(qty);
    else if (marketType && n.applyToMarket) {
      if (intent.quoteOrderQty !== undefined) notional = intent.quoteOrderQty;
      else if (qty !== undefined) {
        // Stop-market orders execute around their stopPrice; plain market orders at the average price.
        const est = type === 'MARKET' ? ctx.market.avgPrice(intent.symbol, n.avgPriceMins) : stopPrice;
        if (est !== undefined) notional = est.mul(qty);
      }
    }
    if (notional !== undefined) {
      if (notional.lt(n.minNotional)) return m.notionalOut(qty, false, n.minNotional);
      if (n.maxNotional.gt(ZERO) && notional.gt(n.maxNotional)) return m.notionalOut(qty, true, n.maxNotional);
    }
  }

  if (sym.priceRange && priced && price !== undefined) {
    // Null reference price: the rule does not apply (spec, States and transitions).
    const ref = ctx.market.referencePrice(intent.symbol);
    if (ref !== undefined && ref !== null) {
      const r = sym.priceRange;
      const up = buy ? r.bidLimitMultUp : r.askLimitMultUp;
      const down = buy ? r.bidLimitMultDown : r.askLimitMultDown;
      // Only a taker execution is limited: an order that will rest is not refused.
      if (up !== undefined && price.gt(ref.mul(up)) && mayTake(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, true, 'reference price', ref, buy ? 'bidLimitMultUp' : 'askLimitMultUp', up);
      if (down !== undefined && price.lt(ref.mul(down)) && mayTake(intent, price, ctx.market)) return m.outsideBand('PRICE_RANGE', price, false, 'reference price', ref, buy ? 'bidLimitMultDown' : 'askLimitMultDown', down);
    }
  }

  const counts = checkCounts(intent, sym, ctx, iceberg !== undefined, STOP_TYPES.has(type));
  if (counts) return counts;

  // Quote value of the order: what a buy spends and what the notional limit measures.
  let value: Decimal;
  if (priced && price !== undefined && qty !== undefined) value = price.mul(qty);
  // A quoteOrderQty buy may spend less than half a step's cost more than asked (spec rule 4 rounding up
  // to the closer notional), and only from a free balance that pays it: the limits hold the amount asked.
  else if (intent.quoteOrderQty !== undefined) value = intent.quoteOrderQty;
  else if (STOP_TYPES.has(type) && stopPrice !== undefined && qty !== undefined) value = stopPrice.mul(qty);
  else {
    const q = qty ?? ZERO;
    const cost = ctx.market.book(intent.symbol)?.costToFill(intent.side, q);
    if (cost === undefined || cost.filledQty.lt(q)) return m.noLiquidity(q, intent.side);
    value = cost.quoteQty;
  }
  const maxNotional = ctx.limits.maxOrderNotional;
  if (maxNotional !== undefined && value.gt(maxNotional)) return m.overNotionalLimit(value, sym.quote, maxNotional);

  const maxPos = ctx.limits.maxPosition?.[sym.base];
  if (maxPos !== undefined) {
    if (buy) {
      const room = maxPos.minus(position).minus(ctx.account.openQty(intent.symbol, 'BUY'));
      if (qty !== undefined) {
        if (qty.gt(room)) return m.overPosition('quantity', qty, sym.base, position, true, maxPos);
      } else {
        // A quoteOrderQty buy gets at most what the budget buys at the best ask, plus the step spec rule 4 may add.
        const ask = ctx.market.book(intent.symbol)?.bestAsk();
        if (ask === undefined) return m.noAsk(value);
        if (quoteBuyMostQty(value, ask.price, sym).gt(room)) return m.overPosition('quoteOrderQty', value, sym.base, position, true, maxPos);
      }
    } else if (qty !== undefined) {
      const room = maxPos.plus(position).minus(ctx.account.openQty(intent.symbol, 'SELL'));
      if (qty.gt(room)) return m.overPosition('quantity', qty, sym.base, position, false, maxPos);
    }
  }

  const lossLimit = ctx.limits.dailyLossLimit;
  if (lossLimit !== undefined && !reducing) {
    const pnl = ctx.account.dailyPnl();
    if (pnl.lte(lossLimit.neg())) return m.lossLimitHit(pnl, lossLimit);
  }

  if (buy) {
    const free = ctx.account.free(sym.quote);
    if (value.gt(free)) return m.insufficient(true, value, sym.quote, free);
  } else if (qty !== undefined) {
    const free = ctx.account.free(sym.base);
    if (qty.gt(free)) return m.insufficient(false, qty, sym.base, free);
  }

  if (fields.length === 0) return ACCEPT;
  const adjusted: PlaceIntent = { ...intent, price, stopPrice, quantity: qty, icebergQty: iceberg };
  return { kind: 'adjust', intent: adjusted, fields };
}
