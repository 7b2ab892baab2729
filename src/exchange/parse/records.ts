/**
 * Client-side result records of the open API that core/types.ts does not hold
 * (wallet, OCO, listen token, system config, execution rules).
 */
import type { Decimal, Order, PriceRangeRule, SymbolTypeCode, WithdrawStatusName, DepositStatusName } from '../../core/index.js';

/** An OCO order list. Status strings are kept as sent: the spec names only the observed values. */
export interface OcoOrderList {
  readonly bOrderListId: string;
  readonly listClientId: string;
  readonly symbol: string;
  readonly symbolType?: SymbolTypeCode;
  readonly contingencyType: string;
  readonly listStatusType: string;
  readonly listOrderStatus: string;
  readonly createTime: number;
  readonly orders: readonly Order[];
}

/** A withdrawal. */
export interface WithdrawRecord {
  readonly id: string;
  readonly clientId: string;
  readonly asset: string;
  readonly network: string;
  readonly address: string;
  readonly amount: Decimal;
  readonly fee: Decimal;
  /** Empty until the chain transaction exists. */
  readonly txId: string;
  readonly status: WithdrawStatusName;
  readonly createTime: number;
}

/** A deposit. */
export interface DepositRecord {
  readonly id: string;
  readonly asset: string;
  readonly network: string;
  readonly address: string;
  readonly addressTag: string;
  readonly txId: string;
  readonly amount: Decimal;
  readonly status: DepositStatusName;
  readonly insertTime: number;
}

/** A deposit address. */
export interface DepositAddress {
  readonly address: string;
  readonly addressTag: string;
  readonly asset: string;
}

/** Result of POST /open/v1/withdraws, with the clientId we sent so it can be reconciled. */
export interface WithdrawAck {
  readonly withdrawId: string;
  readonly clientId: string;
}

/** A user listen token for the WebSocket API. */
export interface ListenToken {
  readonly token: string;
  readonly expirationTime: number;
}

/** Execution rules: one PRICE_RANGE rule per symbol (other rule types are kept raw). */
export interface ExecutionRules {
  readonly priceRange: readonly PriceRangeRule[];
  /** Rules of types this client does not know, kept so nothing is silently dropped. */
  readonly other: readonly { readonly symbol: string; readonly rule: Readonly<Record<string, unknown>> }[];
}

/** The parts of GET /v1/common/system-config a client needs. */
export interface SystemConfig {
  /** The WebSocket API address (field ending with WssApiBaseUrl), if present. */
  readonly wsApiUrl: string | undefined;
  /** Alternative addresses (field ending with WssApiBaseUrlList). */
  readonly wsApiUrlList: readonly string[];
  /** The whole payload, since the spec does not show it. */
  readonly raw: unknown;
}
