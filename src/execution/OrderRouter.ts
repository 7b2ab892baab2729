/**
 * The live venue: turns accepted intents into exchange calls, open API first with the legacy /v1
 * interface as fallback, and owns retries, fallback and reconciliation. Results reach the bus only
 * through the tracker (orderUpdate and fill events).
 *
 * Rules that keep a trader's money safe:
 * - Every order is journalled (PENDING, with its clientId) before any request, and `sentAt` is
 *   written before the request goes out, so a crash at any point leaves a ledger that names it.
 * - Calls for one order are serialised (a cancel waits for its placement's outcome).
 * - An order whose placement outcome is unknown (5XX, timeout) is UNKNOWN, never failed: it is
 *   reconciled by clientId before anything else is sent for it, on either interface.
 * - "Not placed" is concluded only when the order is absent after the settle time: a signed open
 *   API request older than its recvWindow is refused by the server, so once `sentAt + settleMs`
 *   has passed (settleMs > recvWindow) an absent order can no longer appear.
 * - /v1 has no clientId: an UNKNOWN legacy order is matched by symbol, side, price, quantity and
 *   time among orders nobody tracks (legacy active orders, or all orders once the open API is
 *   back), and is never re-sent: only the open API can prove it absent.
 */
import type { Clock } from '../core/clock.js';
import { AuthenticationError, ExchangeError, NetworkError, RateLimitedError, UnknownOutcomeError, ValidationError } from '../core/errors.js';
import type { Decimal } from '../core/decimal.js';
import type { OrderStatusName } from '../core/enums.js';
import type { Balance, Order, SymbolInfo } from '../core/types.js';
import { splitSymbol } from '../core/symbols.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { Ledger } from '../store/Ledger.js';
import type { OrderRecord, OrderVenueName } from '../store/records.js';
import { CircuitBreaker, type BreakerFailure, type BreakerOptions, type BreakerState } from './CircuitBreaker.js';
import type { ExecLogger } from './log.js';
import type { LegacyOrderPort, LegacyOrderView, OpenOrderPort } from './ports.js';
import { newOrderOf, type OrderTracker } from './OrderTracker.js';
import { isTerminal } from './orderState.js';

/** Router settings. */
export interface OrderRouterOptions {
  readonly open: OpenOrderPort;
  /** Legacy /v1 client adapter; without it there is no fallback. */
  readonly legacy?: LegacyOrderPort;
  readonly tracker: OrderTracker;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly log: ExecLogger;
  /** Symbols of the run (reconciliation scope, legacy eligibility). */
  readonly symbols: readonly string[];
  /** Exchange symbol info by BASE_QUOTE name, when known (order types the symbol allows). */
  readonly symbolInfo?: ReadonlyMap<string, SymbolInfo>;
  readonly breaker?: BreakerOptions;
  /** Time after sending before an absent order is declared not placed; must exceed recvWindow (default 6000). */
  readonly settleMs?: number;
  /** An order proven not placed is sent again only while younger than this (default 10000 ms); else REJECTED. */
  readonly maxRetryAgeMs?: number;
  /** How far back start-up reconciliation looks for account trades (default 24 h). */
  readonly tradeLookbackMs?: number;
  /** Poll period of the background loop (UNKNOWN orders, half-open probe); 0 disables the timer (default 500). */
  readonly pollMs?: number;
  /** Wait for stream fills before fetching them by orderId when REST shows more executed (default 1000 ms). */
  readonly fillGapMs?: number;
  /** A cancel that did not settle (unknown outcome, no usable interface) is tried again after this (default 2000 ms). */
  readonly cancelRetryMs?: number;
  /**
   * Symbols whose orders no user data stream of the run reports (symbol type 2 has none; a type
   * other than the stream's): their live orders are polled, and their fills fetched, instead.
   */
  readonly unstreamedSymbols?: readonly string[];
  /**
   * Check period of the live orders of an unstreamed symbol (default 2000 ms). Each check is one
   * open-orders query per symbol; only the orders it shows changed are then queried one by one.
   */
  readonly orderPollMs?: number;
  /**
   * Check period of each live order of a streamed symbol (default 60000 ms; 0: never), done as
   * for orderPollMs. A stream can stay connected and still lose a report; this bounds how long
   * such a loss goes unseen.
   */
  readonly streamedPollMs?: number;
  /**
   * Exchange time minus local time in ms (the open client's measured offset; default 0). Order
   * lookups filter on the exchange's createTime, so their windows must be in exchange time.
   */
  readonly timeOffsetMs?: () => number;
  /** Called with every balance snapshot fetched from the exchange. */
  readonly onBalances?: (balances: readonly Balance[]) => void;
  /** Called when the breaker changes state (the pipeline turns it into a log line / trading state). */
  readonly onBreaker?: (state: BreakerState, why: string) => void;
}

/** What the order-count filters read of an open order the bot did not place. */
export interface UntrackedOrder {
  readonly symbol: string;
  readonly orderType: OrderRecord['orderType'];
  readonly icebergQty: Decimal;
}

/** Which legacy order shapes the /v1 interface can carry (decided in {@link legacyEligible}). */
const LEGACY_QUOTE = 'IDR';

