/**
 * The matching engine: per-symbol books with price-time priority, accounts with free/locked
 * balances, every order rule of the spec. Pure: no timers, no I/O, no randomness, time passed in.
 *
 * Hot-path arithmetic is on scaled integers (see scaled.ts); balances are bigints at a per-asset
 * scale wide enough for exact notionals and commissions. The rules and the fill model are written
 * down in src/sim/README.md.
 *
 * Composed of parts, each in its own file, all sharing one EngineState (symbols, accounts, the
 * order index, the clock):
 *   EventSink (eventSink.ts)        builds the events someone subscribed to
 *   Ledger (ledger.ts)              locks, fills and commissions, an order's end
 *   Matcher (matching.ts)           a working order against the book, self-trade prevention
 *   StopOrders (stops.ts)           stop orders and OCO lists
 *   OrderEntry (placing.ts)         placeOrder, cancels
 *   Queries (queries.ts)            views, deposits, the reference price
 *   ReplayedLiquidity (replayed.ts) recorded depth and trades, with the QueueModel (queueModel.ts)
 *                                   and the FillModel (fillModel.ts) the config chooses
 * This class only builds them and hands each public call to its part. Latency is not the
 * engine's: the simulated venue (src/venue/latency.ts) delays requests and reports around it.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderStatusName, RejectReasonName } from '../core/enums.js';
import type { FlatDepthLevels, ScaledLevels } from '../core/scaledLevels.js';
import type { AccountTrade, Balance, OrderBookSnapshot } from '../core/types.js';
import { EngineState } from './engineState.js';
import type { EngineEvent, EngineListener, ScaledEngineListener, ScaledSubscribeOptions, TradeEvent, WireSubscribeOptions } from './events.js';
import { EventSink } from './eventSink.js';
import { fillModelOf } from './fillModel.js';
import { Ledger } from './ledger.js';
import { Matcher } from './matching.js';
import { OrderEntry } from './placing.js';
import { Queries } from './queries.js';
import { queueModelOf } from './queueModel.js';
import { ReplayedLiquidity } from './replayed.js';
import { StopOrders } from './stops.js';
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

export { stopReached } from './stops.js';

/** The matching engine. See src/sim/README.md for the rules and the fill model. */
export class MatchingEngine {
  private readonly events: EventSink;
  private readonly stops: StopOrders;
  private readonly entry: OrderEntry;
  private readonly queries: Queries;
  private readonly replayed: ReplayedLiquidity;

  constructor(config: EngineConfig) {
    const fills = fillModelOf(config.fillModel);
    const queue = queueModelOf(config.queueModel);
    const state = new EngineState(config);
    const events = new EventSink(state, config.bufferEvents !== false);
    const ledger = new Ledger(state, events);
    const matcher = new Matcher(state, events, ledger);
    const stops = new StopOrders(state, events, ledger, matcher);
    ledger.listLegs = stops;
    this.events = events;
    this.stops = stops;
    this.entry = new OrderEntry(state, events, ledger, matcher, stops);
    this.queries = new Queries(state, events);
    this.replayed = new ReplayedLiquidity(state, events, ledger, stops, queue, fills);
  }

  /**
   * Subscribes a synchronous listener; returns the unsubscribe function. With `{ marketData: false }`
   * the listener gets only account events (executionReport, outboundAccountPosition, listStatus),
   * and while no buffer or other listener wants market data, trade, depthUpdate and referencePrice
   * events are not even built. The events a listener does get are the same either way. With
   * `{ reports: 'scaled' }` its executionReports come as ScaledExecutionReport (events.ts), and the
   * wire reports' strings are built only while a buffer or another listener wants them.
   */
  subscribe(listener: ScaledEngineListener, options: ScaledSubscribeOptions): () => void;

  subscribe(listener: EngineListener, options?: WireSubscribeOptions): () => void;

  subscribe(listener: EngineListener | ScaledEngineListener, options?: WireSubscribeOptions | ScaledSubscribeOptions): () => void {
    return this.events.subscribe(listener as EngineListener, options as WireSubscribeOptions);
  }

  /** Drains buffered events (empty when bufferEvents is false). */
  takeEvents(): EngineEvent[] {
    return this.events.takeEvents();
  }

  /** Places an order; rejected requests change nothing and emit nothing. */
  placeOrder(req: NewOrderRequest, now: number): PlaceResult {
    return this.entry.placeOrder(req, now);
  }

  /** Places an OCO list. */
  placeOco(req: OcoRequest, now: number): OcoResult {
    return this.stops.placeOco(req, now);
  }

  /** The OCO list with this id. */
  getOrderList(accountId: string, orderListId: number): OrderListView | undefined {
    return this.stops.getOrderList(accountId, orderListId);
  }

  /** Cancels one order (an OCO leg cancels its whole list). */
  cancelOrder(req: CancelRequest, now: number): CancelResult {
    return this.entry.cancelOrder(req, now);
  }

  /** Rejects an accepted order that has not traded yet (the exchange refusing it after the ack; see OrderEntry.rejectAccepted). */
  rejectAccepted(req: CancelRequest, reason: RejectReasonName, now: number): CancelResult {
    return this.entry.rejectAccepted(req, reason, now);
  }

  /** Cancels every open order of the account (on one symbol, or all). Returns the canceled orders. */
  cancelAll(accountId: string, symbol: string | undefined, now: number): SimOrder[] {
    return this.entry.cancelAll(accountId, symbol, now);
  }

  /** One order by id or clientId. */
  getOrder(accountId: string, q: { orderId?: string | number; clientId?: string; symbol?: string }): SimOrder | undefined {
    return this.queries.getOrder(accountId, q);
  }

