/**
 * Every enumeration of the open API spec as `as const` objects (name -> wire code),
 * with reverse maps (code -> name) and union types. Legacy /v1 string enums follow.
 */

/** Builds the reverse (code -> name) map of an `as const` name -> code object. */
function reverse<const T extends Record<string, string | number>>(obj: T): { readonly [K in T[keyof T] as `${K}`]: keyof T } {
  const out: Record<string, string> = {};
  for (const [name, code] of Object.entries(obj)) out[String(code)] = name;
  return out as { readonly [K in T[keyof T] as `${K}`]: keyof T };
}

/** Symbol type: 1 MAIN, 2 NEXT; routing also knows type 3 (new symbols, depth host). */
export const SymbolType = { MAIN: 1, NEXT: 2, NEW: 3 } as const;
export type SymbolTypeName = keyof typeof SymbolType;
export type SymbolTypeCode = (typeof SymbolType)[SymbolTypeName];
export const SymbolTypeName = reverse(SymbolType);

/** Order status. PENDING_CANCEL is listed by the spec but currently unused. */
export const OrderStatus = {
  SYSTEM_PROCESSING: -2,
  NEW: 0,
  PARTIALLY_FILLED: 1,
  FILLED: 2,
  CANCELED: 3,
  PENDING_CANCEL: 4,
  REJECTED: 5,
  EXPIRED: 6,
} as const;
export type OrderStatusName = keyof typeof OrderStatus;
export type OrderStatusCode = (typeof OrderStatus)[OrderStatusName];
export const OrderStatusName = reverse(OrderStatus);

/** Order type. */
export const OrderType = {
  LIMIT: 1,
  MARKET: 2,
  STOP_LOSS: 3,
  STOP_LOSS_LIMIT: 4,
  TAKE_PROFIT: 5,
  TAKE_PROFIT_LIMIT: 6,
  LIMIT_MAKER: 7,
} as const;
export type OrderTypeName = keyof typeof OrderType;
export type OrderTypeCode = (typeof OrderType)[OrderTypeName];
export const OrderTypeName = reverse(OrderType);

/** Algo orders per the MAX_NUM_ALGO_ORDERS filter. */
export const ALGO_ORDER_TYPES: ReadonlySet<OrderTypeName> = new Set(['STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT']);

/** Order side. */
export const OrderSide = { BUY: 0, SELL: 1 } as const;
export type OrderSideName = keyof typeof OrderSide;
export type OrderSideCode = (typeof OrderSide)[OrderSideName];
export const OrderSideName = reverse(OrderSide);

/** Time in force; GTX is good-till-crossing (post only). */
export const TimeInForce = { GTC: 1, IOC: 2, FOK: 3, GTX: 4 } as const;
export type TimeInForceName = keyof typeof TimeInForce;
export type TimeInForceCode = (typeof TimeInForce)[TimeInForceName];
export const TimeInForceName = reverse(TimeInForce);

/** Self-trade prevention mode. NONE (3) appears only in an earlier revision; new orders accept 0,1,2,4,5. */
export const StpMode = {
  EXPIRE_MAKER: 0,
  EXPIRE_TAKER: 1,
  EXPIRE_BOTH: 2,
  NONE: 3,
  DECREMENT: 4,
  TRANSFER: 5,
} as const;
export type StpModeName = keyof typeof StpMode;
export type StpModeCode = (typeof StpMode)[StpModeName];
export const StpModeName = reverse(StpMode);
/** Codes a new order may carry. */
export const NEW_ORDER_STP_CODES: ReadonlySet<number> = new Set([0, 1, 2, 4, 5]);

/** Kline intervals with their length in ms (1M is calendar based; the value is 30 days for sizing only). */
export const KlineInterval = {
  '1m': 60_000,
  '3m': 180_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '2h': 7_200_000,
  '4h': 14_400_000,
  '6h': 21_600_000,
  '8h': 28_800_000,
  '12h': 43_200_000,
  '1d': 86_400_000,
  '3d': 259_200_000,
  '1w': 604_800_000,
  '1M': 2_592_000_000,
} as const;
export type KlineIntervalName = keyof typeof KlineInterval;
/** True when `s` is one of the spec's kline intervals. */
export function isKlineInterval(s: string): s is KlineIntervalName {
  return Object.prototype.hasOwnProperty.call(KlineInterval, s);
}