/** The order router; implements the bus Venue contract. */
export class OrderRouter implements Venue {
  readonly name = 'exchange';
  readonly breaker: CircuitBreaker;
  readonly #o: OrderRouterOptions;
  readonly #open: OpenOrderPort;
  readonly #legacy: LegacyOrderPort | undefined;
  readonly #tracker: OrderTracker;
  readonly #chains = new Map<string, Promise<void>>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #cancelWanted = new Set<string>();
  /** When the last cancel request of an order went out (retry pacing). */
  readonly #cancelTried = new Map<string, number>();
  readonly #unstreamed: ReadonlySet<string>;
  /** Orders of an earlier run, loaded at start-up: never sent again, whatever a lookup shows. */
  readonly #earlierRun = new Set<string>();
  /** When each live order was last checked over REST. */
  readonly #polledAt = new Map<string, number>();
  /** Symbols whose open-orders check is in flight (their orders are not due twice). */
  readonly #listing = new Set<string>();
  readonly #gapTimers = new Map<string, NodeJS.Timeout>();
  readonly #settleMs: number;
  readonly #maxRetryAgeMs: number;
  /** Open orders of each symbol that the exchange lists and this bot does not track, as last listed. */
  readonly #untracked = new Map<string, readonly UntrackedOrder[]>();
  #untrackedAll: readonly UntrackedOrder[] = [];
  #balances: readonly Balance[] = [];
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #stopped = false;
  /** Counters for the status line and tests. */
  readonly stats = { openRequests: 0, legacyRequests: 0, reconciliations: 0, retries: 0 };

  constructor(o: OrderRouterOptions) {
    this.#o = o;
    this.#open = o.open;
    this.#legacy = o.legacy;
    this.#tracker = o.tracker;
    this.#settleMs = o.settleMs ?? 6000;
    this.#maxRetryAgeMs = o.maxRetryAgeMs ?? 10_000;
    this.#unstreamed = new Set(o.unstreamedSymbols ?? []);
    this.breaker = new CircuitBreaker(o.clock, o.breaker, (s, why) => {
      o.log.warn({ breaker: s, why }, `open API circuit ${s}`);
      o.ledger.journal(o.clock.now(), 'breaker', { state: s, why });
      o.onBreaker?.(s, why);
    });
  }

  /** Last balances fetched from the exchange. */
  get balances(): readonly Balance[] {
    return this.#balances;
  }

  /**
   * Open orders on the account that this bot did not place (a trader's manual orders, another
   * tool), as the last open-orders query of each symbol listed them (start-up and every
   * reconciliation, and each periodic check). The exchange counts them against MAX_NUM_ORDERS and
   * the other order-count filters like the bot's own, so the risk gate must too.
   */
  get untrackedOpenOrders(): readonly UntrackedOrder[] {
    return this.#untrackedAll;
  }

