/**
 * The live venue: turns accepted intents into exchange calls, open API first with the legacy /v1
 * interface as fallback, and owns retries, fallback and reconciliation. Results reach the bus only
 * through the tracker (orderUpdate and fill events).
 *
 * A thin facade over its parts, which share one {@link RouterCore}:
 * - submission.ts: placements and cancels, journalled before any request;
 * - unknownOutcome.ts: orders whose placement outcome is unknown, resolved by clientId before
 *   anything else is sent for them;
 * - legacyFallback.ts: the /v1 interface while the open API circuit is open;
 * - reconciliation.ts and fills.ts: start-up recovery, reconciliation, the background loop and
 *   fills fetched over REST.
 */
import { noteSendQueued } from '../core/requestWrites.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { Balance } from '../core/types.js';
import type { OrderRecord, RiskDecisionRecord } from '../store/records.js';
import type { CircuitBreaker } from './CircuitBreaker.js';
import { FillWatch } from './fills.js';
import { cancelSelectedLegacy, legacyPairOk } from './legacyFallback.js';
import { newOrderOf } from './OrderTracker.js';
import { Reconciler } from './reconciliation.js';
import { RouterCore, sleep } from './routerCore.js';
import type { OrderRouterOptions, RouterStats, UntrackedOrder } from './routerOptions.js';
import { cancel, place } from './submission.js';
import { refreshOrder } from './unknownOutcome.js';
import { RouterOperations } from './routerOperations.js';

export { legacyEligible } from './legacyFallback.js';
export { errInfo } from './routerCore.js';
export type { OrderRouterOptions, RouterStats, UntrackedOrder } from './routerOptions.js';

/** The order router; implements the bus Venue contract. */
export class OrderRouter implements Venue {
  readonly name = 'exchange';
  readonly breaker: CircuitBreaker;
  /** Counters for the status line and tests. */
  readonly stats: RouterStats;
  readonly #core: RouterCore;
  readonly #fills: FillWatch;
  readonly #reconciler: Reconciler;
  #timer: NodeJS.Timeout | undefined;
  readonly #unsubscribe: () => void;