/** Withdraw status. */
export const WithdrawStatus = {
  EMAIL_SENT: 0,
  CANCELLED: 1,
  AWAITING_APPROVAL: 2,
  REJECTED: 3,
  PROCESSING: 4,
  FAILURE: 5,
  COMPLETED: 10,
} as const;
export type WithdrawStatusName = keyof typeof WithdrawStatus;
export type WithdrawStatusCode = (typeof WithdrawStatus)[WithdrawStatusName];
export const WithdrawStatusName = reverse(WithdrawStatus);

/** Deposit status. */
export const DepositStatus = { PENDING: 0, SUCCESS: 1 } as const;
export type DepositStatusName = keyof typeof DepositStatus;
export type DepositStatusCode = (typeof DepositStatus)[DepositStatusName];
export const DepositStatusName = reverse(DepositStatus);

/** Orders list type for GET /open/v1/orders. */
export const OrdersListType = { OPEN: 1, HISTORY: 2, ALL: -1 } as const;
export type OrdersListTypeName = keyof typeof OrdersListType;
export type OrdersListTypeCode = (typeof OrdersListType)[OrdersListTypeName];
export const OrdersListTypeName = reverse(OrdersListType);

/** Paging direction: prev ascends from the start id, next descends. */
export const Direct = { PREV: 'prev', NEXT: 'next' } as const;
export type DirectValue = (typeof Direct)[keyof typeof Direct];

/** Execution types of executionReport. REPLACED is currently unused. */
export const ExecutionType = {
  NEW: 'NEW',
  CANCELED: 'CANCELED',
  REPLACED: 'REPLACED',
  REJECTED: 'REJECTED',
  TRADE: 'TRADE',
  EXPIRED: 'EXPIRED',
} as const;
export type ExecutionTypeName = keyof typeof ExecutionType;

/** Expiry reasons (field expiryReason / `eR`). */
export const ExpiryReason = {
  NONE: 'NONE',
  EXECUTION_RULE_PRICE_RANGE_EXCEEDED: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED',
  SELF_TRADE_PREVENTION: 'SELF_TRADE_PREVENTION',
  TIME_IN_FORCE: 'TIME_IN_FORCE',
  OCO_OTHER_LEG: 'OCO_OTHER_LEG',
} as const;
export type ExpiryReasonName = keyof typeof ExpiryReason;

/** Filter types, symbol and exchange level. */
export const FilterType = {
  PRICE_FILTER: 'PRICE_FILTER',
  PERCENT_PRICE: 'PERCENT_PRICE',
  LOT_SIZE: 'LOT_SIZE',
  NOTIONAL: 'NOTIONAL',
  ICEBERG_PARTS: 'ICEBERG_PARTS',
  MARKET_LOT_SIZE: 'MARKET_LOT_SIZE',
  MAX_NUM_ORDERS: 'MAX_NUM_ORDERS',
  MAX_NUM_ALGO_ORDERS: 'MAX_NUM_ALGO_ORDERS',
  MAX_NUM_ICEBERG_ORDERS: 'MAX_NUM_ICEBERG_ORDERS',
  EXCHANGE_MAX_NUM_ORDERS: 'EXCHANGE_MAX_NUM_ORDERS',
  EXCHANGE_MAX_NUM_ALGO_ORDERS: 'EXCHANGE_MAX_NUM_ALGO_ORDERS',
} as const;
export type FilterTypeName = keyof typeof FilterType;