  /** One order's status by id or clientId (getOrder's `status`, no view built). */
  orderStatus(accountId: string, q: { orderId?: string | number; clientId?: string; symbol?: string }): OrderStatusName | undefined {
    return this.queries.orderStatus(accountId, q);
  }

  /** What the id index and the lock/cumulative-quote columns hold (Queries.orderSlots). */
  orderSlots(): { readonly first: number; readonly index: number; readonly capacity: number } {
    return this.queries.orderSlots();
  }

  /** Open orders of an account, oldest first. */
  openOrders(accountId: string, symbol?: string): SimOrder[] {
    return this.queries.openOrders(accountId, symbol);
  }

  /** Orders of an account on a symbol, oldest first, filtered as GET /open/v1/orders does. */
  allOrders(accountId: string, symbol: string, q: OrderQuery = {}): SimOrder[] {
    return this.queries.allOrders(accountId, symbol, q);
  }

  /** Own trades of an account on a symbol, oldest first. */
  accountTrades(accountId: string, symbol: string, q: TradeQuery = {}): AccountTrade[] {
    return this.queries.accountTrades(accountId, symbol, q);
  }

  /** Balances of an account (every asset it ever held), sorted by asset. */
  balances(accountId: string): Balance[] {
    return this.queries.balances(accountId);
  }

  /** Commission rates and trading permission of an account (for the account endpoint). */
  accountInfo(accountId: string): { makerCommission: Decimal; takerCommission: Decimal; canTrade: boolean; tradeGroupId?: string } | undefined {
    return this.queries.accountInfo(accountId);
  }

  /** Account ids, in configuration order. */
  accountIds(): string[] {
    return this.queries.accountIds();
  }

  /** Symbols, in configuration order. */
  symbolNames(): string[] {
    return this.queries.symbolNames();
  }

  /** Deposit (positive) or withdrawal (negative) of free balance; refused if it would go negative or has too many decimals. */
  adjustBalance(accountId: string, asset: string, delta: Decimal, now: number): { ok: true } | { ok: false; message: string } {
    return this.queries.adjustBalance(accountId, asset, delta, now);
  }

  /** Visible book (own + replayed liquidity), best first, at most `limit` levels a side (default 100). */
  depth(symbol: string, limit = 100): OrderBookSnapshot {
    return this.queries.depth(symbol, limit);
  }

  /** The current depth update id of a symbol (the last emitted diff's u). */
  lastUpdateId(symbol: string): number {
    return this.queries.lastUpdateId(symbol);
  }

  /** Most recent public trades (own matches and replayed), oldest first. */
  recentTrades(symbol: string, limit = 500): TradeEvent[] {
    return this.queries.recentTrades(symbol, limit);
  }

  /** Best bid and ask. */
  bestBidAsk(symbol: string): BestBidAsk {
    return this.queries.bestBidAsk(symbol);
  }

  /** Last trade price (null before any trade or seed). */
  lastPrice(symbol: string): Decimal | null {
    return this.queries.lastPrice(symbol);
  }

  /** Volume-weighted average trade price over the last `mins` minutes (0 or no trade in the window: last price). */
  averagePrice(symbol: string, mins: number, now: number): Decimal | null {
    return this.queries.averagePrice(symbol, mins, now);
  }

  /** The reference price of the PRICE_RANGE rule (null when none). */
  referencePrice(symbol: string): Decimal | null {
    return this.queries.referencePrice(symbol);
  }

  /** Sets or clears the PRICE_RANGE reference price. */
  setReferencePrice(symbol: string, price: Decimal | null, now: number): void {
    this.queries.setReferencePrice(symbol, price, now);
  }

  /** Replaces the replayed liquidity with a snapshot (own orders stay, behind at most the new level quantity). */
  applyDepthSnapshot(symbol: string, snapshot: ExternalDepth, now: number): void {
    this.replayed.applyDepthSnapshot(symbol, snapshot, now);
  }

  /** applyDepthSnapshot for scaled levels; false, having done nothing, when a level does not fit (ReplayedLiquidity.applyDepthSnapshotScaled). */
  applyDepthSnapshotScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): boolean {
    return this.replayed.applyDepthSnapshotScaled(symbol, bids, asks, now);
  }

  /** Applies a replayed depth diff (absolute quantities; 0 removes the replayed part of a level). */
  applyDepthDiff(symbol: string, diff: ExternalDepth, now: number): void {
    this.replayed.applyDepthDiff(symbol, diff, now);
  }

  /** applyDepthDiff for levels parsed into scaled integers already (ReplayedLiquidity.applyDepthDiffScaled). */
  applyDepthDiffScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): void {
    this.replayed.applyDepthDiffScaled(symbol, bids, asks, now);
  }

  /** applyDepthDiffScaled for a binary recording's levels where its reader left them (ReplayedLiquidity.applyDepthDiffFlat). */
  applyDepthDiffFlat(symbol: string, f: FlatDepthLevels, now: number): void {
    this.replayed.applyDepthDiffFlat(symbol, f, now);
  }

  /** Applies a replayed public trade; `time`: its exchange time (ReplayedLiquidity.applyTrade). */
  applyTrade(symbol: string, trade: ExternalTrade, now: number, time = trade.time ?? now): void {
    this.replayed.applyTrade(symbol, trade, now, time);
  }

  /** applyTrade for a scaled price and quantity; false, having done nothing, when they do not fit (ReplayedLiquidity.applyTradeScaled). */
  applyTradeScaled(symbol: string, price: number, priceScale: number, qty: number, qtyScale: number, isBuyerMaker: boolean, now: number, time = now): boolean {
    return this.replayed.applyTradeScaled(symbol, price, priceScale, qty, qtyScale, isBuyerMaker, now, time);
  }
}
