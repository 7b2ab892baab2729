/**
 * Builders of the bus events a simulated venue emits (orderUpdate, fill), shared by the tick
 * venue (SimVenue over the matching engine) and the candle venue, so both report alike.
 */
import type { FillEvent, OrderUpdateEvent, TrackedOrderStateName } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import type { Decimal } from '../core/decimal.js';
import type { TradeId } from '../core/tradeId.js';

/** What a venue remembers about an order it accepted from a strategy. */
export interface VenueOrder {
  readonly intent: PlaceIntent;
  orderId: string | undefined;
  state: TrackedOrderStateName;
  cumQty: Decimal;
  cumQuoteQty: Decimal;
}

/** An orderUpdate event for `o` at time `E`. */
export function orderUpdateOf(o: VenueOrder, E: number, reason?: string): OrderUpdateEvent {
  const i = o.intent;
  const base = {
    type: 'orderUpdate' as const,
    E,
    strategy: i.strategy,
    clientId: i.clientId,
    orderId: o.orderId,
    symbol: i.symbol,
    side: i.side,
    orderType: i.orderType,
    state: o.state,
    price: i.price,
    quantity: i.quantity,
    cumQty: o.cumQty,
    cumQuoteQty: o.cumQuoteQty,
  };
  return reason === undefined ? base : { ...base, reason };
}

/** A fill event of `o`. */
export function fillOf(
  o: VenueOrder,
  E: number,
  f: { tradeId: TradeId; price: Decimal; qty: Decimal; quoteQty: Decimal; commission: Decimal; commissionAsset: string | null; isMaker: boolean },
): FillEvent {
  const i = o.intent;
  // The fields written out, in the order the spread gave them (the result's fills keep it): a
  // spread in the middle of a literal copies through the runtime, ~3-5x the cost of the fields.
  return {
    type: 'fill',
    E,
    strategy: i.strategy,
    clientId: i.clientId,
    orderId: o.orderId ?? '',
    symbol: i.symbol,
    side: i.side,
    tradeId: f.tradeId,
    price: f.price,
    qty: f.qty,
    quoteQty: f.quoteQty,
    commission: f.commission,
    commissionAsset: f.commissionAsset,
    isMaker: f.isMaker,
  };
}
