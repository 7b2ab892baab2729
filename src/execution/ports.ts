/**
 * What the router needs from the two REST clients, as narrow structural interfaces. The real
 * OpenClient satisfies {@link OpenOrderPort} as is; the legacy client is wrapped by an adapter
 * (legacyAdapter.ts) because /v1 speaks pairs, lower-case sides and numbers. Tests use fakes.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderSideName, OrderTypeName, StpModeName, TimeInForceName } from '../core/enums.js';
import type { AccountInfo, AccountTrade, Order } from '../core/types.js';

/** New-order parameters the router sends (a subset of the client's). */
export interface RouterNewOrder {
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly type: OrderTypeName;
  readonly clientId: string;
  readonly timeInForce?: TimeInForceName;
  readonly quantity?: Decimal;
  readonly quoteOrderQty?: Decimal;
  readonly price?: Decimal;
  readonly stopPrice?: Decimal;
  readonly icebergQty?: Decimal;
  readonly selfTradePreventionMode?: StpModeName;
}

/** The open API calls the router uses. */
export interface OpenOrderPort {
  newOrder(p: RouterNewOrder): Promise<Order>;
  cancelOrder(p: { readonly orderId: string } | { readonly clientId: string }): Promise<Order>;
  orderDetail(p: { readonly orderId: string; readonly clientId?: string }): Promise<Order>;
  allOrders(p: {
    readonly symbol: string;
    readonly type?: 'OPEN' | 'HISTORY' | 'ALL';
    readonly startTime?: number;
    readonly limit?: number;
  }): Promise<Order[]>;
  accountTrades(p: { readonly symbol: string; readonly orderId?: string; readonly startTime?: number; readonly limit?: number }): Promise<AccountTrade[]>;
  account(): Promise<AccountInfo>;
  /** Cheap public call used as the half-open probe. */
  time(): Promise<number>;
}

/** An order as the legacy interface shows it, normalised by the adapter. */
export interface LegacyOrderView {
  readonly orderId: string;
  /** BASE_QUOTE form. */
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly type: 'LIMIT' | 'MARKET';
  readonly price: Decimal;
  readonly quantity: Decimal;
  readonly availableQuantity: Decimal;
  /** Raw legacy status text (active, fulfilled, cancelled, ...). */
  readonly status: string;
  readonly time: number;
}

/** Parameters of a legacy create (submission 1). */
export interface LegacyCreate {
  /** BASE_QUOTE form; the adapter maps BTC_IDR to currency btc. */
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly type: 'LIMIT' | 'MARKET';
  readonly quantity: Decimal;
  readonly price?: Decimal;
}

/** The legacy /v1 calls the router uses. Failures throw the core error classes like the open client. */
export interface LegacyOrderPort {
  /** Creates an order; resolves with its exchange orderId when the answer names one. */
  createOrder(p: LegacyCreate): Promise<{ readonly orderId: string | undefined }>;
  cancelOrder(orderId: string): Promise<void>;
  cancelOrders(orderIds: readonly string[]): Promise<void>;
  cancelAllOrders(): Promise<void>;
  activeOrders(): Promise<LegacyOrderView[]>;
  getOrder(orderId: string): Promise<LegacyOrderView>;
}
