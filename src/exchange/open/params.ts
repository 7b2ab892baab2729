/** Typed request parameters of the open API client. */
import type {
  DirectValue,
  KlineIntervalName,
  NewOcoFields,
  NewOrderFields,
  OrderSideName,
  OrdersListTypeName,
  StpModeName,
  SymbolTypeCode,
  WithdrawStatusName,
  DepositStatusName,
} from '../../core/index.js';
import type { DecimalInput, IdInput } from './validate.js';

/** Depth limits accepted: the spec's set 5..500, plus 1000 (its own order-book procedure asks for it) and the stated max 5000. */
export const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000, 5000] as const;
/** A depth limit. */
export type DepthLimit = (typeof DEPTH_LIMITS)[number];

/** Common to routed market-data calls. */
export interface MarketParams {
  /** BASE_QUOTE form; the client respells it for the host. */
  readonly symbol: string;
  readonly symbolType: SymbolTypeCode;
}

/** GET depth. */
export interface DepthParams extends MarketParams {
  readonly limit?: DepthLimit;
}

/** GET trades. `fromId` is a trade id (up to 20 digits: pass a string or bigint past 2^53). */
export interface TradesParams extends MarketParams {
  readonly fromId?: IdInput;
  readonly limit?: number;
}

/** GET aggTrades. `fromId` is an aggregate trade id (up to 20 digits). */
export interface AggTradesParams extends MarketParams {
  readonly fromId?: IdInput;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly limit?: number;
}

/** GET klines. */
export interface KlinesParams extends MarketParams {
  readonly interval: KlineIntervalName;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly limit?: number;
}

/** GET executionRules: at most one of the three. */
export interface ExecutionRulesParams {
  readonly symbol?: string;
  readonly symbols?: readonly string[];
  readonly symbolStatus?: 'TRADING' | 'HALT' | 'BREAK';
}

/** Per-call signing option. */
export interface SignedOptions {
  /** Overrides the client's recvWindow (max 60000). */
  readonly recvWindow?: number;
}

/** POST /open/v1/orders: core's new-order fields with the wire's STP field name. */
export interface NewOrderParams extends NewOrderFields, SignedOptions {
  readonly selfTradePreventionMode?: StpModeName;
}

/** GET /open/v1/orders/detail. */
export interface OrderDetailParams extends SignedOptions {
  readonly orderId: IdInput;
  readonly clientId?: string;
}

/** POST /open/v1/orders/cancel: by orderId or by clientId. */
export type CancelOrderParams = SignedOptions & ({ readonly orderId: IdInput; readonly clientId?: undefined } | { readonly clientId: string; readonly orderId?: undefined });

/** GET /open/v1/orders. `direct` is required with `fromId`. */
export interface AllOrdersParams extends SignedOptions {
  readonly symbol: string;
  readonly type?: OrdersListTypeName;
  readonly side?: OrderSideName;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly fromId?: IdInput;
  readonly direct?: DirectValue;
  readonly limit?: number;
}

/** POST /open/v1/orders/oco. */
export interface NewOcoParams extends NewOcoFields, SignedOptions {}

/** GET /open/v1/orders/trades. */
export interface AccountTradesParams extends SignedOptions {
  readonly symbol: string;
  readonly orderId?: IdInput;
  readonly startTime?: number;
  readonly endTime?: number;
  /** A trade id (up to 20 digits). */
  readonly fromId?: IdInput;
  readonly direct?: DirectValue;
  readonly limit?: number;
  /** 10 = trading-fee calculation complete. */
  readonly rebateStatus?: number;
}

/** POST /open/v1/withdraws. */
export interface WithdrawParams extends SignedOptions {
  readonly asset: string;
  readonly address: string;
  readonly amount: DecimalInput;
  readonly network?: string;
  readonly addressTag?: string;
  /** Generated when absent so a withdrawal with an unknown outcome can be found again. */
  readonly clientId?: string;
}

/** GET /open/v1/withdraws. */
export interface WithdrawHistoryParams extends SignedOptions {
  readonly asset?: string;
  readonly status?: WithdrawStatusName;
  readonly fromId?: number;
  readonly startTime?: number;
  readonly endTime?: number;
}

/** GET /open/v1/deposits. */
export interface DepositsParams extends SignedOptions {
  readonly asset?: string;
  readonly status?: DepositStatusName;
  readonly fromId?: number;
  readonly startTime?: number;
  readonly endTime?: number;
}

/** GET /open/v1/deposits/address. */
export interface DepositAddressParams extends SignedOptions {
  readonly asset: string;
  readonly network: string;
}