/** Reject reasons: one distinct code per filter or rule, shared by the risk checker and the matching engine. */
export const RejectReason = {
  NONE: 'NONE',
  // Each filter's rejection is named after the filter, so the two lists cannot drift apart.
  ...FilterType,
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  LIMIT_MAKER_WOULD_TAKE: 'LIMIT_MAKER_WOULD_TAKE',
  GTX_WOULD_TAKE: 'GTX_WOULD_TAKE',
  FOK_NOT_FILLABLE: 'FOK_NOT_FILLABLE',
  ICEBERG_NOT_GTC: 'ICEBERG_NOT_GTC',
  ICEBERG_DISABLED: 'ICEBERG_DISABLED',
  OCO_DISABLED: 'OCO_DISABLED',
  OCO_PRICE_RELATIONSHIP: 'OCO_PRICE_RELATIONSHIP',
  ORDER_TYPE_NOT_SUPPORTED: 'ORDER_TYPE_NOT_SUPPORTED',
  STP_MODE_NOT_ALLOWED: 'STP_MODE_NOT_ALLOWED',
  MISSING_PARAMETER: 'MISSING_PARAMETER',
  UNKNOWN_SYMBOL: 'UNKNOWN_SYMBOL',
  TRADING_DISABLED: 'TRADING_DISABLED',
  NO_MARKET_LIQUIDITY: 'NO_MARKET_LIQUIDITY',
  NO_REFERENCE_PRICE: 'NO_REFERENCE_PRICE',
  UNKNOWN_ORDER: 'UNKNOWN_ORDER',
  // Client-side reasons of the risk checker (user limits, trading states, rules checked before sending).
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  PRICE_RANGE: 'PRICE_RANGE',
  MAX_ORDER_NOTIONAL: 'MAX_ORDER_NOTIONAL',
  MAX_POSITION: 'MAX_POSITION',
  MAX_OPEN_ORDERS: 'MAX_OPEN_ORDERS',
  MAX_ORDER_RATE: 'MAX_ORDER_RATE',
  DAILY_LOSS_LIMIT: 'DAILY_LOSS_LIMIT',
  TRADING_HALTED: 'TRADING_HALTED',
  REDUCING_ONLY: 'REDUCING_ONLY',
  BOOK_NOT_READY: 'BOOK_NOT_READY',
} as const;
export type RejectReasonName = keyof typeof RejectReason;

/** Legacy /v1 order side. */
export const LegacySide = { BUY: 'buy', SELL: 'sell' } as const;
export type LegacySideValue = (typeof LegacySide)[keyof typeof LegacySide];

/** Legacy /v1 order type. */
export const LegacyOrderType = { LIMIT: 'limit', MARKET: 'market' } as const;
export type LegacyOrderTypeValue = (typeof LegacyOrderType)[keyof typeof LegacyOrderType];

/** Legacy /v1 POST /v1/order `submission` values. */
export const LegacySubmission = { CREATE: '1', CANCEL_ONE: '2', CANCEL_ALL: '3', CANCEL_SELECTED: '4' } as const;
export type LegacySubmissionValue = (typeof LegacySubmission)[keyof typeof LegacySubmission];

/** Legacy ticker `type` query value. */
export const LegacyTickerType = { HOURS: 'hours', DAYS: 'days' } as const;
export type LegacyTickerTypeValue = (typeof LegacyTickerType)[keyof typeof LegacyTickerType];

/** Legacy message codes that the spec lists. */
export const LegacyMessageCode = {
  GET_TRANSACTION_SUCCESS: 'get_transaction_success',
  GET_DEPOSIT_SUCCESS: 'get_deposit_success',
  GET_WITHDRAW_SUCCESS: 'get_withdraw_success',
  CREATE_CONVERSION_SUCCESS: 'create_conversion_success',
  GET_ACCOUNT_SUCCESS: 'get_account_success',
  CANCEL_ALL_ORDER_SUCCESS: 'cancel_all_order_success',
  GET_ALL_ACTIVE_ORDER_SUCCESS: 'get_all_active_order_success',
  GET_DETAIL_ORDER_SUCCESS: 'get_detail_order_success',
  GET_RATES_SUCCESS: 'get_rates_success',
  GET_TICKER_SUCCESS: 'get_ticker_success',
  GET_TICKERS_SUCCESS: 'get_tickers_success',
} as const;
export type LegacyMessageCodeValue = (typeof LegacyMessageCode)[keyof typeof LegacyMessageCode];

/** Legacy conversion currencies (POST /v1/stp). */
export const LEGACY_STP_CURRENCIES = ['btc', 'eth', 'xrp', 'dgx'] as const;
/** Legacy pairs the ticker endpoint accepts. */
export const LEGACY_TICKER_PAIRS = ['btcidr', 'xrpidr', 'ttcidr', 'gusdidr', 'usdtidr', 'tusdidr', 'paxidr', 'ethidr', 'dgxidr', 'usdcidr'] as const;
/** Legacy pairs the order book endpoint accepts. */
export const LEGACY_ORDERBOOK_PAIRS = ['btcidr', 'dgxidr', 'ethidr', 'xrpidr', 'ttcidr', 'tusdidr', 'paxidr', 'usdtidr', 'gusdidr', 'usdcidr'] as const;

/** Looks up a name by code, throwing a clear error for an unknown code. */
export function nameOf<M extends Record<string, string>>(map: M, mapName: string, code: number | string): M[keyof M] {
  const name = map[String(code) as keyof M];
  if (name === undefined) throw new RangeError(`unknown ${mapName} code ${JSON.stringify(code)}`);
  return name;
}
