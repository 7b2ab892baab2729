/**
 * SimVenue: the Venue of backtest and paper mode, over the matching engine (src/sim).
 *
 * Latency is modelled on an injectable {@link Scheduler}: an accepted place intent reaches the
 * engine `entryMs` after it was submitted, a cancel `cancelMs` after, and every engine report
 * (acknowledgement, fill, cancel, expiry) reaches the bus `ackMs` after the engine produced it.
 * Each is a constant or a seeded draw (./latency.ts); requests reach the engine in the order they
 * were sent and reports the bus in the order the engine made them (one connection each way).
 *
 * Two ways back, as live: what answers a request (an order's acknowledgement or refusal, the fills
 * of an order that trades on arrival, a cancel) comes as its REST response, `ackMs` after the
 * engine; what the market later does to a resting order (its fills, an expiry) reaches a live run
 * only over the user data stream, whose client delivers what arrives in E order at once and holds
 * only after a gap or reordering (src/exchange/stream/user-event-order.ts): those reports come
 * `ackMs + streamHoldMs` after the engine (default hold 0), in their own order. So a resting order that filled still
 * looks open to its strategy for that long, as it does live; an answer that shows an order further
 * on than its fills' reports (a cancel's, with fills still held) waits for them, as a live tracker
 * holds it (reportTimes.ts, StreamTail).
 * With a {@link VirtualScheduler} (backtests) this is a deterministic event queue on the virtual
 * clock; with a {@link WallScheduler} (paper mode) the same code runs on the wall clock. Fees are
 * the engine account's maker/taker commission rates; queue position, partial fills, market orders
 * walking the book and every exchange filter are the engine's rules (src/sim/README.md).
 *
 * Output (option `emit`): 'orderEvents' (default) publishes orderUpdate and fill events directly;
 * 'userData' publishes typed executionReport / accountPosition events instead, for a pipeline whose
 * order tracker consumes the user data stream as it does live.
 */
