/**
 * Puts the order tracker and ledger in front of a simulated venue (paper mode), so paper runs keep
 * the same journal as live runs: each order is journalled PENDING before the venue sees it, and the
 * venue's executionReports (SimVenue with `emit: 'userData'`) drive the same state machine.
 * Reconciliation is a no-op: a simulator cannot lose messages.
 */
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { IntentRejectedEvent } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { OrderRecord, RiskDecisionRecord } from '../store/records.js';
import { newOrderOf, type OrderTracker } from './OrderTracker.js';
import type { ReconcilingVenue } from './pipeline.js';
import { type OrderSentProbe, orderSent } from '../core/probes.js';

/** A venue wrapper that journals orders in the tracker before the inner venue acts. */
export class TrackedVenue implements Venue, ReconcilingVenue {
  readonly name: string;
  readonly #inner: Venue;
  readonly #tracker: OrderTracker;

  constructor(inner: Venue, tracker: OrderTracker) {
    this.#inner = inner;
    this.#tracker = tracker;
    this.name = `tracked:${inner.name}`;
  }

  submit(intent: Intent): void {
    if (intent.kind === 'place') {
      if (this.#tracker.adopt(intent) === undefined) this.#tracker.create(newOrderOf(intent, 'sim'));
      this.#tracker.markSent(intent.clientId, 'sim');
      if (orderSent.hasSubscribers) orderSent.publish({ at: performance.now(), clientId: intent.clientId } satisfies OrderSentProbe);
    }
    this.#inner.submit(intent);
  }

  /** Pipeline: journals an intent, its verdict and the order it lets through in one commit (see ReconcilingVenue). */
  journalGate(ts: number, intent: Intent, d: RiskDecisionRecord, sent: PlaceIntent | undefined, taken: RiskDecisionRecord): boolean {
    // submit hands the order to the simulator in the same synchronous chain: its send is journalled here.
    return this.#tracker.gate(ts, intent, d, sent, 'sim', taken, true);
  }

  onExecutionReport(er: ExecutionReportEvent): void {
    this.#tracker.applyExecutionReport(er);
  }

  /** The simulator refused a placement without an executionReport: the journalled order is REJECTED. */
  onIntentRejected(e: IntentRejectedEvent): void {
    if (e.intent.kind === 'place') this.#tracker.markRejected(e.intent.clientId, `${e.reason}: ${e.message}`, 'venue');
  }

  reconcile(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Start-up: the ledger's live orders belong to an earlier run's simulator, which is gone (its
   * book, balances and orders lived in memory). Nothing can fill or cancel them any more, so
   * they are closed as EXPIRED; left live they would count against open-order and exposure
   * limits in every later run. Only simulated orders: a ledger shared with a live run keeps its
   * exchange orders untouched. Returns the orders closed.
   */
  recover(): OrderRecord[] {
    const closed = this.#tracker.load().filter((o) => o.venue === 'sim');
    for (const o of closed) this.#tracker.expire(o.clientId, 'PAPER_RESTART: the simulated venue of an earlier run is gone', 'recover');
    return closed;
  }
}
