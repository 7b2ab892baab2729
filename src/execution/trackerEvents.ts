/**
 * The events the order tracker publishes, built from its ledger records: an orderUpdate when an
 * order changes, a fill when one is recorded (also used to replay the ledger at start-up).
 */
import type { FillEvent, OrderUpdateEvent } from '../bus/events.js';
import type { FillRecord, OrderRecord } from '../store/records.js';

/** The fill event of a ledger fill (what the tracker publishes when it records one). */
export function fillEventOf(f: FillRecord): FillEvent {
  return {
    type: 'fill',
    E: f.time,
    strategy: f.strategy,
    clientId: f.clientId,
    orderId: f.orderId,
    symbol: f.symbol,
    side: f.side,
    tradeId: f.tradeId,
    price: f.price,
    qty: f.qty,
    quoteQty: f.quoteQty,
    commission: f.commission,
    commissionAsset: f.commissionAsset,
    isMaker: f.isMaker,
  };
}

/** The orderUpdate event of a ledger order (what the tracker publishes when it changes). */
export function orderUpdateOf(o: OrderRecord): OrderUpdateEvent {
  return {
    type: 'orderUpdate',
    E: o.updatedAt,
    strategy: o.strategy,
    clientId: o.clientId,
    orderId: o.orderId,
    symbol: o.symbol,
    side: o.side,
    orderType: o.orderType,
    state: o.state,
    price: o.price,
    ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
    quantity: o.quantity,
    cumQty: o.cumQty,
    cumQuoteQty: o.cumQuoteQty,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  };
}
