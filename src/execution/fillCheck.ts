/**
 * Cross-checks of a fill before it is stored or delivered. A fill with price 1e29 and commission
 * -0.5 was once stored for good and handed to a strategy; a fill that contradicts itself, its
 * order or its symbol is now quarantined instead (see OrderTracker) and the order reconciled over
 * REST. Pure: the tracker supplies the order, the fills already recorded and the symbol.
 */
import { Decimal, isMultipleOf } from '../core/decimal.js';
import type { SymbolInfo } from '../core/types.js';
import { decCmp } from '../risk/exactCompare.js';
import type { FillRecord, OrderRecord } from '../store/records.js';

/** Amounts at or past this are not prices, quantities or fees of any market (1e18). */
const MAX_AMOUNT = new Decimal('1e18');
/** Digits after the point no exchange amount carries. */
const MAX_DECIMALS = 18;
/** quoteQty may differ from price x qty by the exchange's rounding: at most this share of it. */
const QUOTE_TOLERANCE = new Decimal('1e-6');

/** What a fill is checked against. */
export interface FillCheck {
  readonly order: OrderRecord;
  /** The order's fills recorded so far (this one excluded). */
  readonly recorded: readonly FillRecord[];
  /** The symbol's exchange info, when known (tick and step). */
  readonly info?: SymbolInfo | undefined;
  /** The cumulative quantities a stream report gave with the fill (its own total includes it). */
  readonly cum?: { readonly qty: Decimal; readonly quoteQty: Decimal };
}

type Fill = Pick<FillRecord, 'price' | 'qty' | 'quoteQty' | 'commission'>;

/** Order types whose fills are bounded by the order's limit price. */
const LIMITED = new Set<OrderRecord['orderType']>(['LIMIT', 'LIMIT_MAKER', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']);

/** Why a value is not a plausible exchange amount, or undefined. */
export function amountProblem(field: string, v: Decimal, positive: boolean): string | undefined {
  if (!v.isFinite()) return `${field}=${v.toString()} is not finite`;
  if (v.isNegative() && !v.isZero()) return `${field}=${v.toFixed()} is negative`;
  if (positive && v.isZero()) return `${field}=0 must be positive`;
  if (decCmp(v, MAX_AMOUNT) >= 0) return `${field}=${v.toString()} is out of range (>= 1e18)`;
  if (v.decimalPlaces() > MAX_DECIMALS) return `${field}=${v.toString()} has more than ${MAX_DECIMALS} decimals`;
  return undefined;
}

/** Why a fill cannot be true for its order, or undefined when it is consistent. */
export function fillProblem(f: Fill, c: FillCheck): string | undefined {
  const bad =
    amountProblem('price', f.price, true) ??
    amountProblem('qty', f.qty, true) ??
    amountProblem('quoteQty', f.quoteQty, false) ??
    amountProblem('commission', f.commission, false);
  if (bad) return bad;
  const notional = f.price.mul(f.qty);
  // A quote amount of 0 is one the report did not carry (Y is optional on the stream).
  if (!f.quoteQty.isZero() && f.quoteQty.minus(notional).abs().gt(notional.mul(QUOTE_TOLERANCE))) return `quoteQty=${f.quoteQty.toFixed()} is not price x qty (${notional.toFixed()})`;
  const o = c.order;
  if (o.price !== undefined && LIMITED.has(o.orderType)) {
    if (o.side === 'BUY' ? f.price.gt(o.price) : f.price.lt(o.price)) return `price=${f.price.toFixed()} is beyond the order's limit ${o.price.toFixed()} (${o.side})`;
  }
  const tick = c.info?.filters.priceFilter?.tickSize;
  if (tick && !isMultipleOf(f.price, tick)) return `price=${f.price.toFixed()} is not a multiple of the tick ${tick.toFixed()}`;
  const step = c.info?.filters.lotSize?.stepSize;
  if (step && !isMultipleOf(f.qty, step)) return `qty=${f.qty.toFixed()} is not a multiple of the step ${step.toFixed()}`;
  const total = c.recorded.reduce((a, r) => a.plus(r.qty), f.qty);
  if (o.quantity !== undefined && total.gt(o.quantity)) return `fills total ${total.toFixed()} past the order's quantity ${o.quantity.toFixed()}`;
  const quote = c.recorded.reduce((a, r) => a.plus(r.quoteQty), f.quoteQty);
  if (o.quoteOrderQty !== undefined && quote.gt(o.quoteOrderQty.mul(Decimal.add(1, QUOTE_TOLERANCE)))) return `fills total ${quote.toFixed()} quote past the order's ${o.quoteOrderQty.toFixed()}`;
  if (c.cum) {
    // The report's own totals include this fill (earlier fills may arrive later: reports reorder).
    const cumBad = amountProblem('cumQty', c.cum.qty, true) ?? amountProblem('cumQuoteQty', c.cum.quoteQty, false);
    if (cumBad) return cumBad;
    if (f.qty.gt(c.cum.qty)) return `qty=${f.qty.toFixed()} exceeds the report's cumulative ${c.cum.qty.toFixed()}`;
    if (o.quantity !== undefined && c.cum.qty.gt(o.quantity)) return `cumulative ${c.cum.qty.toFixed()} past the order's quantity ${o.quantity.toFixed()}`;
    if (f.quoteQty.gt(c.cum.quoteQty.mul(Decimal.add(1, QUOTE_TOLERANCE)))) return `quoteQty=${f.quoteQty.toFixed()} exceeds the report's cumulative quote ${c.cum.quoteQty.toFixed()}`;
  }
  return undefined;
}
