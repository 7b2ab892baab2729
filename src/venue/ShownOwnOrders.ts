/**
 * The account's own resting orders as the exchange's diff-depth stream shows them: what the book a
 * strategy reads on paper and in a backtest adds to the market's levels (OwnOrdersBook.ts).
 *
 * Live, our orders sit in the exchange's book and reach `ctx.book()` only through the depth
 * stream. A change the engine makes to one (booked, partly filled, filled, cancelled) shows with
 * the next depth message, which the exchange (and the sandbox, src/sandbox/stream-server.ts) sends
 * with the next diff it applies or on its 100 ms tick, whichever comes first. The strategy's own
 * records do not move it: a bid that a sweep filled leaves the book before its strategy hears of
 * the fill, whose report comes later over the user stream. Read from those records instead, a
 * filled bid stayed at the top of a simulated book until that report, so a quoting strategy's mid
 * sat above the swept market and it requoted into the sweep.
 *
 * Here the venue notes each engine report of the account's orders as it happens; the notes are
 * shown when a depth diff of the symbol reaches the strategies' books ({@link flush}) or at the
 * next multiple of `tickMs` on the run's clock, whichever comes first (deterministic in a backtest).
 */
import type { PlaceIntent } from '../bus/intents.js';
import { decimalOfScaled } from '../core/decimalScaled.js';
import { ZERO } from '../core/decimal.js';
import { stateOfStatus } from '../execution/orderState.js';
import type { ScaledExecutionReport } from '../sim/events.js';
import type { OwnOrderView } from '../strategy/types.js';
import { restingQty } from './OwnOrdersBook.js';
import type { Scheduler } from './Scheduler.js';

/** No orders. */
const NONE: readonly OwnOrderView[] = Object.freeze([]);

/** The depth stream's tick: a change no diff carried is shown this long after the last tick at most. */
export const DEPTH_TICK_MS = 100;

/** Own resting orders per symbol as the depth stream has shown them so far. */
export class ShownOwnOrders {
  readonly #scheduler: Scheduler;
  readonly #tickMs: number;
  /** Shown orders per symbol, by clientId. */
  readonly #shown = new Map<string, Map<string, OwnOrderView>>();
  /** Noted, not yet shown: per symbol, each order's latest state (undefined: no longer resting). */
  readonly #pending = new Map<string, Map<string, OwnOrderView | undefined>>();
  /** The list handed out per symbol, rebuilt after a change (OwnOrdersBook keeps its levels per list). */
  readonly #lists = new Map<string, readonly OwnOrderView[]>();
  #tickScheduled = false;

  constructor(scheduler: Scheduler, tickMs: number = DEPTH_TICK_MS) {
    this.#scheduler = scheduler;
    this.#tickMs = tickMs;
  }

  /** An engine report of one of the account's orders, placed by `intent`, at the time the engine made it. */
  note(intent: PlaceIntent, r: ScaledExecutionReport): void {
    const view: OwnOrderView = { clientId: intent.clientId, orderId: r.i, symbol: intent.symbol, side: intent.side, orderType: intent.orderType, state: stateOfStatus(r.X), price: intent.price, quantity: intent.quantity, cumQty: r.z === 0 ? ZERO : decimalOfScaled(r.z, r.qtyScale) };
    let p = this.#pending.get(intent.symbol);
    if (p === undefined) this.#pending.set(intent.symbol, (p = new Map()));
    // The book view's own rule of what rests (OwnOrdersBook.ts); anything else leaves the list.
    p.set(intent.clientId, restingQty(view) === undefined ? undefined : view);
    if (!this.#tickScheduled) {
      this.#tickScheduled = true;
      const now = this.#scheduler.clock.now();
      this.#scheduler.schedule(this.#tickMs - (((now % this.#tickMs) + this.#tickMs) % this.#tickMs), this.#tick);
    }
  }

  /** Shows what was noted for `symbol`: a depth diff of it is reaching the strategies' books. */
  flush(symbol: string): void {
    const p = this.#pending.get(symbol);
    if (p === undefined || p.size === 0) return;
    let shown = this.#shown.get(symbol);
    if (shown === undefined) this.#shown.set(symbol, (shown = new Map()));
    for (const [id, view] of p) {
      if (view === undefined) shown.delete(id);
      else shown.set(id, view);
    }
    p.clear();
    this.#lists.delete(symbol);
  }

  /** The orders of `symbol` shown now (the same list until it changes). */
  orders(symbol: string): readonly OwnOrderView[] {
    let list = this.#lists.get(symbol);
    if (list === undefined) {
      const shown = this.#shown.get(symbol);
      list = shown === undefined || shown.size === 0 ? NONE : Object.freeze([...shown.values()]);
      this.#lists.set(symbol, list);
    }
    return list;
  }

  /** The depth stream's tick: shows every symbol's notes (made once: no closure per schedule). */
  readonly #tick = (): void => {
    this.#tickScheduled = false;
    for (const symbol of this.#pending.keys()) this.flush(symbol);
  };
}
