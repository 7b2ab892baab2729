/**
 * What the parts of the order router share: its settings, the per-order call chains (calls for
 * one order are serialised: a cancel waits for its placement's outcome), the open-API circuit
 * breaker and the calls that feed it, and the handful of operations one part asks of another.
 * The parts (submission, unknown-outcome resolution, legacy fallback, reconciliation, fills) hold
 * no reference to each other: they reach each other through {@link RouterOps}, implemented once by
 * routerOperations.ts (each method names the function it runs).
 */
import { ExchangeError, NetworkError, RateLimitedError, UnknownOutcomeError } from '../core/errors.js';
import type { Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import { CircuitBreaker, type BreakerFailure } from './CircuitBreaker.js';
import { LookupBackoff } from './lookupBackoff.js';
import { LostOrders } from './lostOrders.js';
import type { LegacyOrderPort, OpenOrderPort } from './ports.js';
import type { OrderTracker } from './OrderTracker.js';
import { isTerminal } from './orderState.js';
import { RepeatLog } from './repeatLog.js';
import type { OrderRouterOptions, RouterStats } from './routerOptions.js';

/** The operations one part of the router asks of another. */
export interface RouterOps {
  /** Sends a PENDING order (submission). */
  place(clientId: string): Promise<void>;
  /** Cancels a live order, resolving it first when it cannot be named yet (submission). */
  cancel(clientId: string): Promise<void>;
  /** Finds out what happened to a PENDING/UNKNOWN order (unknown-outcome resolution). */
  resolve(clientId: string, mayRetry: boolean): Promise<void>;
  /** Refreshes a known order over REST. */
  refreshOrder(o: OrderRecord): Promise<void>;
  /** Applies an order snapshot from REST and watches its fills (fills). */
  applyRest(x: Order, source: string): void;
}

/** The state and plumbing shared by the router's parts. */
export class RouterCore {
  readonly o: OrderRouterOptions;
  readonly open: OpenOrderPort;
  readonly legacy: LegacyOrderPort | undefined;
  readonly tracker: OrderTracker;
  readonly breaker: CircuitBreaker;
  readonly settleMs: number;
  readonly maxRetryAgeMs: number;
  /** The tail of each order's call chain; present while a call for the order is queued or running. */
  readonly chains = new Map<string, Promise<void>>();
  readonly #inflight = new Set<Promise<void>>();
  /** Orders a cancel was asked for and has not settled yet. */
  readonly cancelWanted = new Set<string>();
  /** When the last cancel request of an order went out (retry pacing). */
  readonly cancelTried = new Map<string, number>();
  /** Orders of an earlier run, loaded at start-up: never sent again, whatever a lookup shows. */
  readonly earlierRun = new Set<string>();
  /** Pacing of the repeated lookups of orders whose outcome is unknown. */
  readonly lookups: LookupBackoff;
  /** Orders the exchange answered "does not exist" for (lostOrders.ts). */
  readonly lost: LostOrders;
  /** Log lines that repeat for one order, rate-limited. */
  readonly repeats: RepeatLog;
  readonly stats: RouterStats = { openRequests: 0, legacyRequests: 0, reconciliations: 0, retries: 0, lost: 0 };
  stopped = false;
  #ops: RouterOps | undefined;

  constructor(o: OrderRouterOptions) {
    this.o = o;
    this.open = o.open;
    this.legacy = o.legacy;
    this.tracker = o.tracker;
    this.settleMs = o.settleMs ?? 6000;
    this.maxRetryAgeMs = o.maxRetryAgeMs ?? 10_000;
    this.lookups = new LookupBackoff(o.lookupBackoff);
    this.lost = new LostOrders(o.lostOrders);
    this.repeats = new RepeatLog(o.log, () => o.clock.now());
    this.breaker = new CircuitBreaker(o.clock, o.breaker, (s, why) => {
      o.log.warn({ breaker: s, why }, `open API circuit ${s}`);
      try {
        o.ledger.journal(o.clock.now(), 'breaker', { state: s, why });
      } catch (err) {
        // Reading the breaker's state changes it (open to half-open), in the poll loop's timer and
        // the stop's cancel-all: a throw there would end the process, or the stop, with orders
        // resting. The ledger tells the run of the failed write (onWriteFailure), which stops it.
        o.log.error({ breaker: s, err: errInfo(err) }, 'could not journal the open API circuit change');
      }
      o.onBreaker?.(s, why);
    });
  }

  /** The operations of the other parts (wired once by the router). */
  get ops(): RouterOps {
    if (!this.#ops) throw new Error('router parts not wired');
    return this.#ops;
  }

  set ops(ops: RouterOps) {
    this.#ops = ops;
  }

  /** The run's clock, now. */
  now(): number {
    return this.o.clock.now();
  }

  /** A local timestamp on the exchange's clock. */
  exchangeTime(local: number): number {
    return local + (this.o.timeOffsetMs?.() ?? 0);
  }

  /** Sends the half-open probe; its answer closes or reopens the breaker. */
  async probe(): Promise<void> {
    try {
      await this.open.time();
      this.breaker.recordSuccess();
      this.o.log.info({}, 'open API answered the probe; back to the open API');
    } catch (err) {
      this.noteOpenFailure(err, true);
    }
  }

  /** Feeds an open-API failure to the breaker. A 4XX refusal proves the server is up. */
  noteOpenFailure(err: unknown, probe = false): void {
    const kind = breakerFailure(err);
    if (kind) this.breaker.recordFailure(kind);
    else if (!probe && err instanceof ExchangeError) this.breaker.recordSuccess();
  }

  /** Runs an open-API read, feeding the breaker. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const r = await fn();
      this.breaker.recordSuccess();
      return r;
    } catch (err) {
      this.noteOpenFailure(err);
      throw err;
    }
  }

  /** Queues `fn` behind the order's earlier calls and tracks it until done. */
  enqueue(clientId: string, fn: () => Promise<void>): void {
    this.track(this.serialised(clientId, fn));
  }

  /** Runs `fn` after every earlier call for the same order; errors are logged, thrown on only when the log fails. */
  serialised(clientId: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.chains.get(clientId) ?? Promise.resolve();
    // Once per order and period: on a full disk every retry of the stop's cancels fails the same way.
    const next = prev.then(fn).catch((err: unknown) => this.repeats.write('error', `${clientId} task failed`, { clientId, err: errInfo(err) }, 'order task failed'));
    // `next` rejects only when even the log line failed (the caller's tracking reports that); the
    // order's later calls still run after it.
    const tail = next.catch(() => undefined);
    this.chains.set(clientId, tail);
    void tail.then(() => {
      if (this.chains.get(clientId) === tail) this.chains.delete(clientId);
    });
    return next;
  }

  /**
   * Keeps `p` among the calls {@link idle} waits for. Nothing awaits it: a rejection (an error its
   * own handling threw again, such as a log or ledger write failing) goes to `onTaskFailure`
   * instead of becoming an unhandled rejection that ends the process with orders resting.
   */
  track(p: Promise<void>): void {
    const done = p.catch((err: unknown) => this.#taskFailed(err));
    this.#inflight.add(done);
    void done.finally(() => this.#inflight.delete(done));
  }

  #taskFailed(err: unknown): void {
    try {
      if (this.o.onTaskFailure) this.o.onTaskFailure(err, 'an order router task');
      else this.o.log.error({ err: errInfo(err) }, 'order router task failed');
    } catch {
      // The report itself failed (its log on a full disk): thrown on, it would end the process
      // with orders resting, as the failure it reports would have.
    }
  }

  /** Resolves when every queued call has finished. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  /** A lookup of an order settled nothing: the next one waits (at least a rate limit's Retry-After). */
  lookupUnsettled(clientId: string, err?: unknown): void {
    this.lookups.unsettled(clientId, this.now(), err instanceof RateLimitedError ? err.retryAfterMs : 0);
  }

  /** A cancel settled (done, or nothing left to cancel): no more retries for it. */
  cancelDone(clientId: string): void {
    this.cancelWanted.delete(clientId);
    this.cancelTried.delete(clientId);
  }
}

/** Waits `ms` of wall time. */
export function sleep(ms: number): Promise<void> {
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

/**
 * After a cancel failed: looks the order up (not when the outcome is unknown: resolution by
 * clientId handles that) and warns only when it is still open. A refused cancel most often met an
 * order that had just filled, whose report was still on its way: routine for a market maker, so
 * it is logged at info with the state found.
 */
export async function settleFailedCancel(core: RouterCore, o: OrderRecord, err: unknown, what: string): Promise<void> {
  if (err instanceof UnknownOutcomeError) {
    core.repeats.write('warn', `${o.clientId} ${what} unknown`, { clientId: o.clientId, err: errInfo(err) }, `${what} failed, outcome unknown; tried again until the order settles`);
    return;
  }
  await core.ops.refreshOrder(o);
  const state = core.tracker.get(o.clientId)?.state;
  if (state !== undefined && isTerminal(state)) core.o.log.info({ clientId: o.clientId, state, err: errInfo(err) }, `${what} refused: the order is already ${state}`);
  else core.repeats.write('warn', `${o.clientId} ${what} failed`, { clientId: o.clientId, state, err: errInfo(err) }, `${what} failed; order refreshed`);
}

/** Error summary for logs: never the request itself (it may carry signed parameters). */
export function errInfo(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'unknown', message: String(err) };
}
