/**
 * Typed market and user-data events, shared by the stream client (exchange/stream), the
 * simulator, the bus and strategies. Decimals are parsed once at the edge. Every event has a
 * `type` tag and `E`, the exchange event time in ms (for replays: the recorded event time).
 */
import type { Decimal } from './decimal.js';
import type {
  ExecutionTypeName,
  ExpiryReasonName,
  KlineIntervalName,
  OrderSideName,
  OrderStatusName,
  OrderTypeName,
  TimeInForceName,
} from './enums.js';
import type { TradeId } from './tradeId.js';
import type { Balance, BookLevel } from './types.js';

/**
 * A public trade (`<symbol>@trade`). Ids are exact decimal strings ({@link TradeId}): they are
 * 64-bit on the wire and would lose digits as numbers past 2^53.
 */
export interface TradeEvent {
  readonly type: 'trade';
  readonly E: number;
  readonly symbol: string;
  readonly tradeId: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly buyerOrderId?: string;
  readonly sellerOrderId?: string;
  readonly tradeTime: number;
  readonly isBuyerMaker: boolean;
}

/** An aggregate trade (`<symbol>@aggTrade`); ids are exact decimal strings ({@link TradeId}). */
export interface AggTradeEvent {
  readonly type: 'aggTrade';
  readonly E: number;
  readonly symbol: string;
  readonly aggId: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly firstTradeId: TradeId;
  readonly lastTradeId: TradeId;
  readonly tradeTime: number;
  readonly isBuyerMaker: boolean;
}

/** A candle update (`<symbol>@kline_<interval>`); `closed` marks the final update of the bar. */
export interface KlineEvent {
  readonly type: 'kline';
  readonly E: number;
  readonly symbol: string;
  readonly interval: KlineIntervalName;
  readonly openTime: number;
  readonly closeTime: number;
  /** First and last trade ids of the bar ({@link TradeId}); undefined when it has none (the wire's -1) or the source has no ids. */
  readonly firstTradeId: TradeId | undefined;
  readonly lastTradeId: TradeId | undefined;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  readonly volume: Decimal;
  readonly quoteVolume: Decimal;
  readonly trades: number;
  readonly takerBuyBaseVolume: Decimal;
  readonly takerBuyQuoteVolume: Decimal;
  readonly closed: boolean;
  /**
   * The close as the nearest binary double, when the source has it cheaply (the candle reader
   * does). For indicators only, never for order rules: prices that decide orders stay `close`.
   */
  readonly closeNumber?: number;
  /** The open, high and low as nearest doubles, when the source has them cheaply: for charts and indicators only. */
  readonly openNumber?: number;
  readonly highNumber?: number;
  readonly lowNumber?: number;
}

/** 24-hour rolling mini ticker (`<symbol>@miniTicker`, and each element of `!miniTicker@arr`). */
export interface MiniTickerEvent {
  readonly type: 'miniTicker';
  readonly E: number;
  readonly symbol: string;
  readonly close: Decimal;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly volume: Decimal;
  readonly quoteVolume: Decimal;
}

/** Diff depth (`<symbol>@depth[@100ms]`): absolute quantities, 0 removes a level. */
export interface DepthDiffEvent {
  readonly type: 'depthDiff';
  readonly E: number;
  readonly symbol: string;
  readonly firstUpdateId: number;
  readonly finalUpdateId: number;
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
}

/** Partial depth (`<symbol>@depth<5|10|20>[@100ms]`). The payload has no E: local receive time is used. */
export interface PartialDepthEvent {
  readonly type: 'partialDepth';
  readonly E: number;
  readonly symbol: string;
  readonly levels: 5 | 10 | 20;
  readonly lastUpdateId: number;
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
}

/** Best bid/ask (`<symbol>@bookTicker`, present in the recordings). E is local receive time when absent. */
export interface BookTickerEvent {
  readonly type: 'bookTicker';
  readonly E: number;
  readonly symbol: string;
  readonly updateId: number;
  readonly bidPrice: Decimal;
  readonly bidQty: Decimal;
  readonly askPrice: Decimal;
  readonly askQty: Decimal;
}

/** Order update from the user data stream (executionReport), every field of the spec. */
export interface ExecutionReportEvent {
  readonly type: 'executionReport';
  readonly E: number;
  readonly symbol: string;
  /** c: the order's client id. */
  readonly clientId: string;
  readonly side: OrderSideName;
  readonly orderType: OrderTypeName;
  readonly timeInForce: TimeInForceName | undefined;
  readonly quantity: Decimal;
  readonly price: Decimal;
  readonly stopPrice: Decimal;
  readonly icebergQty: Decimal;
  /** C: original client id of the order being cancelled ('' when none). */
  readonly origClientId: string;
  readonly executionType: ExecutionTypeName;
  readonly status: OrderStatusName;
  /** r: reject reason code, 'NONE' when none. */
  readonly rejectReason: string;
  /** i: match-engine order id. */
  readonly orderId: string;
  readonly lastQty: Decimal;
  readonly cumQty: Decimal;
  readonly lastPrice: Decimal;
  readonly commission: Decimal;
  readonly commissionAsset: string | null;
  readonly transactionTime: number;
  /** t: the fill's trade id as exact digits ({@link TradeId}); undefined when the report is not a fill (the wire's -1). */
  readonly tradeId: TradeId | undefined;
  readonly isWorking: boolean;
  readonly isMaker: boolean;
  readonly orderCreationTime: number;
  readonly cumQuoteQty: Decimal;
  readonly lastQuoteQty: Decimal;
  readonly expiryReason: ExpiryReasonName | undefined;
}

/** Balance update from the user data stream (outboundAccountPosition). */
export interface AccountPositionEvent {
  readonly type: 'accountPosition';
  readonly E: number;
  readonly lastUpdateTime: number;
  readonly balances: readonly Balance[];
}

/** A listen-token subscription ended without renewal. */
export interface StreamTerminatedEvent {
  readonly type: 'streamTerminated';
  readonly E: number;
  readonly subscriptionId: number;
}

/** Connection status of a stream connection; `resyncing` while state is being rebuilt. */
export interface ConnectionStatusEvent {
  readonly type: 'connection';
  readonly E: number;
  /** Which connection: e.g. 'market:type1', 'user:type3'. */
  readonly connection: string;
  readonly status: 'up' | 'down' | 'resyncing';
  readonly reason?: string;
}

/** A local order book became ready or not ready (gap, reconnect, stale stream). */
export interface BookStatusEvent {
  readonly type: 'bookStatus';
  readonly E: number;
  readonly symbol: string;
  readonly ready: boolean;
  readonly reason: string;
}

/** User data may have been missed (reconnect, token renewal failure): the router must reconcile. */
export interface ReconcileNeededEvent {
  readonly type: 'reconcileNeeded';
  readonly E: number;
  readonly reason: string;
}

/** Public market events. */
export type MarketEvent =
  | TradeEvent
  | AggTradeEvent
  | KlineEvent
  | MiniTickerEvent
  | DepthDiffEvent
  | PartialDepthEvent
  | BookTickerEvent;

/** User data events. */
export type UserDataEvent = ExecutionReportEvent | AccountPositionEvent | StreamTerminatedEvent;

/** Health events of the data side. */
export type DataStatusEvent = ConnectionStatusEvent | BookStatusEvent | ReconcileNeededEvent;
