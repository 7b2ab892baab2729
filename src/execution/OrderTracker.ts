/**
 * Follows every order of the run through PENDING -> NEW -> PARTIALLY_FILLED -> FILLED / CANCELED /
 * REJECTED / EXPIRED, and UNKNOWN, from REST answers, executionReports and polling. Every change is
 * written to the ledger first, then published as an orderUpdate (and fill) event; but a report's
 * change that carries no fill (NEW with its orderId, EXPIRED, CANCELED, REJECTED) is published at
 * once and committed with the ledger's next write or at the end of the turn (Ledger.queueUpdate):
 * nothing the strategy does on hearing it reaches the ledger, or the exchange, before it, and a
 * crash before that commit leaves what restart reconciliation resolves from the exchange.
 *
 * Idempotent: duplicated or reordered reports never move an order backwards, cumulative quantities
 * only grow, and a fill is counted once per (orderId, tradeId) whichever path reported it.
 *
 * An exchange fill that contradicts itself, its order or its symbol (fillCheck.ts) is quarantined:
 * kept in the ledger's quarantine table, counted, logged and announced to `onQuarantine`
 * listeners (the router reconciles the order over REST), never stored as a fill or published.
 * An order snapshot that contradicts itself or the order (orderCheck.ts) is quarantined the same
 * way and its status and totals ignored; a placement answer so refused leaves the order UNKNOWN,
 * to be found by clientId like any placement whose outcome is unclear.
 *
 * An update whose executed quantity is ahead of the fills recorded for the order is published
 * only once they are (fillGate.ts): strategies hear fills before the order's close, in every mode.
 */
import type { Clock } from '../core/clock.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { StateError } from '../core/errors.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { AccountTrade, Order, SymbolInfo } from '../core/types.js';
import type { FillEvent, OrderUpdateEvent, TrackedOrderStateName } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Ledger, OrderPatch } from '../store/Ledger.js';
import type { FillRecord, OrderRecord, OrderVenueName, RiskDecisionRecord } from '../store/records.js';
import { decCmp } from '../risk/exactCompare.js';
import { fillProblem } from './fillCheck.js';
import { FillGate } from './fillGate.js';
import { orderProblem } from './orderCheck.js';
import type { ExecLogger } from './log.js';
import { isTerminal, nextState, stateOfStatus } from './orderState.js';
import { newOrderOf, pendingOrder, type NewOrder } from './pendingOrder.js';
import { fillEventOf, orderUpdateOf } from './trackerEvents.js';

export { fillEventOf, newOrderOf, orderUpdateOf };
export type { NewOrder };

/** What the tracker publishes. */
export type TrackerEvent = OrderUpdateEvent | FillEvent;

/** A quarantined fill, as announced to listeners. */
export interface QuarantinedFill {
  readonly clientId: string;
  readonly orderId: string;
  readonly tradeId: string;
  readonly source: string;
  readonly reason: string;
}

/** Options of the tracker beyond its ledger, clock and event sink. */
export interface TrackerOptions {
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly emit: (e: TrackerEvent) => void;
  /** Exchange info of a symbol, when known: fills are checked against its tick and step. */
  readonly symbolInfo?: (symbol: string) => SymbolInfo | undefined;
  readonly log?: ExecLogger;
}

/** Reports for an orderId we cannot attribute yet (a legacy ack still in flight); bounded. */
const MAX_ORPHANS = 1000;
/** Orders the gate journalled that wait for their submit (normally one, for a moment). */
const GATED_KEPT = 64;
/**
 * Ended orders kept in memory for the events that follow an end (an IOC's REST answer after the
 * stream's EXPIRED, a late or duplicate report); older ones are read from the ledger. 128 orders
 * span 12.8 s at an exchange's usual order limit (100 per 10 s) and 0.13 s at 1,000 orders/s, well
 * past an answer's lag; kept longer, each record outlived two young-generation collections and
 * was copied twice and promoted (1,024 held ~0.18 MB/s of records at 1,000 orders/s).
 */
const ENDED_KEPT = 128;

