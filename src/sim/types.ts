/**
 * Public input and output types of the matching engine. Inputs use core Decimals (parsed once at the
 * edge); the engine converts them to per-symbol scaled integers inside.
 */
import type { Decimal } from '../core/decimal.js';
import type {
  OrderSideName,
  OrderStatusName,
  RejectReasonName,
  StpModeName,
} from '../core/enums.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { Order, PriceRangeRule, SymbolInfo } from '../core/types.js';
import type { DecimalInput, NewOcoFields, NewOrderFields } from '../core/newOrder.js';

export type { DecimalInput };

/** One symbol the engine trades. */
export interface SimSymbolConfig {
  readonly info: SymbolInfo;
  /** PRICE_RANGE execution rule; applied only to symbol type 1, as the spec says. */
  readonly priceRange?: PriceRangeRule;
  /** Initial reference price for the PRICE_RANGE rule (null or absent: none). */
  readonly referencePrice?: Decimal | null;
  /** Initial last price (seeds PERCENT_PRICE, NOTIONAL averages and stop triggers before any trade). */
  readonly lastPrice?: Decimal;
  /**
   * Decimals the engine keeps for prices and quantities. Default: those of tickSize and stepSize.
   * Raise them when replayed data is finer than the filters (real books carry quantities below the
   * current stepSize); orders are still held to the filters.
   */
  readonly priceDecimals?: number;
  readonly quantityDecimals?: number;
}

/** One trading account. */
export interface SimAccountConfig {
  readonly id: string;
  /** Accounts sharing a tradeGroupId may use STP mode TRANSFER between each other. */
  readonly tradeGroupId?: string;
  /** Commission rates as fractions (0.001 = 0.1 %). */
  readonly makerCommission: Decimal;
  readonly takerCommission: Decimal;
  /** Initial free balances by asset. */
  readonly balances?: Readonly<Record<string, Decimal>>;
  /** False refuses every new order with TRADING_DISABLED; default true. */
  readonly canTrade?: boolean;
}

/** Engine configuration. */
export interface EngineConfig {
  readonly symbols: readonly SimSymbolConfig[];
  readonly exchangeFilters?: ExchangeFilters;
  readonly accounts: readonly SimAccountConfig[];
  /** First order id (default 1). */
  readonly firstOrderId?: number;
  /** First trade id (default 1): a non-negative safe integer; the engine counts ids as numbers. */
  readonly firstTradeId?: number;
  /** First order list id (default 1). */
  readonly firstOrderListId?: number;
  /** First depth update id (default 1). */
  readonly firstUpdateId?: number;
  /**
   * Whether events are buffered for `takeEvents()` (default true). With false and no subscriber,
   * events are not even built: the fastest mode, for callers that only read state.
   */
  readonly bufferEvents?: boolean;
  /**
   * How many ended (filled, canceled, expired) orders and own trades each account keeps per symbol
   * for history queries (allOrders, accountTrades, getOrder, cancel by id). Open orders are always
   * kept. Default Infinity: everything, as the exchange answers. A bound (e.g. 10,000, ten times the
   * largest page the spec serves) keeps long simulations from retaining every order they ever
   * placed; beyond it the oldest ended orders and trades are unknown to queries.
   */
  readonly historyLimit?: number;
  /**
   * How replayed trades and diffs fill own orders (README: the fill model). `kancil` (default): a
   * replayed trade uses up the replayed liquidity it took, and a trade a diff already reflects does
   * not shrink the queue again. `hftbacktest`: the replayed book is left as it is after a trade and
   * every trade shrinks the queue, as hftbacktest and Nautilus Trader do (results comparable to them).
   */
  readonly fillModel?: FillModelName;
  /** How a shrinking replayed level moves an own order's queue position (default riskAverse). */
  readonly queueModel?: QueueModelConfig;
}

/** Fill models of the engine (see EngineConfig.fillModel). */
export const FillModelNames = { kancil: 'kancil', hftbacktest: 'hftbacktest' } as const;
/** A fill model's name. */
export type FillModelName = keyof typeof FillModelNames;

/**
 * Queue position models. `riskAverse`: a level that shrinks takes the decrease from behind an own
 * order first (its queue ahead only falls to the new level quantity). `powerProb`: the decrease
 * comes from ahead of it with probability f(ahead) / (f(ahead) + f(behind)), f(x) = x^power
 * (hftbacktest's power-prob family); `power` an integer 1..10.
 */
export type QueueModelConfig = { readonly type: 'riskAverse' } | { readonly type: 'powerProb'; readonly power: number };

/**
 * A new order: the parameters of POST /open/v1/orders. Numbers are Decimals or plain decimal
 * strings straight off the wire (parsed here once, exactly, into the symbol's scaled integers).
 */