import { UsedIds } from './usedIds.js';
import type { ShownOwnOrders } from './ShownOwnOrders.js';
import { isTerminalState, type BusEvent, type OrderUpdateEvent } from '../bus/events.js';
import type { CancelIntent, Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { ALGO_ORDER_TYPES } from '../core/enums.js';
import type { AccountPositionEvent, ExecutionReportEvent } from '../core/marketEvents.js';
import type { Balance } from '../core/types.js';
import type { MatchingEngine } from '../sim/engine.js';
import type { ScaledEngineEvent, ScaledExecutionReport } from '../sim/events.js';
import { decimalOfScaled, ScaledDecimalCache } from '../core/decimalScaled.js';
import type { OrderRecord } from '../store/records.js';
import type { OpenOrderCounts } from '../risk/types.js';
import { stateOfStatus } from '../execution/orderState.js';
import type { Scheduler } from './Scheduler.js';
import { fillOf, orderUpdateOf, type VenueOrder } from './orderEvents.js';
import { latencyModel, type LatencyModel } from './latency.js';
import { FinalShown, ReportTimes, StreamTail } from './reportTimes.js';

/** Latencies in ms of the run's clock. */
export interface LatencyConfig {
  /** Submit -> order reaches the engine. */
  readonly entryMs: number;
  /** Cancel submit -> cancel reaches the engine. */
  readonly cancelMs: number;
  /** Engine report -> event on the bus. */
  readonly ackMs: number;
  /** Added to ackMs for reports of what the market did to a resting order (see the header; default 0). */
  readonly streamHoldMs?: number;
}

/** No latency at all (unit tests; not realistic). */
export const ZERO_LATENCY: LatencyConfig = { entryMs: 0, cancelMs: 0, ackMs: 0 };

/** Open, algo and iceberg order counts (of one symbol or of the whole account), as SimVenue keeps them. */
interface Counts {
  total: number;
  algo: number;
  iceberg: number;
}

/** Options of a SimVenue. */
export interface SimVenueOptions {
  readonly engine: MatchingEngine;
  /** Engine account the strategies trade through (one account, as live). */
  readonly accountId: string;
  readonly scheduler: Scheduler;
  readonly publish: (e: BusEvent) => void;
  /** Constant latencies, or a model drawing them (default: none at all). */
  readonly latency?: LatencyConfig | LatencyModel;
  readonly emit?: 'orderEvents' | 'userData';
  /** Told every engine report of the account's orders: the own orders the depth stream shows (ShownOwnOrders.ts). */
  readonly shown?: ShownOwnOrders;
}

/** Converts the engine's scaled executionReport to the typed user-data event (its Decimals built from the integers). */
export function toExecutionReport(r: ScaledExecutionReport, E: number): ExecutionReportEvent {
  const ps = r.priceScale;
  const qs = r.qtyScale;
  return {
    type: 'executionReport',
    E,
    symbol: r.s,
    clientId: r.c,
    side: r.S,
    orderType: r.o,
    timeInForce: r.f,
    quantity: decimalOfScaled(r.q, qs),
    price: decimalOfScaled(r.p, ps),
    stopPrice: decimalOfScaled(r.P, ps),
    icebergQty: decimalOfScaled(r.F, qs),
    origClientId: r.C,
    executionType: r.x,
    status: r.X,
    rejectReason: r.r,
    orderId: r.i,
    lastQty: decimalOfScaled(r.l, qs),
    cumQty: decimalOfScaled(r.z, qs),
    lastPrice: decimalOfScaled(r.L, ps),
    commission: decimalOfScaled(r.n, r.feeScale),
    commissionAsset: r.N,
    transactionTime: r.T,
    // The engine's ids are safe integers it generated itself; -1 marks a report that is not a fill.
    tradeId: r.t < 0 ? undefined : String(r.t),
    isWorking: r.w,
    isMaker: r.m,
    orderCreationTime: r.O,
    cumQuoteQty: decimalOfScaled(r.Z, ps + qs),
    lastQuoteQty: decimalOfScaled(r.Y, ps + qs),
    expiryReason: r.eR,
  };
}

/** The counts of a symbol without orders (never written). */
const NO_ORDERS: OpenOrderCounts = Object.freeze({ total: 0, algo: 0, iceberg: 0 });

/** The simulated venue. Call `dispose()` at the end to unsubscribe from the engine. */
export class SimVenue implements Venue {
  readonly name = 'sim';
  readonly #o: SimVenueOptions;
  readonly #lat: LatencyModel;
  /** When the last request reaches the engine (their order is kept). */
  #lastRequestAt = -Infinity;
  /** When reports reach the bus (answers and user-stream reports, each way in order). */
  readonly #reports: ReportTimes;
  /** With a stream hold: orders whose final state their strategy already got. */
  readonly #finalShown = new FinalShown();
  readonly #tail = new StreamTail();
  /** Orders not final yet, by clientId; finished ones are dropped so memory stays flat. */
  readonly #orders = new Map<string, VenueOrder>();
  /**
   * Counts of the orders in #orders, kept as they enter and leave it (the risk gate reads them on
   * every check; walking the orders for them was ~40 % of a check). Every order in #orders is
   * live: a final state is set and the order dropped in the same synchronous step.
   */
  readonly #counts = new Map<string, Counts>();
  readonly #allCounts: Counts = { total: 0, algo: 0, iceberg: 0 };
  /** Every clientId ever submitted (uniqueness, as the exchange would see it). */
  readonly #used = new UsedIds();
  /** Leaves the engine's listeners; set while subscribed. */
  #unsubscribe: (() => void) | undefined;
  #detachScheduled = false;
  #disposed = false;
  /** Decimals of fill prices, sizes and a buy's fees, which repeat; a Decimal is immutable. */
  readonly #decimals = new ScaledDecimalCache();
  /**
   * #place and #cancel as scheduler callbacks, made once: the order or intent is the scheduler's
   * argument, so submit makes no closure (nor a context for it) per intent.
   */
  readonly #placeLater = (o: VenueOrder): void => this.#place(o);
  readonly #cancelLater = (c: CancelIntent): void => this.#cancel(c);

  constructor(opts: SimVenueOptions) {
    this.#o = opts;
    const lat = opts.latency ?? ZERO_LATENCY;
    this.#lat = 'entry' in lat ? lat : latencyModel(lat);
    const lm = this.#lat;
    this.#reports = new ReportTimes(() => this.#o.scheduler.clock.now(), () => lm.ack(), lm.streamHoldMs ?? 0);
    // userData mode forwards every account position of the account, so it listens throughout.
    if (opts.emit === 'userData') this.#attach();
  }

  /**
   * Starts listening to the engine. In orderEvents mode the venue only needs executionReports of
   * its own orders, so it listens only while it has some (from submit until the last one is
   * final): an engine with no listener builds no events at all (replayed depth diffs, public
   * trades), which is most of its replay time while a strategy does not trade.
   */
  #attach(): void {
    // Reports only (and account positions in userData mode, which forwards them): the engine then
    // builds no market-data events and, in orderEvents mode, no account positions either. Reports
    // in scaled form: the Decimals are built from the engine's integers, and no report text is
    // written (nor parsed back) unless another listener wants it. Transient: #onEngine reads a
    // report during the call and keeps nothing of it (it builds its own events), so the engine may
    // hand out one report object again.
    if (!this.#disposed) this.#unsubscribe ??= this.#o.engine.subscribe((e) => this.#onEngine(e), { marketData: false, accountPositions: this.#o.emit === 'userData', reports: 'scaled', transientReports: true });
  }

  /**
   * Stops listening once no order is left, from a scheduled callback: never inside the engine
   * operation that finished the last order, whose remaining events must still arrive.
   */
  #detachWhenIdle(): void {
    if (this.#o.emit === 'userData' || this.#orders.size > 0 || this.#detachScheduled || this.#unsubscribe === undefined) return;
    this.#detachScheduled = true;
    this.#o.scheduler.schedule(0, this.#detachLater);
  }

  /**
   * #detachWhenIdle's scheduled part, made once: a closure there would make V8 allocate its context
   * on every call (once per finished order), not only when it schedules.
   */
  readonly #detachLater = (): void => {
    this.#detachScheduled = false;
    if (this.#orders.size > 0 || this.#o.emit === 'userData') return;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  };

  /** Orders this venue has seen that are not final yet (for reconciliation and tests). */
  /** The simulated account's balances (what a paper run's console shows). */
  balances(): Balance[] {
    return this.#o.engine.balances(this.#o.accountId);
  }

  openOrders(): VenueOrder[] {
    return [...this.#orders.values()].filter((o) => !isTerminalState(o.state));
  }

  submit(intent: Intent): void {
    const s = this.#o.scheduler;
    switch (intent.kind) {
      case 'place': {
        if (this.#used.has(intent.clientId)) {
          this.#later(0, { type: 'intentRejected', E: s.clock.now(), strategy: intent.strategy, intent, reason: 'DUPLICATE_CLIENT_ID', message: `clientId ${intent.clientId} already used` });
          return;
        }
        const o: VenueOrder = { intent, orderId: undefined, state: 'PENDING', cumQty: ZERO, cumQuoteQty: ZERO };
        this.#attach();
        this.#orders.set(intent.clientId, o);
        this.#count(intent, 1);
        this.#used.add(intent.clientId);
        if (this.#o.emit !== 'userData') this.#later(0, orderUpdateOf(o, s.clock.now()));
        s.schedule(this.#requestDelay(this.#lat.entry()), this.#placeLater, o);
        return;
      }
      case 'cancel':
        s.schedule(this.#requestDelay(this.#lat.cancel()), this.#cancelLater, intent);
        return;
      case 'cancelAll': {
        // Per strategy (the account may be shared): cancel each of its orders, as the router does live.
        for (const o of this.openOrders()) {
          if (o.intent.strategy !== intent.strategy || (intent.symbol !== undefined && o.intent.symbol !== intent.symbol)) continue;
          s.schedule(this.#requestDelay(this.#lat.cancel()), this.#cancelLater, { kind: 'cancel', strategy: intent.strategy, intentId: intent.intentId, symbol: o.intent.symbol, clientId: o.intent.clientId });
        }
        return;
      }
      default: {
        const never: never = intent;
        throw new Error(`unknown intent ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The place intents of the orders not final yet: symbol, type and iceberg of each, which is what
   * the risk gate's account-wide order counts read (MAX_NUM_ORDERS and friends count every open
   * order of the account, not per strategy), without building a record per order per check.
   */
  liveIntents(): PlaceIntent[] {
    const out: PlaceIntent[] = [];
    for (const o of this.#orders.values()) if (!isTerminalState(o.state)) out.push(o.intent);
    return out;
  }

  /**
   * Open, algo and iceberg counts of the orders not final yet, of `symbol` or of all symbols: the
   * counts over {@link liveIntents} that the risk gate's order-count filters read, kept up to date
   * as orders come and go instead of walked per check. The object is this venue's own (read it, do
   * not keep it past the check).
   */
  openOrderCounts(symbol: string | undefined): OpenOrderCounts {
    if (symbol === undefined) return this.#allCounts;
    return this.#counts.get(symbol) ?? NO_ORDERS;
  }

  /** Adds (`by` 1) or removes (-1) an order's share of the open-order counts. */
  #count(i: PlaceIntent, by: 1 | -1): void {
    let c = this.#counts.get(i.symbol);
    if (c === undefined) this.#counts.set(i.symbol, (c = { total: 0, algo: 0, iceberg: 0 }));
    const all = this.#allCounts;
    c.total += by;
    all.total += by;
    if (ALGO_ORDER_TYPES.has(i.orderType)) {
      c.algo += by;
      all.algo += by;
    }
    if (i.icebergQty?.gt(0)) {
      c.iceberg += by;
      all.iceberg += by;
    }
  }

  /** Drops an order from #orders (and its counts) when it is there. */
  #drop(clientId: string): void {
    const o = this.#orders.get(clientId);
    if (o === undefined) return;
    this.#orders.delete(clientId);
    this.#count(o.intent, -1);
  }

  /**
   * Open orders in the tracker's record shape (what a live run's tracker reports), for callers
   * that need whole records; the risk gate's account-wide counts read {@link liveIntents}.
   */
  liveOrderRecords(): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const o of this.#orders.values()) {
      if (isTerminalState(o.state)) continue;
      const i = o.intent;
      out.push({
        clientId: i.clientId,
        strategy: i.strategy,
        intentId: i.intentId,
        symbol: i.symbol,
        side: i.side,
        orderType: i.orderType,
        timeInForce: i.timeInForce,
        price: i.price,
        quantity: i.quantity,
        quoteOrderQty: i.quoteOrderQty,
        stopPrice: i.stopPrice,
        icebergQty: i.icebergQty,
        stpMode: i.stpMode,
        venue: 'sim',
        orderId: o.orderId,
        state: o.state,
        cumQty: o.cumQty,
        cumQuoteQty: o.cumQuoteQty,
        createdAt: 0,
        sentAt: undefined,
        updatedAt: 0,
        reason: undefined,
      });
    }
    return out;
  }

  /** Stops listening to the engine. */
  dispose(): void {
    this.#disposed = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #place(o: VenueOrder): void {
    const i: PlaceIntent = o.intent;
    const now = this.#o.scheduler.clock.now();
    this.#reports.inRequest = true;
    const res = this.#o.engine.placeOrder(
      {
        accountId: this.#o.accountId,
        symbol: i.symbol,
        side: i.side,
        type: i.orderType,
        timeInForce: i.timeInForce,
        quantity: i.quantity,
        quoteOrderQty: i.quoteOrderQty,
        price: i.price,
        stopPrice: i.stopPrice,
        icebergQty: i.icebergQty,
        clientId: i.clientId,
        stpMode: i.stpMode,
      },
      now,
    );
    this.#reports.inRequest = false;
    if (!res.ok) {
      // A refused request emits nothing from the engine: answer like a REST error would, stamped
      // like every other report with the time it reaches the bus.
      const d = this.#reports.answer();
      const E = now + d;
      o.state = 'REJECTED';
      this.#drop(i.clientId);
      this.#detachWhenIdle();
      if (this.#o.emit === 'userData') this.#later(d, { type: 'intentRejected', E, strategy: i.strategy, intent: i, reason: res.reason, message: res.message });
      else this.#later(d, orderUpdateOf(o, E, `${res.reason}: ${res.message}`));
    }
  }

  #cancel(c: CancelIntent): void {
    const now = this.#o.scheduler.clock.now();
    const o = this.#orders.get(c.clientId);
    this.#reports.inRequest = true;
    const res = o && o.intent.strategy === c.strategy ? this.#o.engine.cancelOrder({ accountId: this.#o.accountId, symbol: c.symbol, clientId: c.clientId }, now) : undefined;
    this.#reports.inRequest = false;
    if (res === undefined || !res.ok) {
      // An order that already closed (filled, most often, while its report is still on its way)
      // is not an error: live, the exchange refuses such a cancel and the router looks the order
      // up, telling the strategy nothing but the close it reports anyway. Same here.
      if (this.#closedOnEngine(c.clientId, c.symbol)) return;
      const reason = res === undefined ? 'UNKNOWN_ORDER' : res.reason;
      const d = this.#reports.answer();
      this.#later(d, { type: 'intentRejected', E: now + d, strategy: c.strategy, intent: c, reason, message: res === undefined ? `no order with clientId ${c.clientId} for ${c.strategy}` : res.message });
    }
  }

  /** Whether the engine holds `clientId` of this account as a closed order. */
  #closedOnEngine(clientId: string, symbol: string): boolean {
    const status = this.#o.engine.orderStatus(this.#o.accountId, { clientId, symbol });
    return status !== undefined && isTerminalState(stateOfStatus(status));
  }

  #onEngine(e: ScaledEngineEvent): void {
    if (e.type === 'scaledExecutionReport') {
      if (e.accountId !== this.#o.accountId) return;
      const o = this.#orders.get(e.c) ?? (e.C !== '' ? this.#orders.get(e.C) : undefined);
      if (o === undefined) return; // not a strategy order (e.g. placed directly on the engine)
      this.#o.shown?.note(o.intent, e);
      if (this.#o.emit === 'userData') {
        // The tracker behind (TrackedVenue) never moves an order back, as live.
        const d = this.#reports.report();
        this.#later(d, toExecutionReport(e, this.#o.scheduler.clock.now() + d));
        o.orderId = e.i;
        o.state = stateOfStatus(e.X);
        if (isTerminalState(o.state)) this.#drop(o.intent.clientId);
        return;
      }
      this.#applyReport(o, e);
    } else if (e.type === 'outboundAccountPosition' && this.#o.emit === 'userData') {
      if (e.accountId !== this.#o.accountId) return;
      const d = this.#reports.report();
      const ev: AccountPositionEvent = { type: 'accountPosition', E: this.#o.scheduler.clock.now() + d, lastUpdateTime: e.u, balances: e.B.map((b) => ({ asset: b.a, free: new Decimal(b.f), locked: new Decimal(b.l) })) };
      this.#later(d, ev);
    }
  }

  #applyReport(o: VenueOrder, r: ScaledExecutionReport): void {
    const now = this.#o.scheduler.clock.now();
    const state = stateOfStatus(r.X);
    const d = this.#tail.delay(o.intent.clientId, now, this.#reports.report(), this.#reports.inRequest, isTerminalState(state));
    const E = now + d;
    o.orderId = r.i;
    if (r.x === 'TRADE') {
      const ps = r.priceScale;
      const qs = r.qtyScale;
      const dec = this.#decimals;
      // Prices and sizes repeat across fills: cached. A first fill's cumulative amounts are its
      // own (the same Decimals); the quote amounts are price x size, nearly all distinct, so they
      // are built without the cache (a lookup that misses, and an entry nobody reads again, cost
      // more than building them).
      const qty = dec.get(r.l, qs);
      const price = dec.get(r.L, ps);
      const quoteQty = decimalOfScaled(r.Y, ps + qs);
      o.cumQty = r.z === r.l ? qty : dec.get(r.z, qs);
      o.cumQuoteQty = r.Z === r.Y ? quoteQty : decimalOfScaled(r.Z, ps + qs);
      o.state = state;
      // The fee is in the asset received: a buy's (base, size x rate) repeats as sizes do; a sell's
      // (quote, price x size x rate) is nearly always new, so built like the quote amounts.
      const commission = r.S === 'BUY' && typeof r.n === 'number' ? dec.get(r.n, r.feeScale) : decimalOfScaled(r.n, r.feeScale);
      // Two scheduler entries with the same delay run back to back (same time, consecutive
      // sequence numbers: anything the fill causes is scheduled after the update), and hand the
      // events to publish without a closure per report.
      const s = this.#o.scheduler;
      const publish = this.#o.publish;
      s.schedule(d, publish, fillOf(o, E, { tradeId: String(r.t), price, qty, quoteQty, commission, commissionAsset: r.N, isMaker: r.m }));
      this.#update(d, orderUpdateOf(o, E)); // a new event with the fields as they are now
      if (isTerminalState(state)) this.#finished(o);
      return;
    }
    o.state = state;
    if (isTerminalState(state)) this.#finished(o);
    const reason = r.x === 'EXPIRED' && r.eR !== 'NONE' ? r.eR : r.x === 'REJECTED' ? r.r : undefined;
    this.#update(d, orderUpdateOf(o, E, reason));
  }

  /** Publishes an engine report's orderUpdate after `d`; with a stream hold, through #deliverUpdate. */
  #update(d: number, e: OrderUpdateEvent): void {
    if (this.#reports.holdMs === 0) {
      this.#later(d, e);
      return;
    }
    this.#finalShown.scheduled(e.clientId);
    this.#o.scheduler.schedule(d, this.#deliverUpdate, e);
  }

  /** Publishes an orderUpdate unless its strategy already got its order's final state (FinalShown). */
  readonly #deliverUpdate = (e: OrderUpdateEvent): void => {
    if (this.#finalShown.due(e)) this.#o.publish(e);
  };

  /** Delay of a request drawn as `drawn` ms, raised so that it reaches the engine after the previous one. */
  #requestDelay(drawn: number): number {
    const now = this.#o.scheduler.clock.now();
    const at = Math.max(now + drawn, this.#lastRequestAt);
    this.#lastRequestAt = at;
    return at - now;
  }

  /** Drops a final order (memory stays flat) and stops listening when it was the last one. */
  #finished(o: VenueOrder): void {
    this.#drop(o.intent.clientId);
    this.#detachWhenIdle();
  }

  /** Publishes `e` after `delay`: the event is the scheduler's argument, so no closure per report. */
  #later(delay: number, e: BusEvent): void {
    this.#o.scheduler.schedule(delay, this.#o.publish, e);
  }
}