/** The order state machine, backed by the ledger. */
export class OrderTracker {
  readonly #ledger: Ledger;
  readonly #clock: Clock;
  readonly #emit: (e: TrackerEvent) => void;
  /** Live (non-terminal) orders by clientId. Ended ones: #ended, then the ledger. */
  readonly #live = new Map<string, OrderRecord>();
  /**
   * Orders that ended lately, as the ledger last returned them (the ledger has one writer):
   * answers and stream events still come for an order after its end (an IOC's REST answer after
   * the stream's EXPIRED), and each would read and parse its row again. Oldest dropped first.
   */
  readonly #ended = new Map<string, OrderRecord>();
  /** clientIds of the live and lately ended orders by exchange orderId (older ones: the ledger's index). */
  readonly #byOrderId = new Map<string, string>();
  readonly #orphans = new Map<string, ExecutionReportEvent[]>();
  /** Orders journalled by the gate (see {@link gate}), by clientId, until their submit adopts them. */
  readonly #gated = new Map<string, OrderRecord>();
  /** Records the gate journalled as sent: their {@link markSent} has nothing left to write. */
  readonly #sentByGate = new WeakSet<OrderRecord>();
  readonly #symbolInfo: ((symbol: string) => SymbolInfo | undefined) | undefined;
  readonly #log: ExecLogger | undefined;
  readonly #quarantineListeners = new Set<(q: QuarantinedFill) => void>();
  readonly #gate: FillGate;
  /** Counters for the status line and tests. */
  readonly stats = { quarantined: 0, quarantinedOrders: 0 };

  constructor(opts: TrackerOptions) {
    this.#ledger = opts.ledger;
    this.#clock = opts.clock;
    this.#emit = opts.emit;
    this.#symbolInfo = opts.symbolInfo;
    this.#log = opts.log;
    this.#gate = new FillGate((id) => this.recordedQty(id));
  }

  /** Calls `listener` for every fill quarantined from now on; returns the unsubscribe. */
  onQuarantine(listener: (q: QuarantinedFill) => void): () => void {
    this.#quarantineListeners.add(listener);
    return () => this.#quarantineListeners.delete(listener);
  }

  /** Loads the ledger's non-terminal orders (start-up after a crash or a clean stop). Returns them. */
  load(): OrderRecord[] {
    const open = this.#ledger.openOrders();
    for (const o of open) {
      this.#live.set(o.clientId, o);
      if (o.orderId !== undefined) this.#byOrderId.set(o.orderId, o.clientId);
    }
    return open;
  }

  /** Journals a new PENDING order; must happen before its request is sent. */
  create(o: NewOrder): OrderRecord {
    const rec = pendingOrder(o, this.#clock.now());
    this.#ledger.insertOrder(rec, 'intent');
    this.#track(rec);
    return rec;
  }

  /**
   * Journals an intent, the gate's verdict and, for a placement it lets through (`sent`), the
   * order PENDING on `venue`, in one commit (Ledger.recordGate; false when the clientId was taken).
   * The venue's submit then tracks the order with {@link adopt}, writing nothing more. `sending`:
   * the venue sends it on `venue` in the chain that called the gate, so the send is journalled
   * here too (sentAt) and its {@link markSent} writes nothing: a crash before the request leaves
   * an order sent but absent, which restart reconciliation closes after the settle time.
   */
  gate(ts: number, intent: Intent, d: RiskDecisionRecord, sent: PlaceIntent | undefined, venue: OrderVenueName, taken: RiskDecisionRecord, sending = false): boolean {
    const rec = sent === undefined ? undefined : pendingOrder(newOrderOf(sent, venue), ts, sending ? ts : undefined);
    if (!this.#ledger.recordGate(ts, intent, d, rec, taken)) return false;
    if (rec === undefined) return true;
    if (sending) this.#sentByGate.add(rec);
    this.#gated.set(rec.clientId, rec);
    // A host that never submitted what its gate let through leaves the row PENDING, never sent:
    // what a restart closes as NOT_SENT. Only the latest few wait here.
    if (this.#gated.size > GATED_KEPT) this.#gated.delete(this.#gated.keys().next().value as string);
    return true;
  }

  /** Tracks and publishes the order the gate journalled for `intent`; undefined when it journalled none. */
  adopt(intent: PlaceIntent): OrderRecord | undefined {
    const rec = this.#gated.get(intent.clientId);
    if (rec === undefined || rec.intentId !== intent.intentId) return undefined;
    this.#gated.delete(intent.clientId);
    this.#track(rec);
    return rec;
  }

  #track(rec: OrderRecord): void {
    this.#live.set(rec.clientId, rec);
    this.#publishUpdate(rec);
  }

  /** An order by clientId (live first, then lately ended, then the ledger). */
  get(clientId: string): OrderRecord | undefined {
    return this.#live.get(clientId) ?? this.#ended.get(clientId) ?? this.#ledger.order(clientId);
  }

  /** Quantity of the fills recorded for an order (the ledger's). */
  recordedQty(clientId: string): Decimal {
    return this.#ledger.fills(clientId).reduce((a, f) => a.plus(f.qty), ZERO);
  }

  /** An order by exchange orderId. */
  byOrderId(orderId: string): OrderRecord | undefined {
    const cid = this.#byOrderId.get(orderId);
    if (cid !== undefined) return this.get(cid);
    return this.#ledger.orderByOrderId(orderId);
  }

  /** Non-terminal orders, optionally of one strategy and/or symbol, oldest first. */
  liveOrders(filter: { strategy?: string; symbol?: string } = {}): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const o of this.#live.values()) {
      if (filter.strategy !== undefined && o.strategy !== filter.strategy) continue;
      if (filter.symbol !== undefined && o.symbol !== filter.symbol) continue;
      out.push(o);
    }
    return out;
  }

