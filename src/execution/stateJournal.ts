/**
 * The journal of a run's trading-state changes: one `tradingState` row per change of the run-wide
 * state (what the trading-state machine publishes), and on the row that ends a halt, how long it
 * lasted (`haltedMs`) and why it began (`haltReason`). Halts the machine decided (a user stream
 * down, an unreachable exchange) were published but never journalled, so an outage of 26 s left
 * no trace in the ledger.
 */
import type { TradingStateEvent } from '../bus/events.js';
import type { Ledger } from '../store/Ledger.js';

/** Journals trading-state changes with the duration of each halt. */
export class TradingStateJournal {
  readonly #ledger: Ledger;
  #halt: { readonly since: number; readonly reason: string } | undefined;

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
  }

  /** Journals one change (events arrive only when the state changed). */
  record(e: TradingStateEvent): void {
    const data: Record<string, unknown> = { state: e.state, reason: e.reason };
    if (e.state === 'HALTED') {
      this.#halt ??= { since: e.E, reason: e.reason };
    } else if (this.#halt !== undefined) {
      data.haltedMs = Math.max(0, e.E - this.#halt.since);
      data.haltReason = this.#halt.reason;
      this.#halt = undefined;
    }
    this.#ledger.journal(e.E, 'tradingState', data);
  }
}
