/**
 * Domain types shared by the client side, the simulator and the pipeline.
 * Decimal values are parsed once from wire strings; nothing here does I/O.
 */
import type { Decimal } from './decimal.js';
import type {
  OrderSideName,
  OrderStatusName,
  OrderTypeName,
  StpModeName,
  SymbolTypeCode,
  TimeInForceName,
  KlineIntervalName,
  ExpiryReasonName,
} from './enums.js';
import type { SymbolFilters } from './filters.js';
import type { TradeId } from './tradeId.js';

/** A tradable symbol with parsed filters. */
export interface SymbolInfo {
  readonly type: SymbolTypeCode;
  /** BASE_QUOTE form. */
  readonly symbol: string;
  readonly baseAsset: string;
  readonly quoteAsset: string;
  readonly basePrecision: number;
  readonly quotePrecision: number;
  readonly filters: SymbolFilters;
  readonly orderTypes: readonly OrderTypeName[];
  readonly defaultSelfTradePreventionMode: StpModeName;
  readonly allowedSelfTradePreventionModes: readonly StpModeName[];
  readonly icebergEnable: boolean;
  readonly ocoEnable: boolean;
  readonly spotTradingEnable: boolean;
  readonly marginTradingEnable: boolean;
}

/** PRICE_RANGE execution rule: limits relative to the reference price; absent multipliers are unset. */
export interface PriceRangeRule {
  readonly symbol: string;
  readonly bidLimitMultUp?: Decimal;
  readonly bidLimitMultDown?: Decimal;
  readonly askLimitMultUp?: Decimal;
  readonly askLimitMultDown?: Decimal;
}

/** Reference price of a symbol (null when none is set). */
export interface ReferencePrice {
  readonly symbol: string;
  readonly referencePrice: Decimal | null;
  readonly timestamp: number;
  readonly calculationType?: 'ARITHMETIC_MEAN' | 'EXTERNAL';
  readonly externalCalculationId?: number;
}

/** One price level. */
export interface BookLevel {
  readonly price: Decimal;
  readonly qty: Decimal;
}

/** A REST order book snapshot. */
export interface OrderBookSnapshot {
  readonly lastUpdateId: number;
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
}

/** An order as the exchange reports it. */
export interface Order {
  readonly orderId: string;
  readonly clientId: string;
  readonly symbol: string;
  readonly symbolType?: SymbolTypeCode;
  readonly side: OrderSideName;
  readonly type: OrderTypeName;
  readonly timeInForce?: TimeInForceName;
  readonly status: OrderStatusName;
  readonly price: Decimal;
  readonly origQty: Decimal;
  readonly origQuoteQty: Decimal;
  readonly executedQty: Decimal;
  readonly executedPrice: Decimal;
  readonly executedQuoteQty: Decimal;
  readonly stopPrice: Decimal;
  readonly icebergQty: Decimal;
  readonly bOrderId?: string;
  readonly bOrderListId?: string;
  readonly isWorking?: boolean;
  readonly createTime: number;
  readonly expiryReason?: ExpiryReasonName;
  readonly taxFee?: Decimal;
  readonly taxFeeAsset?: string;
}

/** A public trade; `id` keeps every digit ({@link TradeId}). */
export interface PublicTrade {
  readonly id: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly time: number;
  readonly isBuyerMaker: boolean;
  readonly isBestMatch: boolean;
}

/** An aggregate trade; its ids keep every digit ({@link TradeId}). */
export interface AggTrade {
  readonly aggId: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly firstTradeId: TradeId;
  readonly lastTradeId: TradeId;
  readonly time: number;
  readonly isBuyerMaker: boolean;
  readonly isBestMatch: boolean;
}

/** One candle. */
export interface Kline {
  readonly openTime: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  readonly volume: Decimal;
  readonly closeTime: number;
  readonly quoteVolume: Decimal;
  readonly trades: number;
  readonly takerBuyBaseVolume: Decimal;
  readonly takerBuyQuoteVolume: Decimal;
  readonly interval?: KlineIntervalName;
}

/** One asset balance. */
export interface Balance {
  readonly asset: string;
  readonly free: Decimal;
  readonly locked: Decimal;
}

/** Account information. */
export interface AccountInfo {
  readonly makerCommission: Decimal;
  readonly takerCommission: Decimal;
  readonly buyerCommission: Decimal;
  readonly sellerCommission: Decimal;
  readonly canTrade: boolean;
  readonly canWithdraw: boolean;
  readonly canDeposit: boolean;
  readonly balances: readonly Balance[];
}

/** One of the account's own trades; `tradeId` keeps every digit ({@link TradeId}). */
export interface AccountTrade {
  readonly tradeId: TradeId;
  readonly orderId: string;
  readonly symbol: string;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly quoteQty: Decimal;
  readonly commission: Decimal;
  readonly commissionAsset: string;
  readonly matchId?: string;
  readonly isBuyer: boolean;
  readonly isMaker: boolean;
  readonly isBestMatch: boolean;
  readonly taxAmount?: Decimal;
  readonly taxRate?: Decimal;
  readonly time: number;
}