export interface NewOrderRequest extends NewOrderFields {
  readonly accountId: string;
  readonly stpMode?: StpModeName;
}

/** A new OCO list: a LIMIT_MAKER leg at `price` and a STOP_LOSS_LIMIT leg at `stopPrice`/`stopLimitPrice`. */
export interface OcoRequest extends NewOcoFields {
  readonly accountId: string;
  readonly stpMode?: StpModeName;
}

/** Cancel one order by orderId or clientId (orderId wins when both are given). */
export interface CancelRequest {
  readonly accountId: string;
  readonly symbol?: string;
  readonly orderId?: string | number;
  readonly clientId?: string;
}

/** A refused request: nothing changed. */
export interface Rejected {
  readonly ok: false;
  readonly reason: RejectReasonName;
  /** Names the field and value, e.g. `price 100.005 is not a multiple of tickSize 0.01`. */
  readonly message: string;
}

/** An accepted order; `order` is built on first access (the hot path only needs ids and status). */
export interface Accepted {
  readonly ok: true;
  readonly orderId: string;
  readonly clientId: string;
  readonly status: OrderStatusName;
  readonly order: SimOrder;
}

/** Outcome of placeOrder / cancelOrder. */
export type PlaceResult = Accepted | Rejected;

/** Outcome of placeOco. */
export type OcoResult = { readonly ok: true; readonly list: OrderListView } | Rejected;

/** Outcome of cancelOrder: the order after cancel (an OCO leg cancels its whole list). */
export type CancelResult = Accepted | Rejected;

/** An order as the engine reports it: the core Order plus what the sandbox needs beyond the wire. */
export interface SimOrder extends Order {
  readonly accountId: string;
  /** Quantity removed by self-trade prevention (DECREMENT / TRANSFER / expiry). */
  readonly preventedQty: Decimal;
  /** Last update time (ms). */
  readonly updateTime: number;
  /** -1 unless part of an OCO list. */
  readonly orderListId: number;
  readonly stpMode: StpModeName;
}

/** OCO list status as the spec shows it (other statuses are engine choices, see docs/sim-engine.md). */
export interface OrderListView {
  readonly orderListId: number;
  readonly listClientId: string;
  readonly symbol: string;
  readonly contingencyType: 'OCO';
  readonly listStatusType: 'EXEC_STARTED' | 'ALL_DONE';
  readonly listOrderStatus: 'EXECUTING' | 'ALL_DONE';
  readonly createTime: number;
  readonly updateTime: number;
  readonly orders: readonly SimOrder[];
}

/** Filters for allOrders (GET /open/v1/orders). */
export interface OrderQuery {
  /** open, history (closed) or all (default). */
  readonly which?: 'open' | 'history' | 'all';
  readonly side?: OrderSideName;
  readonly startTime?: number;
  readonly endTime?: number;
  /** Order id to start from (inclusive); `direct` prev ascends, next descends. */
  readonly fromId?: string | number;
  readonly direct?: 'prev' | 'next';
  /** Default 500, max 1000. */
  readonly limit?: number;
}

/** Filters for accountTrades (GET /open/v1/orders/trades). */
export interface TradeQuery {
  readonly orderId?: string | number;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly fromId?: number;
  readonly direct?: 'prev' | 'next';
  readonly limit?: number;
}

/**
 * One replayed level. Core BookLevels fit; so do the wire's plain decimal strings, which the engine
 * parses straight into its scaled integers (a replay need not build two Decimals per level).
 */
export interface ExternalLevel {
  readonly price: DecimalInput;
  readonly qty: DecimalInput;
}

/** A replayed depth snapshot or diff: absolute quantities per level; quantity 0 removes a level. */
export interface ExternalDepth {
  readonly bids: readonly ExternalLevel[];
  readonly asks: readonly ExternalLevel[];
  /**
   * The exchange time the book reflects (a diff's event time E), on the clock of the trades'
   * `time`: trades at or before it count as reflected (README: the fill model). Absent: `now`.
   */
  readonly time?: number;
}

/** A replayed public trade (Decimals or plain decimal strings). */
export interface ExternalTrade {
  readonly price: DecimalInput;
  readonly qty: DecimalInput;
  /** True when the buyer was the maker (a seller hit the bids). */
  readonly isBuyerMaker: boolean;
  /**
   * The trade's exchange time (ms), on the clock of the diffs' `now`: a trade at or before the last
   * applied diff is already reflected in the replayed book (README: the fill model). Absent: the
   * `now` it is applied at.
   */
  readonly time?: number;
}

/** Best bid and ask (null when that side is empty). */
export interface BestBidAsk {
  readonly bidPrice: Decimal | null;
  readonly bidQty: Decimal | null;
  readonly askPrice: Decimal | null;
  readonly askQty: Decimal | null;
}
