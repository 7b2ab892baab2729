/**
 * The trading pipeline: strategy intents -> risk -> ledger -> venue, with results back on the bus.
 * Live, paper and backtest compose the same pieces; only the venue (router or simulator), the
 * ledger (present live and paper, optional in backtests) and the clock change.
 *
 * A strategy host (which owns the plugins and their contexts) calls {@link Pipeline.gate} for each
 * intent and, when accepted, {@link Pipeline.venue}.submit with the intent the gate returned. Both
 * are synchronous and cheap: the gate is one risk check plus (live) two prepared inserts, and the
 * venue journals before it acts. Rejections become intentRejected events published by the host.
 *
 * The pipeline also listens to the bus for what the venue needs (executionReports for the
 * tracker; reconcileNeeded after a user-stream reconnect) and halts trading while it reconciles.
 */
import type { Clock } from '../core/clock.js';
import type { Bus } from '../bus/Bus.js';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { Ledger } from '../store/Ledger.js';
import type { ExecLogger } from './log.js';

/** The verdict of the risk check on one intent (the shape of the risk checker's RiskDecision). */
export type PipelineDecision =
  | { readonly kind: 'accept' }
  | { readonly kind: 'adjust'; readonly intent: PlaceIntent; readonly fields?: readonly string[] }
  | { readonly kind: 'reject'; readonly reason: string; readonly message: string };

/** The risk check as the pipeline calls it; `strategy` is whatever the host passes (its state view). */
export type RiskCheck<S> = (intent: Intent, strategy: S) => PipelineDecision;

/** What the pipeline needs from a live router (absent for simulated venues). */
export interface ReconcilingVenue {
  onExecutionReport(er: Extract<BusEvent, { type: 'executionReport' }>): void;
  /** A venue refused an intent outright (a simulator's REST-error analogue); optional. */
  onIntentRejected?(e: Extract<BusEvent, { type: 'intentRejected' }>): void;
  reconcile(reason: string): Promise<void>;
}

/** Options of {@link createPipeline}. */
export interface PipelineOptions<S> {
  readonly bus: Bus;
  readonly venue: Venue;
  readonly risk: RiskCheck<S>;
  readonly clock: Clock;
  readonly log: ExecLogger;
  /** Live and paper: every intent and risk decision is journalled. Backtests may omit it. */
  readonly ledger?: Ledger;
  /** Live: the router, fed with executionReports and asked to reconcile on reconcileNeeded. */
  readonly router?: ReconcilingVenue;
  /**
   * Whether the pipeline publishes its own tradingState events while reconciling (default true).
   * A run with a trading-state machine turns this off and lets the machine be the one publisher.
   */
  readonly publishTradingState?: boolean;
  /** Called when a reconciliation finished (e.g. to clear the trading-state machine's reconcile hold). */
  readonly onReconciled?: () => void;
  /** First wait before retrying a failed reconciliation (default 1000 ms; doubles up to 30 s). */
  readonly reconcileRetryMs?: number;
}

/** Longest wait between attempts of a failing reconciliation. */
const MAX_RECONCILE_RETRY_MS = 30_000;

/** A composed pipeline. */
export interface Pipeline<S> {
  /** Risk check with journalling; a strategy host calls it for every intent. */
  readonly gate: (intent: Intent, strategy: S) => PipelineDecision;
  /** The venue to submit accepted intents to. */
  readonly venue: Venue;
  /** Current trading state as the pipeline sees it (HALTED while reconciling). */
  readonly state: TradingStateName;
  /** Counters for status lines and reports. */
  readonly stats: { intents: number; accepted: number; adjusted: number; rejected: number };
  /** Starts listening to the bus. */
  start(): void;
  /** Stops listening; the venue and ledger are closed by their owners. */
  stop(): void;
  /** Resolves when no reconciliation is running. */
  settled(): Promise<void>;
}

/** Longest clientId the exchange accepts (spec: clientId length 50). */
const MAX_CLIENT_ID = 50;

