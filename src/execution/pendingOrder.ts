/**
 * The record of an order before anything is sent for it: built from its place intent, journalled
 * PENDING (by the gate with its intent and verdict, or by the tracker at the venue's submit).
 */
import { ZERO } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';
import type { OrderRecord, OrderVenueName } from '../store/records.js';

/** A new order as the router journals it before sending. */
export type NewOrder = Omit<OrderRecord, 'state' | 'cumQty' | 'cumQuoteQty' | 'createdAt' | 'updatedAt' | 'orderId' | 'sentAt' | 'reason'>;

/** The order a place intent journals, before anything is sent. */
export function newOrderOf(intent: PlaceIntent, venue: OrderVenueName): NewOrder {
  return {
    clientId: intent.clientId,
    strategy: intent.strategy,
    intentId: intent.intentId,
    symbol: intent.symbol,
    side: intent.side,
    orderType: intent.orderType,
    timeInForce: intent.timeInForce,
    price: intent.price,
    quantity: intent.quantity,
    quoteOrderQty: intent.quoteOrderQty,
    stopPrice: intent.stopPrice,
    icebergQty: intent.icebergQty,
    stpMode: intent.stpMode,
    venue,
  };
}

/**
 * `o` as a PENDING order journalled at `now`. Field by field, in the ledger's column order:
 * `{ ...o, state, ... }` costs ~6 KB per order on Node 20 (V8 makes a new hidden class for each
 * property added after a spread), and every record built this way has a shape of its own, so the
 * code that reads them goes megamorphic. `sentAt`: the send journalled with it (see OrderTracker.gate).
 */
export function pendingOrder(o: NewOrder, now: number, sentAt?: number): OrderRecord {
  return {
    clientId: o.clientId,
    strategy: o.strategy,
    intentId: o.intentId,
    symbol: o.symbol,
    side: o.side,
    orderType: o.orderType,
    timeInForce: o.timeInForce,
    price: o.price,
    quantity: o.quantity,
    quoteOrderQty: o.quoteOrderQty,
    stopPrice: o.stopPrice,
    icebergQty: o.icebergQty,
    stpMode: o.stpMode,
    venue: o.venue,
    orderId: undefined,
    state: 'PENDING',
    cumQty: ZERO,
    cumQuoteQty: ZERO,
    createdAt: now,
    sentAt,
    updatedAt: now,
    reason: undefined,
  };
}
