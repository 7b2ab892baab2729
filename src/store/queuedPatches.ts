/**
 * Order changes the ledger holds for its next commit (see Ledger.queueUpdate): each order's row
 * once, at its latest state, and every state transition in the order it happened, across orders.
 */
import type { TrackedOrderStateName } from '../bus/events.js';
import type { OrderRecord } from './records.js';

/** One queued order_transitions row. */
export interface QueuedTransition {
  readonly ts: number;
  readonly clientId: string;
  readonly from: TrackedOrderStateName;
  readonly to: TrackedOrderStateName;
  readonly source: string;
  readonly detail: string | null;
}

/** An order's queued row: as the ledger holds it (`before`) and as it is to be written. */
export interface QueuedRow {
  readonly before: OrderRecord;
  after: OrderRecord;
}

/** What one commit writes: rows by clientId, transitions in the order they happened. */
export interface QueuedBatch {
  readonly rows: Map<string, QueuedRow>;
  readonly transitions: QueuedTransition[];
}

/** The queue; successive changes of one order coalesce into one row write. */
export class QueuedPatches {
  #rows = new Map<string, QueuedRow>();
  #transitions: QueuedTransition[] = [];

  /** Nothing queued. */
  get empty(): boolean {
    return this.#rows.size === 0;
  }

  /** Queues an order's change from `before` (the row, or the change queued before) to `after`. */
  add(before: OrderRecord, after: OrderRecord, transition: QueuedTransition | undefined): void {
    const row = this.#rows.get(after.clientId);
    if (row === undefined) this.#rows.set(after.clientId, { before, after });
    else row.after = after;
    if (transition !== undefined) this.#transitions.push(transition);
  }

  /** Everything queued, for one commit; the queue is left empty. */
  take(): QueuedBatch {
    const batch = { rows: this.#rows, transitions: this.#transitions };
    this.#rows = new Map();
    this.#transitions = [];
    return batch;
  }

  /** Puts back a batch whose commit failed, ahead of anything queued since. */
  restore(batch: QueuedBatch): void {
    for (const [clientId, row] of this.#rows) {
      const earlier = batch.rows.get(clientId);
      if (earlier === undefined) batch.rows.set(clientId, row);
      else earlier.after = row.after;
    }
    for (const t of this.#transitions) batch.transitions.push(t);
    this.#rows = batch.rows;
    this.#transitions = batch.transitions;
  }
}