  /**
   * Records that the placement request is about to go out on `venue` (the settle rule counts from
   * here); nothing to write when the gate's commit journalled it on `venue` ({@link gate}). Throws
   * when the ledger has no row for the order: a request it does not name must not leave (a
   * restart would not know to look for it).
   */
  markSent(clientId: string, venue: OrderVenueName): void {
    const o = this.#live.get(clientId);
    if (o !== undefined && o.venue === venue && this.#sentByGate.delete(o)) return;
    if (!this.#patch(clientId, { venue, sentAt: this.#clock.now() }, 'send')) {
      throw new StateError(`order ${clientId} has no row in the ledger: its send cannot be journalled`);
    }
  }

  /** The placement outcome is unknown (5XX, timeout): the order must be reconciled before anything else. */
  markUnknown(clientId: string, reason: string): void {
    const o = this.#live.get(clientId);
    if (!o || o.state !== 'PENDING') return;
    this.#patch(clientId, { state: 'UNKNOWN', reason }, 'unknown');
  }

  /** The exchange refused the order, or reconciliation proved it was never placed. */
  markRejected(clientId: string, reason: string, source = 'reject'): void {
    const o = this.#live.get(clientId);
    if (!o || (o.state !== 'PENDING' && o.state !== 'UNKNOWN')) return;
    this.#patch(clientId, { state: 'REJECTED', reason }, source);
  }

  /**
   * Closes a PENDING order whose request never left the process because the ledger could not
   * record the send: REJECTED in the ledger when it can be written again, in memory and on the bus
   * in any case (a strategy waiting for it would otherwise wait forever, its budget held). A ledger
   * left at PENDING without sentAt is what a restart closes as NOT_SENT, so the two agree. A ledger
   * without the order's row gets a `notSent` journal line saying why, when it takes writes.
   */
  notSent(clientId: string, reason: string): void {
    const o = this.#live.get(clientId);
    if (!o || o.state !== 'PENDING' || o.sentAt !== undefined) return;
    try {
      if (this.#patch(clientId, { state: 'REJECTED', reason }, 'reject')) return;
      this.#ledger.journal(this.#clock.now(), 'notSent', { clientId, reason });
    } catch {
      // The ledger still refuses writes: the in-memory close below is all that can be done.
    }
    const after: OrderRecord = { ...o, state: 'REJECTED', reason, updatedAt: this.#clock.now() };
    this.#store(after);
    this.#publishUpdate(after);
  }

  /** Closes a live order the venue can no longer know (a paper run's simulator after a restart). */
  expire(clientId: string, reason: string, source: string): void {
    const o = this.#live.get(clientId);
    if (!o || isTerminal(o.state)) return;
    this.#patch(clientId, { state: 'EXPIRED', reason }, source);
  }

  /**
   * Closes a live order the exchange no longer knows (the ORDER_LOST rule): EXPIRED, its executed
   * totals those of its recorded fills when they show more (fills fetched for it while no report came).
   */
  expireLost(clientId: string, reason: string): void {
    const o = this.#live.get(clientId);
    if (!o || isTerminal(o.state)) return;
    const fills = this.#ledger.fills(clientId);
    const qty = fills.reduce((sum, f) => sum.plus(f.qty), ZERO);
    const quote = fills.reduce((sum, f) => sum.plus(f.quoteQty), ZERO);
    this.#patch(clientId, { state: 'EXPIRED', reason, ...(qty.gt(o.cumQty) ? { cumQty: qty, cumQuoteQty: Decimal.max(quote, o.cumQuoteQty) } : {}) }, 'lost');
  }

  /** An UNKNOWN order goes back to PENDING for a retry after reconciliation proved it absent. */
  markRetry(clientId: string): void {
    const o = this.#live.get(clientId);
    if (!o || o.state !== 'UNKNOWN') return;
    // PENDING and UNKNOWN share a rank; this is the one sanctioned move between them.
    const after = this.#ledger.updateOrder(clientId, { state: 'PENDING', reason: 'retry after reconciliation' }, this.#clock.now(), 'retry', undefined, o);
    if (after) this.#store(after);
  }

  /** A placement acknowledged with an exchange orderId (legacy create answers only an id). */
  attachOrderId(clientId: string, orderId: string, source: string): void {
    const o = this.#live.get(clientId);
    if (!o) return;
    const state = nextState(o.state, 'NEW');
    this.#patch(clientId, { orderId, state }, source);
    this.#replayOrphans(orderId);
  }

  /** Applies an exchange order snapshot (new-order answer, order detail, all orders, cancel answer). */
  applyOrder(x: Order, source: string): void {
    const o = this.#find(x.clientId, x.orderId);
    if (!o) return;
    const problem = orderProblem(x, o);
    if (problem !== undefined) {
      this.#quarantineOrder(o, x, source, problem);
      return;
    }
    this.#advance(o, stateOfStatus(x.status), x.executedQty, x.executedQuoteQty, x.orderId, source, x.expiryReason);
    this.#replayOrphans(x.orderId);
  }

  /** Applies a user-data executionReport: state, cumulative quantities and (for TRADE) the fill. */
  applyExecutionReport(er: ExecutionReportEvent): void {
    const o = this.#find(er.clientId, er.orderId);
    if (!o) {
      this.#keepOrphan(er);
      return;
    }
    if (er.executionType === 'TRADE' && er.tradeId !== undefined) {
      const ok = this.#fill(o, {
        orderId: er.orderId,
        tradeId: er.tradeId,
        price: er.lastPrice,
        qty: er.lastQty,
        quoteQty: er.lastQuoteQty,
        commission: er.commission,
        commissionAsset: er.commissionAsset,
        isMaker: er.isMaker,
        time: er.transactionTime,
        source: 'stream',
      }, { qty: er.cumQty, quoteQty: er.cumQuoteQty });
      // Its totals are as doubtful as the fill: the order waits for REST to say where it stands.
      if (!ok) return;
    }
    const reason = er.executionType === 'REJECTED' ? er.rejectReason : er.expiryReason;
    this.#advance(o, stateOfStatus(er.status), er.cumQty, er.cumQuoteQty, er.orderId, 'stream', reason, true);
  }

  /** Applies one of the account's trades from REST (reconciliation): records the fill if it is new. */
  applyTrade(t: AccountTrade): void {
    const o = this.byOrderId(t.orderId);
    if (!o) return;
    // Both parsers give the canonical digits (core/tradeId.ts), so this fill and the stream's
    // report of it share one (orderId, tradeId) key at any size.
    this.#fill(o, {
      orderId: t.orderId,
      tradeId: t.tradeId,
      price: t.price,
      qty: t.qty,
      quoteQty: t.quoteQty,
      commission: t.commission,
      commissionAsset: t.commissionAsset,
      isMaker: t.isMaker,
      time: t.time,
      source: 'rest',
    });
  }

  /** Records a fill from a simulated venue (paper, backtest) the same way as an exchange fill. */
  applySimFill(clientId: string, f: Omit<FillRecord, 'clientId' | 'strategy' | 'symbol' | 'side' | 'source'>): void {
    const o = this.get(clientId);
    if (o) this.#fill(o, { ...f, source: 'sim' });
  }

  #find(clientId: string, orderId: string | undefined): OrderRecord | undefined {
    const byCid = this.get(clientId);
    if (byCid && (orderId === undefined || byCid.orderId === undefined || byCid.orderId === orderId)) return byCid;
    return orderId !== undefined ? this.byOrderId(orderId) : undefined;
  }

  #advance(
    o: OrderRecord,
    reported: TrackedOrderStateName,
    cumQty: Decimal,
    cumQuoteQty: Decimal,
    orderId: string | undefined,
    source: string,
    reason: string | undefined,
    report = false,
  ): void {
    const state = nextState(o.state, reported);
    // decCmp, not gt/max/eq: decimal.js copies its argument into a new Decimal on every comparison.
    const growQty = decCmp(cumQty, o.cumQty) > 0;
    const patch: OrderPatch = {};
    if (state !== o.state) patch.state = state;
    if (growQty) {
      patch.cumQty = cumQty;
      patch.cumQuoteQty = decCmp(cumQuoteQty, o.cumQuoteQty) >= 0 ? cumQuoteQty : o.cumQuoteQty;
    }
    if (orderId !== undefined && o.orderId === undefined) patch.orderId = orderId;
    if (state !== o.state && reason !== undefined && reason !== 'NONE' && (state === 'REJECTED' || state === 'EXPIRED')) {
      patch.reason = reason;
    }
    if (Object.keys(patch).length === 0) return;
    // A report's change without a fill waits for the ledger's next commit (see the class comment).
    this.#patch(o.clientId, patch, source, report && !growQty);
  }

  /** Records and publishes a new fill; false when it was quarantined instead. */
  #fill(o: OrderRecord, f: Omit<FillRecord, 'clientId' | 'strategy' | 'symbol' | 'side'>, cum?: { qty: Decimal; quoteQty: Decimal }): boolean {
    const rec: FillRecord = { ...f, clientId: o.clientId, strategy: o.strategy, symbol: o.symbol, side: o.side };
    if (f.source !== 'sim') {
      const recorded = this.#ledger.fills(o.clientId).filter((r) => !(r.orderId === f.orderId && r.tradeId === f.tradeId));
      const problem = fillProblem(rec, { order: o, recorded, info: this.#symbolInfo?.(o.symbol), ...(cum ? { cum } : {}) });
      if (problem !== undefined) {
        this.#quarantine(rec, problem);
        return false;
      }
    }
    if (this.#ledger.recordFill(rec)) {
      this.#emit(fillEventOf(rec));
      const due = this.#gate.recorded(o.clientId, rec.qty);
      if (due !== undefined) this.#emit(orderUpdateOf(due));
    }
    return true;
  }

  #quarantine(f: FillRecord, reason: string): void {
    if (!this.#ledger.quarantineFill(this.#clock.now(), f, reason)) return;
    this.stats.quarantined++;
    this.#log?.warn({ clientId: f.clientId, orderId: f.orderId, tradeId: f.tradeId, source: f.source, reason }, 'inconsistent fill quarantined; reconciling the order over REST');
    const q: QuarantinedFill = { clientId: f.clientId, orderId: f.orderId, tradeId: f.tradeId, source: f.source, reason };
    for (const l of this.#quarantineListeners) l(q);
  }

  #quarantineOrder(o: OrderRecord, x: Order, source: string, reason: string): void {
    // Periodic polls may return the same bad snapshot: it is kept, counted and logged once.
    const data = { status: x.status, side: x.side, type: x.type, price: x.price.toString(), origQty: x.origQty.toString(), origQuoteQty: x.origQuoteQty.toString(), executedQty: x.executedQty.toString(), cummulativeQuoteQty: x.executedQuoteQty.toString() };
    if (this.#ledger.quarantineOrder(this.#clock.now(), o.clientId, x.orderId, source, reason, data)) {
      this.stats.quarantinedOrders++;
      this.#log?.warn({ clientId: o.clientId, orderId: x.orderId, source, reason }, 'inconsistent order snapshot quarantined; its status and totals are not taken');
    }
    if (o.state === 'PENDING' && o.sentAt !== undefined) this.markUnknown(o.clientId, `order snapshot quarantined: ${reason}`);
  }

  /**
   * Journals a patch of an order (`queued`: for the ledger's next commit), then keeps and
   * publishes it; false when the ledger has no row for the order.
   */
  #patch(clientId: string, patch: OrderPatch, source: string, queued = false): boolean {
    const known = this.#live.get(clientId) ?? this.#ended.get(clientId);
    const before = known ?? this.#ledger.order(clientId);
    if (!before) return false;
    const now = this.#clock.now();
    const after = queued && known !== undefined ? this.#ledger.queueUpdate(patch, now, source, known) : this.#ledger.updateOrder(clientId, patch, now, source, undefined, known);
    if (!after) return false;
    this.#store(after);
    if (after.state !== before.state || (after.cumQty !== before.cumQty && decCmp(after.cumQty, before.cumQty) !== 0) || after.orderId !== before.orderId) this.#publishUpdate(after);
    return true;
  }

  #store(o: OrderRecord): void {
    if (o.orderId !== undefined) this.#byOrderId.set(o.orderId, o.clientId);
    if (isTerminal(o.state)) {
      this.#live.delete(o.clientId);
      this.#ended.delete(o.clientId);
      this.#ended.set(o.clientId, o);
      if (this.#ended.size > ENDED_KEPT) this.#forgetOldestEnded();
    } else {
      this.#live.set(o.clientId, o);
      this.#ended.delete(o.clientId);
    }
  }

  /** Drops the oldest ended order and its orderId key: a bot running for weeks keeps only its live and lately ended orders in memory (the ledger answers for the rest, indexed by order_id). */
  #forgetOldestEnded(): void {
    const [clientId, o] = this.#ended.entries().next().value as [string, OrderRecord];
    this.#ended.delete(clientId);
    if (o.orderId !== undefined && this.#byOrderId.get(o.orderId) === clientId) this.#byOrderId.delete(o.orderId);
  }

  #publishUpdate(o: OrderRecord): void {
    if (this.#gate.admit(o, this.#clock.now())) this.#emit(orderUpdateOf(o));
  }

  /**
   * Publishes updates held for their fills (see fillGate.ts): those of `clientId` (its fills were
   * just fetched, whatever came of it), or every one held longer than `maxAgeMs`. Returns how many.
   */
  releaseHeld(opts: { clientId: string } | { maxAgeMs: number }): number {
    const list = 'clientId' in opts ? [this.#gate.releaseOf(opts.clientId)].filter((o) => o !== undefined) : this.#gate.releaseOlder(this.#clock.now() - opts.maxAgeMs);
    for (const o of list) {
      this.#log?.info({ clientId: o.clientId, state: o.state, cumQty: o.cumQty.toString() }, 'order update published before all its fills were recorded');
      this.#emit(orderUpdateOf(o));
    }
    return list.length;
  }

  #keepOrphan(er: ExecutionReportEvent): void {
    const list = this.#orphans.get(er.orderId) ?? [];
    list.push(er);
    this.#orphans.set(er.orderId, list);
    if (this.#orphans.size > MAX_ORPHANS) {
      const oldest = this.#orphans.keys().next().value;
      if (oldest !== undefined) this.#orphans.delete(oldest);
    }
  }

  #replayOrphans(orderId: string): void {
    const list = this.#orphans.get(orderId);
    if (!list) return;
    this.#orphans.delete(orderId);
    for (const er of list) this.applyExecutionReport(er);
  }
}
