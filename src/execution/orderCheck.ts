/**
 * Cross-checks of an exchange order snapshot (placement answer, order detail, cancel answer,
 * reconciliation) before the tracker takes its status and executed totals as truth. A snapshot
 * that contradicts itself or the order we placed (more executed than ordered, a quote amount with
 * nothing executed, a limit order filled beyond its price) is quarantined instead (OrderTracker).
 * Pure, like fillCheck.
 */
import { Decimal, isAboveZero } from '../core/decimal.js';
import type { Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import { decCmp } from '../risk/exactCompare.js';
import { amountProblem } from './fillCheck.js';

/** The exchange's rounding of quote totals: at most this share of them. */
const QUOTE_TOLERANCE = new Decimal('1e-6');
const UP = Decimal.add(1, QUOTE_TOLERANCE);
const DOWN = Decimal.sub(1, QUOTE_TOLERANCE);

/** Order types whose executions are bounded by the order's limit price. */
const LIMITED = new Set<Order['type']>(['LIMIT', 'LIMIT_MAKER', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']);

/** The snapshot fields a check reads. */
export type OrderSnapshot = Pick<Order, 'side' | 'type' | 'price' | 'origQty' | 'origQuoteQty' | 'executedQty' | 'executedQuoteQty'>;

/** Why an order snapshot cannot be true for the order we track, or undefined when it is consistent. */
export function orderProblem(x: OrderSnapshot, o: Pick<OrderRecord, 'side' | 'quantity' | 'quoteOrderQty'>): string | undefined {
  const bad =
    amountProblem('executedQty', x.executedQty, false) ??
    amountProblem('cummulativeQuoteQty', x.executedQuoteQty, false) ??
    amountProblem('origQty', x.origQty, false) ??
    amountProblem('origQuoteQty', x.origQuoteQty, false) ??
    amountProblem('price', x.price, false);
  if (bad) return bad;
  if (x.side !== o.side) return `side=${x.side} is not the order's ${o.side}`;
  const qty = x.executedQty;
  const quote = x.executedQuoteQty;
  // Compared through decCmp: decimal.js's gt copies its argument into a new Decimal on every call.
  // origQty 0 is a quote-sized market order's (the exchange sizes it from origQuoteQty).
  if (isAboveZero(x.origQty) && decCmp(qty, x.origQty) > 0) return `executedQty=${qty.toFixed()} exceeds origQty=${x.origQty.toFixed()}`;
  if (o.quantity !== undefined && decCmp(qty, o.quantity) > 0) return `executedQty=${qty.toFixed()} exceeds the quantity ordered ${o.quantity.toFixed()}`;
  if (isAboveZero(x.origQuoteQty) && decCmp(quote, x.origQuoteQty.mul(UP)) > 0) return `cummulativeQuoteQty=${quote.toFixed()} exceeds origQuoteQty=${x.origQuoteQty.toFixed()}`;
  if (o.quoteOrderQty !== undefined && decCmp(quote, o.quoteOrderQty.mul(UP)) > 0) return `cummulativeQuoteQty=${quote.toFixed()} exceeds the quote ordered ${o.quoteOrderQty.toFixed()}`;
  if (qty.isZero() && isAboveZero(quote)) return `cummulativeQuoteQty=${quote.toFixed()} with executedQty=0`;
  // A quote of 0 with a quantity is one the answer did not carry (some answers omit it).
  if (LIMITED.has(x.type) && isAboveZero(x.price) && isAboveZero(qty) && isAboveZero(quote)) {
    const atLimit = qty.mul(x.price);
    if (x.side === 'BUY' ? decCmp(quote, atLimit.mul(UP)) > 0 : decCmp(quote, atLimit.mul(DOWN)) < 0) {
      return `cummulativeQuoteQty=${quote.toFixed()} is beyond the limit: ${qty.toFixed()} at ${x.price.toFixed()} (${x.side})`;
    }
  }
  return undefined;
}
