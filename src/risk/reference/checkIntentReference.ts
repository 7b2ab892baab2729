/**
 * The risk checker written plainly with decimal.js: the specification the fast checker
 * (../checkIntent.ts) is tested against, intent by intent. Slow on purpose; clarity first.
 *
 * Order of checks (the first failure is reported):
 *  cancels pass; shape (../shape.ts); rounding in 'adjust' mode; REDUCING state; PRICE_FILTER
 *  (price, stopPrice); PERCENT_PRICE; LOT_SIZE (quantity, icebergQty); MARKET_LOT_SIZE;
 *  ICEBERG_PARTS; NOTIONAL; PRICE_RANGE; order counts (../counts.ts); market cost estimate
 *  (NO_MARKET_LIQUIDITY); MAX_ORDER_NOTIONAL; MAX_POSITION; DAILY_LOSS_LIMIT; available balance.
 *
 * It shares no helper with the fast checker beyond the rules both read (shape, counts, mayTake,
 * messages, quoteBuyQty): rounding is in ./referenceOrder.ts, the exchange's filters in
 * ./referenceFilters.ts, the user's limits and the account in ./referenceLimits.ts.
 */
import type { Intent, PlaceIntent } from '../../bus/intents.js';
import { checkCounts } from '../counts.js';
import * as m from '../messages.js';
import { checkShape } from '../shape.js';
import { ACCEPT, type RiskContext, type RiskDecision } from '../types.js';
import { icebergPartsRule, lotRules, notionalRule, percentPriceRule, priceFilterRule, priceRangeRule } from './referenceFilters.js';
import { balanceRule, lossLimitRule, maxNotionalRule, maxPositionRule, referenceValue } from './referenceLimits.js';
import { referenceOrder } from './referenceOrder.js';

/** Decimal reference of `checkIntent`: same contract, same verdicts, same messages. */
export function checkIntentReference(intent: Intent, ctx: RiskContext): RiskDecision {
  if (intent.kind !== 'place') return ACCEPT;
  const sym = ctx.rules.symbols.get(intent.symbol);
  const shape = checkShape(intent, sym, ctx);
  if (shape) return shape;
  if (sym === undefined) throw new Error('unreachable: checkShape rejects unknown symbols');
  const o = referenceOrder(intent, sym, ctx);
  if (ctx.stateFor(intent.symbol) === 'REDUCING' && !o.reducing) return m.notReducing(intent.side, o.qty, sym.base, o.position);
  const refused =
    priceFilterRule(o) ??
    percentPriceRule(o) ??
    lotRules(o) ??
    icebergPartsRule(o) ??
    notionalRule(o) ??
    priceRangeRule(o) ??
    checkCounts(intent, sym, ctx, o.iceberg !== undefined, o.stopType);
  if (refused) return refused;
  const value = referenceValue(o);
  if ('kind' in value) return value;
  const overLimit = maxNotionalRule(o, value) ?? maxPositionRule(o, value) ?? lossLimitRule(o) ?? balanceRule(o, value);
  if (overLimit) return overLimit;

  if (o.fields.length === 0) return ACCEPT;
  const adjusted: PlaceIntent = { ...intent, price: o.price, stopPrice: o.stopPrice, quantity: o.qty, icebergQty: o.iceberg };
  return { kind: 'adjust', intent: adjusted, fields: [...o.fields] };
}
