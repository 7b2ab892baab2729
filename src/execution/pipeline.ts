/**
 * The trading pipeline: strategy intents -> risk -> ledger -> venue, with results back on the bus.
 * Live, paper and backtest compose the same pieces; only the venue (router or simulator), the
 * ledger (present live and paper, optional in backtests) and the clock change.
 *
 * A strategy host (which owns the plugins and their contexts) calls {@link Pipeline.gate} for each
 * intent and, when accepted, {@link Pipeline.venue}.submit with the intent the gate returned. Both
 * are synchronous and cheap: the gate is one risk check plus (live and paper) one commit of the
 * intent, its verdict and the order it lets through, and the venue journals before it acts.
 * Rejections become intentRejected events published by the host.
 *
 * The pipeline also listens to the bus for what the venue needs (executionReports for the
 * tracker; reconcileNeeded after a user-stream reconnect) and halts new orders while it
 * reconciles. It publishes no tradingState event: the trading-state machine (src/run/assemble.ts)
 * hears reconcileNeeded too and is the one publisher.
 */
import type { Clock } from '../core/clock.js';
import type { Bus } from '../bus/Bus.js';
import type { IntentDecision } from '../bus/decision.js';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { Ledger } from '../store/Ledger.js';
import type { RiskDecisionRecord } from '../store/records.js';
import type { ExecLogger } from './log.js';

/** The risk check as the pipeline calls it; `strategy` is whatever the host passes (its state view). */
export type RiskCheck<S> = (intent: Intent, strategy: S) => IntentDecision;

/** What the pipeline needs from a venue that tracks orders (the live router, a tracked simulator). */
export interface ReconcilingVenue {
  onExecutionReport(er: Extract<BusEvent, { type: 'executionReport' }>): void;
  /** A venue refused an intent outright (a simulator's REST-error analogue); optional. */
  onIntentRejected?(e: Extract<BusEvent, { type: 'intentRejected' }>): void;
  reconcile(reason: string): Promise<void>;
  /**
   * Journals an intent, the gate's verdict and, for a placement it lets through (`sent`), the
   * order PENDING, in one commit; the venue's submit then tracks that order without a commit of
   * its own. When the ledger already has an order under the clientId it writes no order, records
   * `taken` as the verdict and returns false. Optional: without it the gate journals the intent
   * and verdict and the venue its order, two commits.
   */
  journalGate?(ts: number, intent: Intent, d: RiskDecisionRecord, sent: PlaceIntent | undefined, taken: RiskDecisionRecord): boolean;
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
  /** Live and paper: the venue fed with executionReports and asked to reconcile on reconcileNeeded. */
  readonly reconciler?: ReconcilingVenue;
  /**
   * Called when a reconciliation finished (the trading-state machine's reconcile hold ends: the
   * machine, which heard reconcileNeeded on the bus, is the one publisher of tradingState events).
   */
  readonly onReconciled?: () => void;
  /** First wait before retrying a failed reconciliation (default 1000 ms; doubles up to 30 s). */
  readonly reconcileRetryMs?: number;
}

/** Longest wait between attempts of a failing reconciliation. */
const MAX_RECONCILE_RETRY_MS = 30_000;

/** A composed pipeline. */
export interface Pipeline<S> {
  /** Risk check with journalling; a strategy host calls it for every intent. */
  readonly gate: (intent: Intent, strategy: S) => IntentDecision;
  /** The venue to submit accepted intents to. */
  readonly venue: Venue;
  /** Current trading state as the pipeline sees it (HALTED while reconciling). */
  readonly state: TradingStateName;
  /** Counters for status lines and reports. */
  readonly stats: PipelineStats;
  /** Starts listening to the bus. */
  start(): void;
  /**
   * Stops listening and refuses new reconciliations; one under way goes on until the venue stops
   * it (await {@link settled} before closing the ledger). The venue and ledger are closed by their owners.
   */
  stop(): void;
  /** Resolves when no reconciliation is running. */
  settled(): Promise<void>;
}

/** Counts of the gate's decisions. */
export type PipelineStats = { intents: number; accepted: number; adjusted: number; rejected: number };

/** Longest clientId the exchange accepts (spec: clientId length 50). */
const MAX_CLIENT_ID = 50;