  /** Starts the background poll loop (UNKNOWN orders, half-open probes). */
  start(): void {
    const ms = this.#o.pollMs ?? 500;
    if (ms <= 0 || this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), ms);
    this.#timer.unref();
  }

  /** Stops the poll loop and waits for requests in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const t of this.#gapTimers.values()) clearTimeout(t);
    this.#gapTimers.clear();
    this.#timer = undefined;
    await this.idle();
  }

  /** Resolves when every queued call has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  /** Venue contract: journal synchronously, then act asynchronously. Never throws for exchange failures. */
  submit(intent: Intent): void {
    switch (intent.kind) {
      case 'place': {
        if (this.#tracker.get(intent.clientId)) {
          // The pipeline refuses reused clientIds before this point; a caller that bypasses it
          // must not get a second order under the same id (reconciliation keys on it).
          this.#o.log.error({ clientId: intent.clientId, strategy: intent.strategy }, 'clientId already used; intent dropped');
          return;
        }
        const rec = this.#tracker.create(newOrderOf(intent, 'open'));
        this.#enqueue(rec.clientId, () => this.#place(rec.clientId));
        return;
      }
      case 'cancel':
        this.#cancelWanted.add(intent.clientId);
        this.#enqueue(intent.clientId, () => this.#cancel(intent.clientId));
        return;
      case 'cancelAll':
        this.cancelAll({ strategy: intent.strategy, ...(intent.symbol !== undefined ? { symbol: intent.symbol } : {}) });
        return;
      default: {
        const never: never = intent;
        throw new Error(`unhandled intent ${JSON.stringify(never)}`);
      }
    }
  }

  /** Cancels every live order (of a strategy and/or symbol). Used by cancel-all intents and shutdown. */
  cancelAll(filter: { strategy?: string; symbol?: string } = {}): void {
    const live = this.#tracker.liveOrders(filter);
    // With the open API down, one legacy "cancel selected" call is kinder to the 60/min limit
    // than one call per order. Only orders whose exchange id is known can be named there.
    if (!this.breaker.closed && this.#legacy && live.length > 1) {
      const named = live.filter((o) => o.orderId !== undefined && legacyPairOk(o.symbol));
      if (named.length > 1) {
        for (const o of named) this.#cancelWanted.add(o.clientId);
        this.#track(this.#legacyCancelSelected(named));
        for (const o of live) if (!named.includes(o)) this.submit({ kind: 'cancel', strategy: o.strategy, intentId: `cancelAll:${o.clientId}`, symbol: o.symbol, clientId: o.clientId });
        return;
      }
    }
    for (const o of live) this.submit({ kind: 'cancel', strategy: o.strategy, intentId: `cancelAll:${o.clientId}`, symbol: o.symbol, clientId: o.clientId });
  }

  /**
   * Shutdown: cancels every live order and keeps working until none is live or `waitMs` has
   * passed: UNKNOWN orders are looked up (a half-open breaker probed) and cancelled once found,
   * and cancels that did not settle are sent again. An order accepted moments before shutdown
   * whose answer was lost would otherwise stay on the book after the bot exits. Returns the
   * orders still live at the deadline.
   */
  async cancelAllAndWait(waitMs: number): Promise<OrderRecord[]> {
    this.cancelAll();
    const deadline = this.#o.clock.now() + waitMs;
    for (;;) {
      await this.idle();
      const live = this.#tracker.liveOrders();
      if (live.length === 0 || this.#o.clock.now() >= deadline || this.#stopped) return live;
      await sleep(50);
      await this.tick();
    }
  }

  /** Feeds a user-data executionReport to the tracker. */
  onExecutionReport(er: ExecutionReportEvent): void {
    this.#tracker.applyExecutionReport(er);
  }

  /**
   * Reconciles the tracker with the exchange: open orders, every live tracked order, recent
   * account trades and balances. Run at start-up (before strategies get control) and after a
   * user-stream reconnect. Resolves when done; failures are logged and leave orders as they were.
   */
  async reconcile(reason: string): Promise<void> {
    this.stats.reconciliations++;
    const now = this.#o.clock.now();
    this.#o.ledger.journal(now, 'reconcile', { reason });
    this.#o.log.info({ reason }, 'reconciling with the exchange');
    const live = this.#tracker.liveOrders();
    const symbols = new Set([...this.#o.symbols, ...live.map((o) => o.symbol)]);
    const oldest = live.reduce((m, o) => Math.min(m, o.createdAt), now);
    const since = this.#exchangeTime(Math.min(oldest - 60_000, now - (this.#o.tradeLookbackMs ?? 86_400_000)));
    let untracked = 0;
    try {
      for (const symbol of symbols) {
        const open = await this.#call(() => this.#open.allOrders({ symbol, type: 'OPEN', limit: 1000 }));
        const seen = new Set<string>();
        for (const x of open) {
          seen.add(x.orderId);
          if (this.#tracker.get(x.clientId) || this.#tracker.byOrderId(x.orderId)) this.#applyRest(x, 'reconcile');
        }
        untracked += this.#noteUntracked(symbol, open);
        for (const o of this.#tracker.liveOrders({ symbol })) {
          if (o.orderId !== undefined && seen.has(o.orderId)) continue;
          await this.#serialised(o.clientId, () => this.#resolve(o.clientId, false));
        }
      }
      for (const symbol of symbols) {
        const trades = await this.#call(() => this.#open.accountTrades({ symbol, startTime: since, limit: 1000 }));
        for (const t of trades) this.#tracker.applyTrade(t);
      }
      await this.refreshBalances();
      if (untracked > 0) this.#o.log.warn({ untracked }, 'open orders on the account that this bot did not place (left alone)');
      this.#o.ledger.journal(this.#o.clock.now(), 'reconciled', { reason, untracked, live: this.#tracker.liveOrders().length });
    } catch (err) {
      this.#o.log.error({ err: errInfo(err), reason }, 'reconciliation failed; will retry from the poll loop');
      this.#o.ledger.journal(this.#o.clock.now(), 'reconcileFailed', { reason, err: errInfo(err) });
      throw err;
    }
  }

  /**
   * Start-up after a stop or a crash: loads the ledger's live orders, marks those whose request
   * may have gone out as UNKNOWN (the process died before the answer), reconciles, then keeps
   * resolving UNKNOWN orders until none is left or `waitMs` passes. Strategies start after this.
   * Returns the orders still UNKNOWN (normally none).
   */
  async recover(waitMs = this.#settleMs + 2000): Promise<OrderRecord[]> {
    const loaded = this.#tracker.load();
    for (const o of loaded) {
      this.#earlierRun.add(o.clientId);
      if (o.state !== 'PENDING') continue;
      if (o.sentAt === undefined) this.#tracker.markRejected(o.clientId, 'NOT_SENT: the request never left the process', 'recover');
      else this.#tracker.markUnknown(o.clientId, 'process stopped before the placement answer');
    }
    if (loaded.length > 0) this.#o.log.info({ orders: loaded.length }, 'recovered live orders from the ledger');
    await this.reconcile('start-up');
    await this.fetchAllMissingFills(this.#o.clock.now() - (this.#o.tradeLookbackMs ?? 86_400_000));
    const deadline = this.#o.clock.now() + waitMs;
    for (;;) {
      const unknown = this.#tracker.liveOrders().filter((o) => o.state === 'UNKNOWN');
      if (unknown.length === 0 || this.#o.clock.now() >= deadline) return unknown;
      await sleep(Math.min(250, Math.max(1, deadline - this.#o.clock.now())));
      if (this.breaker.state === 'halfOpen') await this.#probe();
      for (const o of unknown) await this.#serialised(o.clientId, () => this.#resolve(o.clientId, false));
    }
  }

  /** Fetches balances from the exchange, records them and hands them to `onBalances`. */
  async refreshBalances(): Promise<void> {
    const acct = await this.#call(() => this.#open.account());
    this.#balances = acct.balances;
    this.#o.ledger.recordBalances(this.#o.clock.now(), 'rest', acct.balances);
    this.#o.onBalances?.(acct.balances);
  }

  /**
   * One pass of the background loop: probe a half-open breaker, settle UNKNOWN orders, try again
   * cancels that did not settle (a cancel lost to a timeout leaves the order resting on the book,
   * where it can still fill; cancelling twice is harmless, the second is refused as not open), and
   * check live orders over REST: often where no stream reports them, rarely where one does.
   */
  async tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return;
    this.#ticking = true;
    try {
      if (this.breaker.state === 'halfOpen') await this.#probe();
      const now = this.#o.clock.now();
      const cancelRetryMs = this.#o.cancelRetryMs ?? 2000;
      const orderPollMs = this.#o.orderPollMs ?? 2000;
      const streamedPollMs = this.#o.streamedPollMs ?? 60_000;
      const due = new Map<string, OrderRecord[]>();
      const live = this.#tracker.liveOrders();
      if (this.#polledAt.size > live.length) {
        // Orders closed since their last check (by the stream, a cancel) need no entry any more.
        const ids = new Set(live.map((o) => o.clientId));
        for (const id of this.#polledAt.keys()) if (!ids.has(id)) this.#polledAt.delete(id);
      }
      for (const o of live) {
        if (this.#chains.has(o.clientId)) continue;
        if (o.state === 'UNKNOWN') this.#enqueue(o.clientId, () => this.#resolve(o.clientId, true));
        else if (this.#cancelWanted.has(o.clientId) && now >= (this.#cancelTried.get(o.clientId) ?? 0) + cancelRetryMs) {
          this.#enqueue(o.clientId, () => this.#cancel(o.clientId));
        } else if (o.orderId !== undefined && !this.#listing.has(o.symbol)) {
          const period = this.#unstreamed.has(o.symbol) ? orderPollMs : streamedPollMs;
          if (period > 0 && now >= (this.#polledAt.get(o.clientId) ?? o.sentAt ?? 0) + period) {
            const list = due.get(o.symbol);
            // With the open API down, only the per-order path can still ask (the legacy interface).
            if (!this.breaker.closed) this.#enqueue(o.clientId, () => this.#pollOrder(o.clientId, now));
            else if (list === undefined) due.set(o.symbol, [o]);
            else list.push(o);
          }
        }
      }
      for (const [symbol, orders] of due) this.#track(this.#checkOpenOrders(symbol, orders, now));
    } finally {
      this.#ticking = false;
    }
  }

  /**
   * Checks the due live orders of one symbol against one open-orders query (GET /open/v1/orders
   * type OPEN) instead of one detail query each: a market maker with 200 resting orders spent 200
   * requests of its weight a minute on these checks (100 a second where no stream reports them).
   * Only an order the exchange no longer lists (filled, cancelled, expired, or beyond the page) or
   * lists with more executed than we hold is then queried on its own, and its fills fetched.
   * If the query fails, the orders wait for their next period, as a failed detail query did.
   */
  async #checkOpenOrders(symbol: string, orders: readonly OrderRecord[], now: number): Promise<void> {
    this.#listing.add(symbol);
    for (const o of orders) this.#polledAt.set(o.clientId, now);
    try {
      let listed: Order[];
      try {
        listed = await this.#call(() => this.#open.allOrders({ symbol, type: 'OPEN', limit: 1000 }));
      } catch (err) {
        this.#o.log.warn({ symbol, err: errInfo(err) }, 'open-orders check failed; the next period tries again');
        return;
      }
      this.#noteUntracked(symbol, listed);
      const byId = new Map(listed.map((x) => [x.orderId, x]));
      for (const o of orders) {
        const x = o.orderId === undefined ? undefined : byId.get(o.orderId);
        const cur = this.#tracker.get(o.clientId);
        if (!cur || isTerminal(cur.state)) continue;
        if (x === undefined || x.executedQty.gt(cur.cumQty)) this.#enqueue(o.clientId, () => this.#pollOrder(o.clientId, now));
      }
    } finally {
      this.#listing.delete(symbol);
    }
  }

  /** Keeps the listed open orders of `symbol` that the tracker does not know; returns how many. */
  #noteUntracked(symbol: string, listed: readonly Order[]): number {
    const mine = (x: Order): boolean => this.#tracker.get(x.clientId) !== undefined || this.#tracker.byOrderId(x.orderId) !== undefined;
    const others = listed.filter((x) => !mine(x)).map((x) => ({ symbol, orderType: x.type, icebergQty: x.icebergQty }));
    if (others.length === 0 && !this.#untracked.has(symbol)) return 0;
    if (others.length === 0) this.#untracked.delete(symbol);
    else this.#untracked.set(symbol, others);
    this.#untrackedAll = [...this.#untracked.values()].flat();
    return others.length;
  }

  /** Refreshes a live order from REST, then records the fills its executed quantity shows. */
  async #pollOrder(clientId: string, now: number): Promise<void> {
    const o = this.#tracker.get(clientId);
    if (!o || isTerminal(o.state)) return;
    this.#polledAt.set(clientId, now);
    await this.#refreshOrder(o);
    await this.fetchFills(clientId);
    if (isTerminal(this.#tracker.get(clientId)?.state ?? 'CANCELED')) this.#polledAt.delete(clientId);
  }

  // ---- placement ----

  async #place(clientId: string): Promise<void> {
    const o = this.#tracker.get(clientId);
    if (!o || o.state !== 'PENDING') return;
    const venue = this.#chooseVenue(o);
    if (venue === undefined) {
      this.#tracker.markRejected(clientId, 'VENUE_UNAVAILABLE: open API circuit open and the order cannot go to the legacy interface');
      return;
    }
    try {
      this.#tracker.markSent(clientId, venue);
    } catch (err) {
      // sentAt must be journalled before the request (a restart would otherwise take a sent order
      // for one never sent): without it nothing goes out, and the order is closed, not left PENDING.
      const info = errInfo(err);
      this.#o.log.error({ clientId, err: info }, 'could not journal the send; order not sent');
      this.#tracker.notSent(clientId, `NOT_SENT: the ledger could not record the send (${info.message})`);
      return;
    }
    if (venue === 'open') await this.#placeOpen(o);
    else await this.#placeLegacy(o);
  }

  #chooseVenue(o: OrderRecord): OrderVenueName | undefined {
    if (this.breaker.closed) return 'open';
    if (this.#legacy && legacyEligible(o, this.#o.symbolInfo)) return 'legacy';
    return undefined;
  }

  async #placeOpen(o: OrderRecord): Promise<void> {
    this.stats.openRequests++;
    try {
      const x = await this.#open.newOrder({
        symbol: o.symbol,
        side: o.side,
        type: o.orderType,
        clientId: o.clientId,
        ...(o.timeInForce !== undefined ? { timeInForce: o.timeInForce } : {}),
        ...(o.quantity !== undefined ? { quantity: o.quantity } : {}),
        ...(o.quoteOrderQty !== undefined ? { quoteOrderQty: o.quoteOrderQty } : {}),
        ...(o.price !== undefined ? { price: o.price } : {}),
        ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
        ...(o.icebergQty !== undefined ? { icebergQty: o.icebergQty } : {}),
        ...(o.stpMode !== undefined ? { selfTradePreventionMode: o.stpMode } : {}),
      });
      this.breaker.recordSuccess();
      this.#applyRest(x, 'rest');
    } catch (err) {
      this.#placementFailed(o, err, 'open');
    }
  }

  async #placeLegacy(o: OrderRecord): Promise<void> {
    const legacy = this.#legacy;
    if (!legacy || o.quantity === undefined) return;
    this.stats.legacyRequests++;
    try {
      const ack = await legacy.createOrder({
        symbol: o.symbol,
        side: o.side,
        type: o.orderType === 'MARKET' ? 'MARKET' : 'LIMIT',
        quantity: o.quantity,
        ...(o.price !== undefined && o.orderType !== 'MARKET' ? { price: o.price } : {}),
      });
      if (ack.orderId !== undefined) this.#tracker.attachOrderId(o.clientId, ack.orderId, 'legacy');
      else this.#tracker.markUnknown(o.clientId, 'legacy create answered without an orderId');
    } catch (err) {
      this.#placementFailed(o, err, 'legacy');
    }
  }

  /** Classifies a placement failure: unknown outcome, definite refusal, or not sent at all. */
  #placementFailed(o: OrderRecord, err: unknown, via: OrderVenueName): void {
    const info = errInfo(err);
    if (via === 'open') this.#noteOpenFailure(err);
    if (err instanceof UnknownOutcomeError) {
      this.#o.log.warn({ clientId: o.clientId, via, err: info }, 'placement outcome unknown; reconciling before anything else');
      this.#tracker.markUnknown(o.clientId, `${via}: ${err.reason}`);
    } else if (err instanceof NetworkError) {
      // Connection refused before a byte went out: nothing reached the exchange.
      this.#tracker.markRejected(o.clientId, `NETWORK: ${err.message}`);
    } else if (err instanceof RateLimitedError) {
      this.#tracker.markRejected(o.clientId, `RATE_LIMITED: retry after ${err.retryAfterMs} ms`);
    } else if (err instanceof ExchangeError && err.httpStatus >= 500) {
      this.#tracker.markUnknown(o.clientId, `${via}: HTTP ${err.httpStatus}`);
    } else if (err instanceof ExchangeError || err instanceof ValidationError || err instanceof AuthenticationError) {
      this.#o.log.warn({ clientId: o.clientId, via, err: info }, 'order refused');
      this.#tracker.markRejected(o.clientId, `${err.code}: ${err.message}`);
    } else {
      // A bug or an unexpected failure after the request may have gone out: assume unknown.
      this.#o.log.error({ clientId: o.clientId, via, err: info }, 'unexpected placement failure; treating outcome as unknown');
      this.#tracker.markUnknown(o.clientId, `${via}: ${info.message}`);
    }
  }

  // ---- resolution of PENDING/UNKNOWN orders ----

  /**
   * Finds out what happened to an order (by clientId on the open API, by shape on the legacy
   * one) and applies it. An order proven absent is retried when young enough, else REJECTED.
   */
  async #resolve(clientId: string, mayRetry: boolean): Promise<void> {
    const o = this.#tracker.get(clientId);
    if (!o || isTerminal(o.state)) return;
    if (o.orderId !== undefined) {
      await this.#refreshOrder(o);
      return;
    }
    if (o.sentAt === undefined) {
      // Journalled, never sent (the process died between journal and send).
      this.#tracker.markRejected(clientId, 'NOT_SENT: the request never left the process', 'reconcile');
      return;
    }
    if (!this.breaker.closed) {
      // The open API is needed to prove an order absent. A legacy order can still be found
      // among the active orders; absence there proves nothing (it may have filled already).
      if (o.venue === 'legacy') await this.#findLegacyActive(o);
      return;
    }
    const found = await this.#findByClientId(o);
    if (found === 'error') return;
    if (found) {
      this.#applyRest(found, 'reconcile');
      if (this.#cancelWanted.has(clientId)) await this.#cancel(clientId);
      return;
    }
    const now = this.#o.clock.now();
    if (now < o.sentAt + this.#settleMs) return; // may still appear; checked again later
    // Legacy requests carry a nonce, not a timestamp window: absence is not proof enough to re-send.
    // An earlier run's order is not sent again either: the strategy instance that wanted it is gone,
    // and the new one (which cannot see it) places its own orders.
    if (mayRetry && o.venue !== 'legacy' && !this.#earlierRun.has(clientId) && now - o.createdAt < this.#maxRetryAgeMs && !this.#cancelWanted.has(clientId)) {
      this.stats.retries++;
      this.#o.log.info({ clientId }, 'order proven not placed; sending it again');
      this.#tracker.markRetry(clientId);
      await this.#place(clientId);
      return;
    }
    this.#tracker.markRejected(clientId, 'NOT_PLACED: absent from the exchange after the settle time', 'reconcile');
  }

  /** Looks an order up by clientId (open API), or by shape for legacy orders. */
  async #findByClientId(o: OrderRecord): Promise<Order | undefined | 'error'> {
    try {
      const list = await this.#call(() =>
        // Exchange time: with our clock ahead of the exchange's, a window in local time would miss
        // the order, prove it "absent" and send it a second time.
        this.#open.allOrders({ symbol: o.symbol, type: 'ALL', startTime: this.#exchangeTime(o.createdAt) - 5000, limit: 1000 }),
      );
      const byId = list.find((x) => x.clientId === o.clientId);
      if (byId || o.venue !== 'legacy') return byId;
      // Legacy orders carry no clientId: match side, price, quantity and time among orders no one tracks.
      return list.find(
        (x) =>
          x.side === o.side &&
          x.type === o.orderType &&
          (o.quantity === undefined || x.origQty.eq(o.quantity)) &&
          (o.price === undefined || o.orderType === 'MARKET' || x.price.eq(o.price)) &&
          x.createTime >= this.#exchangeTime(o.sentAt ?? o.createdAt) - 2000 &&
          !this.#tracker.byOrderId(x.orderId),
      );
    } catch (err) {
      this.#o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'lookup by clientId failed; will retry');
      return 'error';
    }
  }

  /** Looks for an UNKNOWN legacy order among the legacy active orders (same side, price, quantity, not tracked). */
  async #findLegacyActive(o: OrderRecord): Promise<void> {
    const legacy = this.#legacy;
    if (!legacy || o.quantity === undefined) return;
    try {
      const active = await legacy.activeOrders();
      const match = active.find(
        (v) =>
          v.symbol === o.symbol &&
          v.side === o.side &&
          v.quantity.eq(o.quantity ?? v.quantity) &&
          (o.orderType === 'MARKET' || o.price === undefined || v.price.eq(o.price)) &&
          v.time >= this.#exchangeTime(o.sentAt ?? o.createdAt) - 2000 &&
          !this.#tracker.byOrderId(v.orderId),
      );
      if (match) {
        this.#tracker.attachOrderId(o.clientId, match.orderId, 'legacy-reconcile');
        this.#tracker.applyOrder(orderOfLegacy(match, o), 'legacy-reconcile');
      }
    } catch (err) {
      this.#o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'legacy active-order lookup failed');
    }
  }

  /** Refreshes a known order from the open API (or the legacy one while the breaker is open). */
  async #refreshOrder(o: OrderRecord): Promise<void> {
    const orderId = o.orderId;
    if (orderId === undefined) return;
    try {
      if (this.breaker.closed) {
        this.#applyRest(await this.#call(() => this.#open.orderDetail({ orderId, clientId: o.clientId })), 'poll');
      } else if (this.#legacy && legacyPairOk(o.symbol)) {
        const v = await this.#legacy.getOrder(orderId);
        this.#tracker.applyOrder(orderOfLegacy(v, o), 'legacy-poll');
      }
    } catch (err) {
      this.#o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'order refresh failed');
    }
  }

  // ---- cancels ----

  async #cancel(clientId: string): Promise<void> {
    const o = this.#tracker.get(clientId);
    if (!o || isTerminal(o.state)) {
      this.#cancelDone(clientId);
      return;
    }
    if (o.state === 'UNKNOWN' || (o.state === 'PENDING' && o.orderId === undefined)) {
      // Cannot cancel what we cannot name yet; resolution comes first and honours cancelWanted.
      await this.#resolve(clientId, false);
      return;
    }
    const orderId = o.orderId;
    this.#cancelTried.set(clientId, this.#o.clock.now());
    if (this.breaker.closed) {
      this.stats.openRequests++;
      try {
        const x = await this.#open.cancelOrder(orderId !== undefined ? { orderId } : { clientId });
        this.breaker.recordSuccess();
        this.#applyRest(x, 'cancel');
        this.#cancelDone(clientId);
      } catch (err) {
        this.#noteOpenFailure(err);
        this.#o.log.warn({ clientId, err: errInfo(err) }, 'cancel failed; refreshing the order');
        if (!(err instanceof UnknownOutcomeError)) await this.#refreshOrder(o);
      }
    } else if (this.#legacy && orderId !== undefined && legacyPairOk(o.symbol)) {
      this.stats.legacyRequests++;
      try {
        await this.#legacy.cancelOrder(orderId);
        this.#cancelDone(clientId);
        await this.#refreshOrder(o);
      } catch (err) {
        this.#o.log.warn({ clientId, err: errInfo(err) }, 'legacy cancel failed; refreshing the order');
        // A refusal (the order is no longer open: an earlier cancel whose answer was lost took
        // effect, or it filled) settles only by looking; unrefreshed, the poll loop would re-send
        // the cancel forever, spending the legacy rate limit, until a stream report happened by.
        if (!(err instanceof UnknownOutcomeError)) await this.#refreshOrder(o);
      }
    } else {
      this.#o.log.warn({ clientId }, 'cancel not possible now: open API circuit open and the legacy interface cannot name this order');
    }
  }

  #cancelDone(clientId: string): void {
    this.#cancelWanted.delete(clientId);
    this.#cancelTried.delete(clientId);
  }

  async #legacyCancelSelected(orders: readonly OrderRecord[]): Promise<void> {
    const legacy = this.#legacy;
    if (!legacy) return;
    this.stats.legacyRequests++;
    try {
      await legacy.cancelOrders(orders.map((o) => o.orderId ?? ''));
      for (const o of orders) this.#cancelDone(o.clientId);
    } catch (err) {
      this.#o.log.warn({ err: errInfo(err) }, 'legacy cancel-selected failed');
    }
    for (const o of orders) await this.#serialised(o.clientId, () => this.#refreshOrder(o));
  }

  // ---- fills ----

  /**
   * Applies an order snapshot from REST, then checks that the fills recorded for it add up to
   * its executed quantity. Fills normally arrive on the user stream moments later; if they have
   * not after `fillGapMs`, they are fetched by orderId, so a lost stream message never loses a fill.
   */
  #applyRest(x: Order, source: string): void {
    this.#tracker.applyOrder(x, source);
    const o = this.#tracker.get(x.clientId) ?? this.#tracker.byOrderId(x.orderId);
    if (o && this.#fillGap(o) && !this.#gapTimers.has(o.clientId)) {
      const clientId = o.clientId;
      const t = setTimeout(() => {
        this.#gapTimers.delete(clientId);
        if (!this.#stopped) this.#enqueue(clientId, () => this.fetchFills(clientId));
      }, this.#o.fillGapMs ?? 1000);
      t.unref();
      this.#gapTimers.set(clientId, t);
    }
  }

  /** True when the order's executed quantity exceeds the fills recorded for it. */
  #fillGap(o: OrderRecord): boolean {
    if (o.orderId === undefined || o.cumQty.isZero()) return false;
    const recorded = this.#o.ledger.fills(o.clientId).reduce((a, f) => a.plus(f.qty), o.cumQty.mul(0));
    return o.cumQty.gt(recorded);
  }

  /** Fetches the account trades of one order and records the missing fills. */
  async fetchFills(clientId: string): Promise<void> {
    const o = this.#tracker.get(clientId);
    if (!o || o.orderId === undefined || !this.#fillGap(o)) return;
    const orderId = o.orderId;
    try {
      const trades = await this.#call(() => this.#open.accountTrades({ symbol: o.symbol, orderId, limit: 1000 }));
      for (const t of trades) this.#tracker.applyTrade(t);
    } catch (err) {
      this.#o.log.warn({ clientId, err: errInfo(err) }, 'fetching fills failed; the next reconciliation retries');
    }
  }

  /** Fetches missing fills of every order updated since `since` whose fills do not add up (shutdown, start-up). */
  async fetchAllMissingFills(since: number): Promise<void> {
    for (const t of this.#gapTimers.values()) clearTimeout(t);
    this.#gapTimers.clear();
    for (const o of this.#o.ledger.orders()) {
      if (o.updatedAt >= since && o.orderId !== undefined && this.#fillGap(o)) await this.#serialised(o.clientId, () => this.fetchFills(o.clientId));
    }
  }

  // ---- plumbing ----

  /** A local timestamp on the exchange's clock. */
  #exchangeTime(local: number): number {
    return local + (this.#o.timeOffsetMs?.() ?? 0);
  }

  async #probe(): Promise<void> {
    try {
      await this.#open.time();
      this.breaker.recordSuccess();
      this.#o.log.info({}, 'open API answered the probe; back to the open API');
    } catch (err) {
      this.#noteOpenFailure(err, true);
    }
  }

  /** Feeds an open-API failure to the breaker. A 4XX refusal proves the server is up. */
  #noteOpenFailure(err: unknown, probe = false): void {
    const kind = breakerFailure(err);
    if (kind) this.breaker.recordFailure(kind);
    else if (!probe && err instanceof ExchangeError) this.breaker.recordSuccess();
  }

  /** Runs an open-API read, feeding the breaker. */
  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const r = await fn();
      this.breaker.recordSuccess();
      return r;
    } catch (err) {
      this.#noteOpenFailure(err);
      throw err;
    }
  }

  #enqueue(clientId: string, fn: () => Promise<void>): void {
    this.#track(this.#serialised(clientId, fn));
  }

  /** Runs `fn` after every earlier call for the same order; errors are logged, never thrown. */
  #serialised(clientId: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.#chains.get(clientId) ?? Promise.resolve();
    const next = prev.then(fn).catch((err: unknown) => this.#o.log.error({ clientId, err: errInfo(err) }, 'order task failed'));
    this.#chains.set(clientId, next);
    void next.then(() => {
      if (this.#chains.get(clientId) === next) this.#chains.delete(clientId);
    });
    return next;
  }

  #track(p: Promise<void>): void {
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Breaker classification of an open-API error; undefined when it is not a server-side failure. */
function breakerFailure(err: unknown): BreakerFailure | undefined {
  if (err instanceof UnknownOutcomeError) {
    if (err.httpStatus === 503) return 'maintenance';
    return err.httpStatus === undefined ? 'timeout' : 'server';
  }
  if (err instanceof ExchangeError && err.httpStatus >= 500) return err.httpStatus === 503 ? 'maintenance' : 'server';
  if (err instanceof NetworkError) return 'network';
  return undefined;
}

/** The legacy interface trades IDR pairs only. */
function legacyPairOk(symbol: string): boolean {
  try {
    return splitSymbol(symbol).quote === LEGACY_QUOTE;
  } catch {
    return false;
  }
}

/**
 * Whether an order can be carried by /v1 create: an IDR pair, LIMIT (GTC, no iceberg, no STP
 * choice, since /v1 has no field for them) or MARKET with a base quantity. A market BUY is refused
 * here because /v1 does not say whether its `quantity` is base or rupiah for a buy.
 */
export function legacyEligible(o: Pick<PlaceIntent, 'symbol' | 'orderType' | 'side' | 'timeInForce' | 'icebergQty' | 'stpMode' | 'quantity' | 'quoteOrderQty' | 'price'>, info?: ReadonlyMap<string, SymbolInfo>): boolean {
  if (!legacyPairOk(o.symbol)) return false;
  if (info && info.size > 0 && !info.has(o.symbol)) return false;
  if (o.quantity === undefined || o.quoteOrderQty !== undefined || o.icebergQty !== undefined || o.stpMode !== undefined) return false;
  if (o.orderType === 'LIMIT') return o.price !== undefined && (o.timeInForce === undefined || o.timeInForce === 'GTC');
  if (o.orderType === 'MARKET') return o.side === 'SELL';
  return false;
}

/**
 * A /v1 status word as an order status. The spec shows only `active` (order list) and
 * `fulfilled` (order detail). Only words that say the order ended end it; any other word is read
 * from the quantities, because taking a live order for cancelled would stop tracking it (no
 * cancel retry, no fills) while it can still fill. A wrong "live" is corrected by the next
 * open-API refresh.
 */
function statusOfLegacy(status: string, filled: Decimal, quantity: Decimal): OrderStatusName {
  switch (status.toLowerCase()) {
    case 'fulfilled':
    case 'filled':
      return 'FILLED';
    case 'cancelled':
    case 'canceled':
      return 'CANCELED';
    case 'rejected':
      return 'REJECTED';
    case 'expired':
      return 'EXPIRED';
    default:
      if (quantity.gt(0) && filled.gte(quantity)) return 'FILLED';
      return filled.gt(0) ? 'PARTIALLY_FILLED' : 'NEW';
  }
}

/** A legacy order view as an open-API order snapshot, so the tracker has one input shape. */
function orderOfLegacy(v: LegacyOrderView, o: OrderRecord): Order {
  const filled = v.quantity.minus(v.availableQuantity);
  const status = statusOfLegacy(v.status, filled, v.quantity);
  return {
    orderId: v.orderId,
    clientId: o.clientId,
    symbol: o.symbol,
    side: v.side,
    type: v.type,
    status,
    price: v.price,
    origQty: v.quantity,
    origQuoteQty: v.price.mul(v.quantity),
    executedQty: filled,
    executedPrice: v.price,
    // The legacy view has no executed quote amount; the tracker keeps the larger of what it knows.
    executedQuoteQty: filled.mul(v.price),
    stopPrice: v.price.mul(0),
    icebergQty: v.price.mul(0),
    createTime: v.time,
  };
}

/** Error summary for logs: never the request itself (it may carry signed parameters). */
export function errInfo(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'unknown', message: String(err) };
}