/** Composes risk, ledger and venue. */
export function createPipeline<S>(o: PipelineOptions<S>): Pipeline<S> {
  const stats = { intents: 0, accepted: 0, adjusted: 0, rejected: 0 };
  let state: TradingStateName = 'ACTIVE';
  let reconciling: Promise<void> = Promise.resolve();
  let unlisten: (() => void) | undefined;
  let reconcileAgain = false;
  let running = 0;
  let stopped = false;
  let wakeRetry: (() => void) | undefined;

  /** Waits before the next attempt; stop() cuts the wait short. */
  const retryPause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        wakeRetry = undefined;
        resolve();
      }, ms);
      wakeRetry = () => {
        clearTimeout(t);
        wakeRetry = undefined;
        resolve();
      };
    });

  const setState = (s: TradingStateName, reason: string): void => {
    if (s === state) return;
    state = s;
    // With a trading-state machine publishing, it is also what the run journals (one row per change).
    if (o.publishTradingState === false) return;
    o.ledger?.journal(o.clock.now(), 'tradingState', { state: s, reason });
    o.bus.publish({ type: 'tradingState', E: o.clock.now(), state: s, reason });
  };

  const gate = (intent: Intent, strategy: S): PipelineDecision => {
    stats.intents++;
    const now = o.clock.now();
    if (o.ledger === undefined) {
      // Nothing to journal (a backtest): no journalling closures per intent.
      const d = decide(intent, strategy);
      count(d);
      return d;
    }
    const d = journalled(intent, () => o.ledger?.recordIntent(now, intent)) ?? decide(intent, strategy);
    const recorded = journalled(intent, () =>
      o.ledger?.recordRiskDecision(now, {
        intentId: intent.intentId,
        accepted: d.kind !== 'reject',
        adjusted: d.kind === 'adjust',
        reason: d.kind === 'reject' ? d.reason : undefined,
        message: d.kind === 'reject' ? d.message : d.kind === 'adjust' ? `adjusted ${(d.fields ?? []).join(', ')}` : undefined,
      }),
    );
    const out = d.kind === 'reject' ? d : (recorded ?? d);
    count(out);
    return out;
  };

  const count = (d: PipelineDecision): void => {
    if (d.kind === 'reject') stats.rejected++;
    else if (d.kind === 'adjust') stats.adjusted++;
    else stats.accepted++;
  };

  /**
   * Runs one ledger write of the gate. When it fails (disk full, a locked or read-only file) a new
   * order is refused, since nothing may be sent that the journal does not name; a cancel goes on
   * unrecorded, since refusing it would leave an order working on the book for want of disk space.
   * Never throws: the failure is not the strategy's, and a throw would stop it.
   */
  const journalled = (intent: Intent, write: () => void): PipelineDecision | undefined => {
    try {
      write();
      return undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      o.log.error({ intentId: intent.intentId, kind: intent.kind, err: message }, 'journal write failed');
      return intent.kind === 'place' ? { kind: 'reject', reason: 'JOURNAL_FAILED', message: `order not sent: the ledger could not record it (${message})` } : undefined;
    }
  };

  const decide = (intent: Intent, strategy: S): PipelineDecision => {
    if (intent.kind === 'place') {
      if (state !== 'ACTIVE') return { kind: 'reject', reason: 'TRADING_HALTED', message: `trading is ${state}: reconciling with the exchange` };
      if (intent.clientId.length === 0 || intent.clientId.length > MAX_CLIENT_ID || !/^[\w.:-]+$/.test(intent.clientId)) {
        return { kind: 'reject', reason: 'INVALID_CLIENT_ID', message: `clientId=${JSON.stringify(intent.clientId)}: 1 to ${MAX_CLIENT_ID} of [A-Za-z0-9_.:-]` };
      }
      // A clientId must never name two orders: the ledger keys orders by it, and the exchange
      // does not check uniqueness, so a reused id would make reconciliation ambiguous.
      if (o.ledger?.order(intent.clientId)) {
        return { kind: 'reject', reason: 'DUPLICATE_CLIENT_ID', message: `clientId=${JSON.stringify(intent.clientId)} was already used` };
      }
    }
    return o.risk(intent, strategy);
  };

  const reconcile = (reason: string): void => {
    const router = o.router;
    if (!router) return;
    if (running > 0) {
      reconcileAgain = true;
      return;
    }
    running++;
    setState('HALTED', `reconciling: ${reason}`);
    reconciling = (async () => {
      try {
        let delay = o.reconcileRetryMs ?? 1000;
        do {
          reconcileAgain = false;
          try {
            await router.reconcile(reason);
          } catch (err) {
            // Fills missed during the gap are still unknown: resuming would decide new orders on a
            // wrong position, so trading stays halted (cancels still pass) until one attempt succeeds.
            o.log.error({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'reconciliation failed; retrying');
            if (stopped) break;
            await retryPause(delay);
            delay = Math.min(delay * 2, MAX_RECONCILE_RETRY_MS);
            reconcileAgain = !stopped;
          }
        } while (reconcileAgain);
      } finally {
        running--;
        setState('ACTIVE', 'reconciled');
        o.onReconciled?.();
      }
    })();
  };

  const onEvent = (e: BusEvent): void => {
    if (e.type === 'executionReport') o.router?.onExecutionReport(e);
    else if (e.type === 'intentRejected') o.router?.onIntentRejected?.(e);
    else if (e.type === 'reconcileNeeded') reconcile(e.reason);
  };

  return {
    gate,
    venue: o.venue,
    get state() {
      return state;
    },
    stats,
    start() {
      stopped = false;
      // A plain bus listener (no RxJS subscriber bookkeeping per event): it is called for every
      // market event of the run and acts on three rare types only.
      unlisten ??= o.bus.listen(onEvent);
    },
    stop() {
      stopped = true;
      wakeRetry?.();
      unlisten?.();
      unlisten = undefined;
    },
    async settled() {
      while (running > 0) await reconciling;
    },
  };
}
