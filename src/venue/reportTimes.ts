/**
 * When the simulated venue's reports reach the bus (SimVenue's header): answers to a request
 * (acknowledgement, refusal, a cancel, the fills of an order that trades on arrival) `ack` after
 * the engine, and what the market later does to a resting order over the user data stream, `ack`
 * plus the stream hold after it. Each way keeps its own order (one connection each), so a stream
 * report can arrive after a later answer about the same order: {@link FinalShown} keeps such an
 * order from moving back in its strategy's view, and {@link StreamTail} keeps an answer that shows
 * an order further on than its stream reports (a cancel's, after fills still held) behind them.
 */
import { isTerminalState, type OrderUpdateEvent } from '../bus/events.js';

/** Delays of the venue's reports, drawn from `ack`, raised so that each way keeps its order. */
export class ReportTimes {
  #lastAnswerAt = -Infinity;
  #lastStreamAt = -Infinity;
  /** True while the engine executes a request (place, cancel): its reports answer it. */
  inRequest = false;

  constructor(
    private readonly now: () => number,
    private readonly ack: () => number,
    /** The stream hold (ms); 0: every report takes the answers' way. */
    readonly holdMs: number,
  ) {}

  /** Delay of an answer: an ack draw, raised so that it reaches the bus after the previous answer. */
  answer(): number {
    const now = this.now();
    const at = Math.max(now + this.ack(), this.#lastAnswerAt);
    this.#lastAnswerAt = at;
    return at - now;
  }

  /** Delay of the report the engine is making: an answer's during a request (or without a hold), else a user-stream report's. */
  report(): number {
    if (this.inRequest || this.holdMs === 0) return this.answer();
    const now = this.now();
    const at = Math.max(now + this.ack() + this.holdMs, this.#lastStreamAt);
    this.#lastStreamAt = at;
    return at - now;
  }
}

/**
 * OrderUpdates of orders still on their way (count per clientId), and the orders whose final state
 * the strategy already got from one of them: a later-arriving, older update of such an order (a
 * fill's PARTIALLY_FILLED after the cancel's answer) is not published, as a live tracker never
 * moves an order back. Entries go when an order's last update is delivered: memory stays flat.
 */
export class FinalShown {
  readonly #pending = new Map<string, number>();
  readonly #shown = new Set<string>();

  /** Notes an update of `clientId` scheduled for delivery. */
  scheduled(clientId: string): void {
    this.#pending.set(clientId, (this.#pending.get(clientId) ?? 0) + 1);
  }

  /** Whether a scheduled update, now due, is to be published. */
  due(e: OrderUpdateEvent): boolean {
    const id = e.clientId;
    const left = (this.#pending.get(id) ?? 1) - 1;
    if (left === 0) this.#pending.delete(id);
    else this.#pending.set(id, left);
    if (this.#shown.has(id)) {
      if (left === 0) this.#shown.delete(id);
      return false;
    }
    if (left > 0 && isTerminalState(e.state)) this.#shown.add(id);
    return true;
  }
}

/**
 * When each order's last report on the stream way is due. An answer showing the order further on
 * than those reports (a cancel's answer, with fills still held in the stream) waits for them, as a
 * live tracker holds such an update until the fills are recorded (src/execution/fillGate.ts): the
 * strategy hears the fills, then the close, and never sees an order closed while its position
 * still lacks the fills. Entries go with the order's final report: memory stays flat.
 */
export class StreamTail {
  readonly #due = new Map<string, number>();

  /**
   * The delay of a report of `clientId` the engine makes at `now`, due after `d`: a stream
   * report's is noted; an answer's is raised to the order's last stream report, if later.
   */
  delay(clientId: string, now: number, d: number, answer: boolean, final: boolean): number {
    const tail = this.#due.get(clientId);
    if (final) this.#due.delete(clientId);
    else if (!answer) this.#due.set(clientId, now + d);
    return answer && tail !== undefined && tail > now + d ? tail - now : d;
  }
}