/** Composes risk, ledger and venue: the gate in front of the venue, and reconciliation on reconcileNeeded. */
export function createPipeline<S>(o: PipelineOptions<S>): Pipeline<S> {
  const stats: PipelineStats = { intents: 0, accepted: 0, adjusted: 0, rejected: 0 };
  const reconciliation = new Reconciliation(o);
  const gate = journalledGate(o, stats, () => reconciliation.state);
  let unlisten: (() => void) | undefined;
  const onEvent = (e: BusEvent): void => {
    if (e.type === 'executionReport') o.reconciler?.onExecutionReport(e);
    else if (e.type === 'intentRejected') o.reconciler?.onIntentRejected?.(e);
    else if (e.type === 'reconcileNeeded') reconciliation.request(e.reason);
  };
  return {
    gate,
    venue: o.venue,
    get state() {
      return reconciliation.state;
    },
    stats,
    start() {
      reconciliation.stopped = false;
      // A plain bus listener (no RxJS subscriber bookkeeping per event): it is called for every
      // market event of the run and acts on three rare types only.
      unlisten ??= o.bus.listen(onEvent);
    },
    stop() {
      reconciliation.stop();
      unlisten?.();
      unlisten = undefined;
    },
    settled: () => reconciliation.settled(),
  };
}

/**
 * The gate a strategy host calls for each intent: the pipeline's own checks (halted while
 * reconciling, clientId shape and reuse), then the risk check; with a ledger, the intent and the
 * decision are journalled together before the decision is returned, and with a venue that
 * journals its orders in that commit (journalGate), the order it lets through too.
 */
function journalledGate<S>(o: PipelineOptions<S>, stats: PipelineStats, state: () => TradingStateName): (intent: Intent, strategy: S) => IntentDecision {
  const count = (d: IntentDecision): void => {
    if (d.kind === 'reject') stats.rejected++;
    else if (d.kind === 'adjust') stats.adjusted++;
    else stats.accepted++;
  };
  const venue = o.reconciler?.journalGate !== undefined ? o.reconciler : undefined;
  const ledger = o.ledger;
  // A venue journalling the order in the gate's commit checks its clientId there (the order's key).
  const taken = venue === undefined ? ledger : undefined;
  const decide = (intent: Intent, strategy: S): IntentDecision => {
    if (intent.kind === 'place') {
      const s = state();
      if (s !== 'ACTIVE') return { kind: 'reject', reason: 'TRADING_HALTED', message: `trading is ${s}: reconciling with the exchange` };
      if (intent.clientId.length === 0 || intent.clientId.length > MAX_CLIENT_ID || !/^[\w.:-]+$/.test(intent.clientId)) {
        return { kind: 'reject', reason: 'INVALID_CLIENT_ID', message: `clientId=${JSON.stringify(intent.clientId)}: 1 to ${MAX_CLIENT_ID} of [A-Za-z0-9_.:-]` };
      }
      // A clientId must never name two orders: the ledger keys orders by it, and the exchange
      // does not check uniqueness, so a reused id would make reconciliation ambiguous.
      if (taken?.order(intent.clientId)) return duplicate(intent.clientId);
    }
    return o.risk(intent, strategy);
  };
  if (ledger === undefined) {
    // Nothing to journal (a backtest): no journalling closures per intent.
    return (intent, strategy) => {
      stats.intents++;
      const d = decide(intent, strategy);
      count(d);
      return d;
    };
  }
  return (intent, strategy) => {
    stats.intents++;
    const now = o.clock.now();
    let d = decide(intent, strategy);
    const verdict = verdictOf(intent.intentId, d);
    // The intent and its verdict in one commit, before the order is journalled and sent (with it, when the venue can).
    const recorded = journalled(o.log, intent, () => {
      const sent = venue === undefined ? undefined : sentOf(intent, d);
      if (sent === undefined) {
        ledger.recordGate(now, intent, verdict);
        return;
      }
      const dup = duplicate(sent.clientId);
      if (venue?.journalGate?.(now, intent, verdict, sent, verdictOf(intent.intentId, dup)) === false) d = dup;
    });
    const out = d.kind === 'reject' ? d : (recorded ?? d);
    count(out);
    return out;
  };
}