  constructor(o: OrderRouterOptions) {
    const core = new RouterCore(o);
    const fills = new FillWatch(core);
    core.ops = new RouterOperations(core, fills);
    this.#core = core;
    this.#fills = fills;
    this.#reconciler = new Reconciler(core, fills);
    this.breaker = core.breaker;
    this.stats = core.stats;
    // A quarantined fill is never taken as truth: the order and its trades are read again over REST.
    this.#unsubscribe = o.tracker.onQuarantine(({ clientId }) => {
      if (core.stopped) return;
      core.enqueue(clientId, async () => {
        const order = core.tracker.get(clientId);
        if (!order) return;
        await refreshOrder(core, order);
        await fills.fetchFills(clientId);
      });
    });
  }

  /** Last balances fetched from the exchange. */
  get balances(): readonly Balance[] {
    return this.#reconciler.balances;
  }

  /**
   * Open orders on the account that this bot did not place (a trader's manual orders, another
   * tool), as the last open-orders query of each symbol listed them (start-up and every
   * reconciliation, and each periodic check). The exchange counts them against MAX_NUM_ORDERS and
   * the other order-count filters like the bot's own, so the risk gate must too.
   */
  get untrackedOpenOrders(): readonly UntrackedOrder[] {
    return this.#reconciler.untrackedOpenOrders;
  }

  /** Starts the background poll loop (UNKNOWN orders, half-open probes). */
  start(): void {
    const ms = this.#core.o.pollMs ?? 500;
    if (ms <= 0 || this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), ms);
    this.#timer.unref();
  }

  /** Stops the poll loop and waits for requests in flight. */
  async stop(): Promise<void> {
    this.#core.stopped = true;
    this.#unsubscribe();
    if (this.#timer) clearInterval(this.#timer);
    this.#fills.clearTimers();
    this.#timer = undefined;
    await this.idle();
  }

  /** Resolves when every queued call has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.#core.idle();
  }

  /** Venue contract: journal synchronously, then act asynchronously. Never throws for exchange failures. */
  submit(intent: Intent): void {
    const core = this.#core;
    switch (intent.kind) {
      case 'place': {
        // The order the gate journalled with its intent (journalGate), or one journalled now.
        let rec = core.tracker.adopt(intent);
        if (rec === undefined) {
          if (core.tracker.get(intent.clientId)) {
            // The pipeline refuses reused clientIds before this point; a caller that bypasses it
            // must not get a second order under the same id (reconciliation keys on it).
            core.o.log.error({ clientId: intent.clientId, strategy: intent.strategy }, 'clientId already used; intent dropped');
            return;
          }
          rec = core.tracker.create(newOrderOf(intent, 'open'));
        }
        const clientId = rec.clientId;
        // submission.ts: journalled, then sent (open API, legacy /v1 as fallback).
        core.enqueue(clientId, () => place(core, clientId));
        noteSendQueued();
        return;
      }
      case 'cancel':
        core.cancelWanted.add(intent.clientId);
        core.enqueue(intent.clientId, () => cancel(core, intent.clientId));
        noteSendQueued();
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

  /**
   * Pipeline: journals an intent, its verdict and the order it lets through in one commit (see
   * ReconcilingVenue), with its send when the open API will take it: submit queues the placement
   * on a chain of its own (a new clientId), which sends before any other turn of the event loop.
   */
  journalGate(ts: number, intent: Intent, d: RiskDecisionRecord, sent: PlaceIntent | undefined, taken: RiskDecisionRecord): boolean {
    const core = this.#core;
    return core.tracker.gate(ts, intent, d, sent, 'open', taken, core.breaker.closed && !core.stopped);
  }

  /** Cancels every live order (of a strategy and/or symbol). Used by cancel-all intents and shutdown. */
  cancelAll(filter: { strategy?: string; symbol?: string } = {}): void {
    const core = this.#core;
    const live = core.tracker.liveOrders(filter);
    // With the open API down, one legacy "cancel selected" call is kinder to the 60/min limit
    // than one call per order. Only orders whose exchange id is known can be named there.
    if (!core.breaker.closed && core.legacy && live.length > 1) {
      const named = live.filter((o) => o.orderId !== undefined && legacyPairOk(o.symbol));
      if (named.length > 1) {
        for (const o of named) core.cancelWanted.add(o.clientId);
        core.track(cancelSelectedLegacy(core, named));
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
    const core = this.#core;
    this.cancelAll();
    const deadline = core.now() + waitMs;
    for (;;) {
      await this.idle();
      const live = core.tracker.liveOrders();
      if (live.length === 0 || core.now() >= this.#settleBy(live, deadline) || core.stopped) return live;
      await sleep(50);
      await this.tick();
    }
  }

  /**
   * The shutdown deadline, later when an order the exchange says does not exist is on its way to
   * the ORDER_LOST rule (its strikes span `minSpanMs`, then two lookups): settled as lost, it no
   * longer makes the stop exit 3. Never later than `minSpanMs` + 5 s past the given deadline.
   */
  #settleBy(live: readonly OrderRecord[], deadline: number): number {
    const lost = this.#core.lost;
    let by = deadline;
    for (const o of live) {
      const s = lost.of(o.clientId);
      if (s !== undefined) by = Math.max(by, s.firstAt + lost.minSpanMs + 5000);
    }
    return Math.min(by, deadline + lost.minSpanMs + 5000);
  }

  /** Feeds a user-data executionReport to the tracker. */
  onExecutionReport(er: ExecutionReportEvent): void {
    this.#core.tracker.applyExecutionReport(er);
  }

  /**
   * Reconciles the tracker with the exchange: open orders, every live tracked order, recent
   * account trades and balances. Run at start-up (before strategies get control) and after a
   * user-stream reconnect. Resolves when done; failures are logged and leave orders as they were.
   * Shutdown (stop) awaits one under way, which ends at its next step; none starts after.
   */
  reconcile(reason: string): Promise<void> {
    return this.#reconciler.reconcile(reason);
  }

  /**
   * Start-up after a stop or a crash: loads the ledger's live orders, marks those whose request
   * may have gone out as UNKNOWN (the process died before the answer), reconciles, then keeps
   * resolving UNKNOWN orders until none is left or `waitMs` passes. Strategies start after this.
   * Returns the orders still UNKNOWN (normally none).
   */
  recover(waitMs = this.#core.settleMs + 2000): Promise<OrderRecord[]> {
    return this.#reconciler.recover(waitMs);
  }

  /** Fetches balances from the exchange and records them (through `onBalances` when given). */
  refreshBalances(): Promise<void> {
    return this.#reconciler.refreshBalances();
  }

  /**
   * One pass of the background loop: probe a half-open breaker, settle UNKNOWN orders, try again
   * cancels that did not settle (a cancel lost to a timeout leaves the order resting on the book,
   * where it can still fill; cancelling twice is harmless, the second is refused as not open), and
   * check live orders over REST: often where no stream reports them, rarely where one does.
   */
  tick(): Promise<void> {
    return this.#reconciler.tick();
  }

  /** Fetches the account trades of one order and records the missing fills. */
  fetchFills(clientId: string): Promise<void> {
    return this.#fills.fetchFills(clientId);
  }

  /** Fetches missing fills of every order updated since `since` whose fills do not add up (shutdown, start-up). */
  fetchAllMissingFills(since: number): Promise<void> {
    return this.#fills.fetchAllMissingFills(since);
  }
}
