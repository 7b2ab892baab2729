/**
 * The fields of a new order that the open API client and the matching engine both take: the
 * parameters of POST /open/v1/orders (and /orders/oco). Each side adds what only it has (the client its signing
 * options and the wire's STP field name, the engine the account and its shorter STP name).
 */
import type { Decimal } from './decimal.js';
import type { OrderSideName, OrderTypeName, TimeInForceName } from './enums.js';

/** A decimal parameter: a Decimal, or a plain decimal string as typed or as it came off the wire. */
export type DecimalInput = Decimal | string;

/** A new order's own fields. Which of quantity/price/stopPrice are needed depends on `type`. */
export interface NewOrderFields {
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly type: OrderTypeName;
  readonly timeInForce?: TimeInForceName;
  readonly quantity?: DecimalInput;
  readonly quoteOrderQty?: DecimalInput;
  readonly price?: DecimalInput;
  readonly stopPrice?: DecimalInput;
  readonly icebergQty?: DecimalInput;
  /** Generated when absent so an order with an unknown outcome can be found again. */
  readonly clientId?: string;
}

/** A new OCO list's own fields (POST /open/v1/orders/oco): a LIMIT_MAKER leg and a STOP_LOSS_LIMIT leg. */
export interface NewOcoFields {
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly quantity: DecimalInput;
  readonly price: DecimalInput;
  readonly stopPrice: DecimalInput;
  readonly stopLimitPrice: DecimalInput;
  /** Generated when absent (reconciliation key of the list). */
  readonly listClientId?: string;
  readonly limitClientId?: string;
  readonly stopClientId?: string;
}