/** The refusal of a clientId that already names an order. */
function duplicate(clientId: string): IntentDecision {
  return { kind: 'reject', reason: 'DUPLICATE_CLIENT_ID', message: `clientId=${JSON.stringify(clientId)} was already used` };
}

/** A decision on intent `intentId` as the ledger records it. */
function verdictOf(intentId: string, d: IntentDecision): RiskDecisionRecord {
  return {
    intentId,
    accepted: d.kind !== 'reject',
    adjusted: d.kind === 'adjust',
    reason: d.kind === 'reject' ? d.reason : undefined,
    message: d.kind === 'reject' ? d.message : d.kind === 'adjust' ? `adjusted ${d.fields.join(', ')}` : undefined,
  };
}

/** The placement a decision lets through: the intent, or the adjusted one; undefined for a refusal or a cancel. */
function sentOf(intent: Intent, d: IntentDecision): PlaceIntent | undefined {
  if (d.kind === 'reject' || intent.kind !== 'place') return undefined;
  return d.kind === 'adjust' ? d.intent : intent;
}

/**
 * Runs one ledger write of the gate. When it fails (disk full, a locked or read-only file) a new
 * order is refused, since nothing may be sent that the journal does not name; a cancel goes on
 * unrecorded, since refusing it would leave an order working on the book for want of disk space.
 * Never throws: the failure is not the strategy's, and a throw would stop it.
 */
function journalled(log: ExecLogger, intent: Intent, write: () => void): IntentDecision | undefined {
  try {
    write();
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error({ intentId: intent.intentId, kind: intent.kind, err: message }, 'journal write failed');
    return intent.kind === 'place' ? { kind: 'reject', reason: 'JOURNAL_FAILED', message: `order not sent: the ledger could not record it (${message})` } : undefined;
  }
}

/**
 * Reconciliation on reconcileNeeded: new orders are halted (cancels pass) until one attempt
 * succeeds; a failed attempt is retried with a doubling wait; a request during a run runs again
 * after it. Without a reconciling venue (a backtest) a request does nothing.
 */
class Reconciliation {
  state: TradingStateName = 'ACTIVE';
  stopped = false;
  #running = 0;
  #again = false;
  #current: Promise<void> = Promise.resolve();
  #wakeRetry: (() => void) | undefined;

  constructor(private readonly o: Pick<PipelineOptions<unknown>, 'reconciler' | 'log' | 'onReconciled' | 'reconcileRetryMs'>) {}

  request(reason: string): void {
    const venue = this.o.reconciler;
    if (!venue) return;
    if (this.#running > 0) {
      this.#again = true;
      return;
    }
    this.#running++;
    this.state = 'HALTED';
    this.#current = this.#run(venue, reason);
  }

  async #run(venue: ReconcilingVenue, reason: string): Promise<void> {
    try {
      let delay = this.o.reconcileRetryMs ?? 1000;
      do {
        this.#again = false;
        try {
          await venue.reconcile(reason);
        } catch (err) {
          // Fills missed during the gap are still unknown: resuming would decide new orders on a
          // wrong position, so trading stays halted (cancels still pass) until one attempt succeeds.
          this.o.log.error({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'reconciliation failed; retrying');
          if (this.stopped) break;
          await this.#pause(delay);
          delay = Math.min(delay * 2, MAX_RECONCILE_RETRY_MS);
          this.#again = !this.stopped;
        }
      } while (this.#again);
    } finally {
      this.#running--;
      this.state = 'ACTIVE';
      // Nothing awaits this run but settled(): a throw here (a journal write) would be an
      // unhandled rejection ending the process, so it is logged instead.
      try {
        this.o.onReconciled?.();
      } catch (err) {
        this.o.log.error({ err: err instanceof Error ? err.message : String(err) }, 'could not record the end of a reconciliation');
      }
    }
  }

  /** Waits before the next attempt; stop() cuts the wait short. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#wakeRetry = undefined;
        resolve();
      }, ms);
      this.#wakeRetry = () => {
        clearTimeout(t);
        this.#wakeRetry = undefined;
        resolve();
      };
    });
  }

  stop(): void {
    this.stopped = true;
    this.#wakeRetry?.();
  }

  async settled(): Promise<void> {
    while (this.#running > 0) await this.#current;
  }
}
