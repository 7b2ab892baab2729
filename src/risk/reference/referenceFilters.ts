/**
 * The exchange's symbol filters and execution rules as the reference checker applies them, one
 * function per rule, each answering the refusal or undefined. Plain decimal.js.
 */
import { type Decimal, isMultipleOf, ZERO } from '../../core/decimal.js';
import type { LotSizeFilter } from '../../core/filters.js';
import { mayTake } from '../mayTake.js';
import * as m from '../messages.js';
import type { SymbolRules } from '../rules.js';
import type { RiskReject } from '../types.js';
import type { ReferenceOrder } from './referenceOrder.js';

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

/** PRICE_FILTER on the price, then on the stop price. */
export function priceFilterRule(o: ReferenceOrder): RiskReject | undefined {
  return (o.price !== undefined ? priceCheck('price', o.price, o.sym) : undefined) ?? (o.stopPrice !== undefined ? priceCheck('stopPrice', o.stopPrice, o.sym) : undefined);
}

/** PERCENT_PRICE: the price within multiplierDown..multiplierUp of the average price. */
export function percentPriceRule(o: ReferenceOrder): RiskReject | undefined {
  const pp = o.sym.info.filters.percentPrice;
  const price = o.price;
  if (price === undefined || !pp) return undefined;
  // Unknown average: the exchange enforces the filter itself; refusing here would block trading on a data gap.
  const avg = o.ctx.market.avgPrice(o.intent.symbol, pp.avgPriceMins);
  if (avg === undefined) return undefined;
  if (price.gt(avg.mul(pp.multiplierUp))) return m.outsideBand('PERCENT_PRICE', price, true, 'average price', avg, 'multiplierUp', pp.multiplierUp);
  if (price.lt(avg.mul(pp.multiplierDown))) return m.outsideBand('PERCENT_PRICE', price, false, 'average price', avg, 'multiplierDown', pp.multiplierDown);
  return undefined;
}

/** LOT_SIZE on the quantity and iceberg quantity, then MARKET_LOT_SIZE on a market order's quantity. */
export function lotRules(o: ReferenceOrder): RiskReject | undefined {
  const f = o.sym.info.filters;
  const { qty, iceberg } = o;
  if (f.lotSize) {
    const l = (qty !== undefined ? lotCheck('quantity', qty, f.lotSize, 'LOT_SIZE') : undefined) ?? (iceberg !== undefined ? lotCheck('icebergQty', iceberg, f.lotSize, 'LOT_SIZE') : undefined);
    if (l) return l;
  }
  if (o.marketType && qty !== undefined && f.marketLotSize) return lotCheck('quantity', qty, f.marketLotSize, 'MARKET_LOT_SIZE');
  return undefined;
}

/** ICEBERG_PARTS: parts = CEIL(qty / icebergQty) > limit  <=>  qty > limit * icebergQty. */
export function icebergPartsRule(o: ReferenceOrder): RiskReject | undefined {
  const limit = o.sym.info.filters.icebergPartsLimit;
  const { qty, iceberg } = o;
  if (iceberg !== undefined && qty !== undefined && limit !== undefined && qty.gt(iceberg.mul(limit))) return m.tooManyParts(qty, iceberg, limit);
  return undefined;
}

/** NOTIONAL: the order's notional, when it can be known, within minNotional..maxNotional. */
export function notionalRule(o: ReferenceOrder): RiskReject | undefined {
  const n = o.sym.info.filters.notional;
  if (!n) return undefined;
  const { intent, price, qty } = o;
  let notional: Decimal | undefined;
  if (o.priced && price !== undefined && qty !== undefined) notional = price.mul(qty);
  else if (o.marketType && n.applyToMarket) {
    if (intent.quoteOrderQty !== undefined) notional = intent.quoteOrderQty;
    else if (qty !== undefined) {
      // Stop-market orders execute around their stopPrice; plain market orders at the average price.
      const est = intent.orderType === 'MARKET' ? o.ctx.market.avgPrice(intent.symbol, n.avgPriceMins) : o.stopPrice;
      if (est !== undefined) notional = est.mul(qty);
    }
  }
  if (notional === undefined) return undefined;
  if (notional.lt(n.minNotional)) return m.notionalOut(qty, false, n.minNotional);
  if (n.maxNotional.gt(ZERO) && notional.gt(n.maxNotional)) return m.notionalOut(qty, true, n.maxNotional);
  return undefined;
}

/** PRICE_RANGE: a priced order's price within the reference price's multipliers, when it may take. */
export function priceRangeRule(o: ReferenceOrder): RiskReject | undefined {
  const r = o.sym.priceRange;
  const { intent, price, buy } = o;
  if (!r || !o.priced || price === undefined) return undefined;
  // Null reference price: the rule does not apply (spec, States and transitions).
  const ref = o.ctx.market.referencePrice(intent.symbol);
  if (ref === undefined || ref === null) return undefined;
  const up = buy ? r.bidLimitMultUp : r.askLimitMultUp;
  const down = buy ? r.bidLimitMultDown : r.askLimitMultDown;
  // Only a taker execution is limited: an order that will rest is not refused.
  if (up !== undefined && price.gt(ref.mul(up)) && mayTake(intent, price, o.ctx.market)) return m.outsideBand('PRICE_RANGE', price, true, 'reference price', ref, buy ? 'bidLimitMultUp' : 'askLimitMultUp', up);
  if (down !== undefined && price.lt(ref.mul(down)) && mayTake(intent, price, o.ctx.market)) return m.outsideBand('PRICE_RANGE', price, false, 'reference price', ref, buy ? 'bidLimitMultDown' : 'askLimitMultDown', down);
  return undefined;
}
