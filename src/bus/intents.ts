/**
 * Order intents: what strategies emit. They never call the network; the risk checker and the
 * router (or the simulated venue) turn intents into orders.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderSideName, OrderTypeName, StpModeName, TimeInForceName } from '../core/enums.js';

/** Place an order of any type the exchange has. `clientId` is assigned before risk so nothing is anonymous. */
export interface PlaceIntent {
  readonly kind: 'place';
  readonly strategy: string;
  readonly intentId: string;
  readonly clientId: string;
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly orderType: OrderTypeName;
  readonly timeInForce?: TimeInForceName;
  readonly quantity?: Decimal;
  readonly quoteOrderQty?: Decimal;
  readonly price?: Decimal;
  readonly stopPrice?: Decimal;
  readonly icebergQty?: Decimal;
  readonly stpMode?: StpModeName;
}

/** Cancel one of the strategy's own orders by clientId. */
export interface CancelIntent {
  readonly kind: 'cancel';
  readonly strategy: string;
  readonly intentId: string;
  readonly symbol: string;
  readonly clientId: string;
}

/** Cancel all of the strategy's own open orders (on one symbol, or all its symbols). */
export interface CancelAllIntent {
  readonly kind: 'cancelAll';
  readonly strategy: string;
  readonly intentId: string;
  readonly symbol?: string;
}

/** Any intent. */
export type Intent = PlaceIntent | CancelIntent | CancelAllIntent;
