/**
 * Which parameters each order type of POST /open/v1/orders needs or accepts, from the spec's
 * "Additional mandatory parameters by type" line and its parameter table. One definition for
 * the client's validation (exchange/open), the sandbox's (sandbox/open-routes), the risk
 * checker's (risk/rules) and the matching engine's (sim/entry), so the sides of the contract
 * cannot drift apart.
 */
import { OrderType, type OrderTypeName } from './enums.js';

/** An order parameter that some order types make mandatory. */
export type OrderAmountParam = 'quantity' | 'price' | 'stopPrice';

/**
 * Mandatory parameters per type (spec: 1 quantity, price; 3 quantity, stopPrice; 4 quantity,
 * price, stopPrice; 5 quantity, stopPrice; 6 quantity, price, stopPrice; 7 quantity, price).
 * MARKET (2) lists none: its rule, "quantity (sell) or quoteOrderQty (buy)", depends on the
 * side, and each caller decides how strictly to read it.
 */
export const ORDER_MANDATORY_PARAMS: Readonly<Record<OrderTypeName, readonly OrderAmountParam[]>> = {
  LIMIT: ['quantity', 'price'],
  MARKET: [],
  STOP_LOSS: ['quantity', 'stopPrice'],
  STOP_LOSS_LIMIT: ['quantity', 'price', 'stopPrice'],
  TAKE_PROFIT: ['quantity', 'stopPrice'],
  TAKE_PROFIT_LIMIT: ['quantity', 'price', 'stopPrice'],
  LIMIT_MAKER: ['quantity', 'price'],
};

function typesRequiring(param: OrderAmountParam): ReadonlySet<OrderTypeName> {
  return new Set((Object.keys(ORDER_MANDATORY_PARAMS) as OrderTypeName[]).filter((t) => ORDER_MANDATORY_PARAMS[t].includes(param)));
}

/** Types that take a price: exactly those that require one (no type has an optional price). */
export const PRICED_ORDER_TYPES: ReadonlySet<OrderTypeName> = typesRequiring('price');

/**
 * Types that execute as market orders: MARKET, and STOP_LOSS / TAKE_PROFIT once triggered. They
 * are the types without a limit price, so MARKET_LOT_SIZE applies and their notional is estimated.
 */
export const MARKET_EXECUTION_ORDER_TYPES: ReadonlySet<OrderTypeName> = new Set((Object.keys(OrderType) as OrderTypeName[]).filter((t) => !PRICED_ORDER_TYPES.has(t)));

/** Types that take stopPrice (spec: "for STOP_LOSS, STOP_LOSS_LIMIT, TAKE_PROFIT, TAKE_PROFIT_LIMIT"), all of which require it. */
export const STOP_ORDER_TYPES: ReadonlySet<OrderTypeName> = typesRequiring('stopPrice');

/** Types that may carry icebergQty (spec: "with LIMIT, STOP_LOSS_LIMIT, TAKE_PROFIT_LIMIT makes an iceberg order"). */
export const ICEBERG_ORDER_TYPES: ReadonlySet<OrderTypeName> = new Set(['LIMIT', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']);
