/**
 * The order as the reference checker sees it: the intent's values after rounding in 'adjust'
 * mode (prices onto the tick, quantities onto the step, toward the safe side), and the position
 * it meets. Plain decimal.js, on purpose independent of the fast checker's grids.
 */
import { ceilToStep, type Decimal, floorToStep, ZERO } from '../../core/decimal.js';
import type { PlaceIntent } from '../../bus/intents.js';
import { MARKET_TYPES, PRICED_TYPES, STOP_TYPES, type SymbolRules } from '../rules.js';
import type { RiskContext } from '../types.js';

/** One place intent with its rounded values, what its type implies and the position it meets. */
export interface ReferenceOrder {
  readonly intent: PlaceIntent;
  readonly sym: SymbolRules;
  readonly ctx: RiskContext;
  readonly buy: boolean;
  readonly priced: boolean;
  readonly marketType: boolean;
  readonly stopType: boolean;
  readonly price: Decimal | undefined;
  readonly stopPrice: Decimal | undefined;
  readonly qty: Decimal | undefined;
  readonly iceberg: Decimal | undefined;
  /** Names of the values rounding changed. */
  readonly fields: readonly string[];
  readonly position: Decimal;
  /** Whether the order, with the side's open orders, only reduces the position. */
  readonly reducing: boolean;
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

/** The intent's values, rounded in 'adjust' mode (recording each field that changed), with its position. */
export function referenceOrder(intent: PlaceIntent, sym: SymbolRules, ctx: RiskContext): ReferenceOrder {
  const buy = intent.side === 'BUY';
  const marketType = MARKET_TYPES.has(intent.orderType);
  const fields: string[] = [];
  const adjust = ctx.mode === 'adjust';
  const rounded = (field: string, v: Decimal | undefined, round: (x: Decimal) => Decimal): Decimal | undefined => {
    if (v === undefined || !adjust) return v;
    const r = round(v);
    if (r.eq(v)) return v;
    fields.push(field);
    return r;
  };
  const price = rounded('price', intent.price, (p) => roundPrice(p, sym, buy));
  const stopPrice = rounded('stopPrice', intent.stopPrice, (p) => roundPrice(p, sym, buy));
  const qty = rounded('quantity', intent.quantity, (q) => roundQty(q, sym, marketType));
  const iceberg = rounded('icebergQty', intent.icebergQty, (q) => roundQty(q, sym, false));

  const position = ctx.account.position(sym.base);
  let reducing = false;
  if (qty !== undefined) {
    if (buy) reducing = position.lt(ZERO) && qty.plus(ctx.account.openQty(intent.symbol, 'BUY')).lte(position.neg());
    else reducing = position.gt(ZERO) && qty.plus(ctx.account.openQty(intent.symbol, 'SELL')).lte(position);
  }
  const priced = PRICED_TYPES.has(intent.orderType);
  const stopType = STOP_TYPES.has(intent.orderType);
  return { intent, sym, ctx, buy, priced, marketType, stopType, price, stopPrice, qty, iceberg, fields, position, reducing };
}
