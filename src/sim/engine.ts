/**
 * The matching engine: per-symbol books with price-time priority, accounts with free/locked
 * balances, every order rule of the spec. Pure: no timers, no I/O, time passed in.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderBookSnapshot } from '../core/types.js';
import type { EngineEvent, EngineListener, TradeEvent } from './events.js';
import type {
  BestBidAsk,
  CancelRequest,
  CancelResult,
  EngineConfig,
  ExternalDepth,
  ExternalTrade,
  NewOrderRequest,
  OcoRequest,
  OcoResult,
  OrderListView,
  OrderQuery,
  PlaceResult,
  SimOrder,
  TradeQuery,
} from './types.js';
import type { AccountTrade, Balance } from '../core/types.js';

function notYet(): never {
  throw new Error('MatchingEngine: not implemented yet');
}

/** The matching engine. See src/sim/README.md for the rules and the replay queue model. */
export class MatchingEngine {
  constructor(readonly config: EngineConfig) {}
  /** Places an order; rejected requests change nothing and emit nothing. */
  placeOrder(_req: NewOrderRequest, _now: number): PlaceResult { return notYet(); }
  /** Places an OCO list. */
  placeOco(_req: OcoRequest, _now: number): OcoResult { return notYet(); }
  /** Cancels one order (an OCO leg cancels its whole list). */
  cancelOrder(_req: CancelRequest, _now: number): CancelResult { return notYet(); }
  /** Cancels every open order of the account (on one symbol, or all). Returns the canceled orders. */
  cancelAll(_accountId: string, _symbol: string | undefined, _now: number): SimOrder[] { return notYet(); }
  /** One order by id or clientId. */
  getOrder(_accountId: string, _q: { orderId?: string | number; clientId?: string }): SimOrder | undefined { return notYet(); }
  /** Open orders of an account. */
  openOrders(_accountId: string, _symbol?: string): SimOrder[] { return notYet(); }
  /** Orders of an account on a symbol, oldest first. */
  allOrders(_accountId: string, _symbol: string, _q?: OrderQuery): SimOrder[] { return notYet(); }
  /** The OCO list with this id. */
  getOrderList(_accountId: string, _orderListId: number): OrderListView | undefined { return notYet(); }
  /** Own trades of an account on a symbol, oldest first. */
  accountTrades(_accountId: string, _symbol: string, _q?: TradeQuery): AccountTrade[] { return notYet(); }
  /** Balances of an account (every asset it ever held). */
  balances(_accountId: string): Balance[] { return notYet(); }
  /** Deposit (positive) or withdrawal (negative) of free balance; rejected if it would go negative. */
  adjustBalance(_accountId: string, _asset: string, _delta: Decimal, _now: number): { ok: true } | { ok: false; message: string } { return notYet(); }
  /** Visible book (own + replayed liquidity), best first. */
  depth(_symbol: string, _limit?: number): OrderBookSnapshot { return notYet(); }
  /** Most recent public trades, oldest first. */
  recentTrades(_symbol: string, _limit?: number): TradeEvent[] { return notYet(); }
  /** Best bid and ask. */
  bestBidAsk(_symbol: string): BestBidAsk { return notYet(); }
  /** Last trade price (null before any trade or seed). */
  lastPrice(_symbol: string): Decimal | null { return notYet(); }
  /** Volume-weighted average trade price over the last `mins` minutes (0: last price); null when no trade. */
  averagePrice(_symbol: string, _mins: number, _now: number): Decimal | null { return notYet(); }
  /** Sets or clears the PRICE_RANGE reference price. */
  setReferencePrice(_symbol: string, _price: Decimal | null, _now: number): void { return notYet(); }
  /** Replaces the replayed liquidity with a snapshot. */
  applyDepthSnapshot(_symbol: string, _snapshot: ExternalDepth, _now: number): void { return notYet(); }
  /** Applies a replayed depth diff (absolute quantities). */
  applyDepthDiff(_symbol: string, _diff: ExternalDepth, _now: number): void { return notYet(); }
  /** Applies a replayed public trade: fills own orders it proves would have traded. */
  applyTrade(_symbol: string, _trade: ExternalTrade, _now: number): void { return notYet(); }
  /** Subscribes a synchronous listener; returns the unsubscribe function. */
  subscribe(_listener: EngineListener): () => void { return notYet(); }
  /** Drains buffered events (when bufferEvents is not false). */
  takeEvents(): EngineEvent[] { return notYet(); }
}
