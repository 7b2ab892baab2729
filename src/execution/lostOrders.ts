/**
 * Orders the exchange says do not exist. An order we hold as live, with the exchange's order id,
 * whose order-detail lookup answers "Order does not exist" (code -2013) is one the exchange lost
 * (its state was reset) or never kept. Left alone it stayed NEW for ever: its cancel was refused
 * every 2 s, each refusal logged, and every later stop exited 3 for it.
 *
 * The rule (decided here; the spec shows no error codes, -2013 is the code the open API family
 * and the sandbox give an unknown order):
 * 1. Each open-API order-detail answer "does not exist" counts one strike; any answer that shows
 *    the order clears its strikes. Lookups of a struck order are paced 1 s, 2 s, 4 s, 5 s ...
 *    (plus the cancel retries a wanted cancel makes).
 * 2. After `strikes` such answers (default 3) spanning at least `minSpanMs` (default 5 s), two
 *    more lookups confirm: every order of the symbol since the order was created (a search by
 *    clientId, as for an unknown placement outcome) and the account trades of its order id.
 *    Found there: it is applied and the strikes cleared. Trades found are recorded first.
 * 3. Otherwise the order is closed EXPIRED with reason `ORDER_LOST: ...` (what filled of it, as
 *    the recorded fills show, stays filled), a journal row `orderLost`, and an error log line.
 *    The orderUpdate on the bus carries that reason: the notifier's critical alert keys on it.
 * A lookup that fails (timeout, 5XX, rate limit) is no strike: the outcome is unknown, not "absent".
 */
import { ExchangeError } from '../core/errors.js';
import { LookupBackoff } from './lookupBackoff.js';

/** Reason prefix of an order closed by the rule (alerts and tests key on it). */
export const ORDER_LOST = 'ORDER_LOST';

/** Tuning of the rule. */
export interface LostOrderOptions {
  /** "Does not exist" answers needed before the confirming lookups (default 3). */
  readonly strikes?: number;
  /** Least time between the first and the last of them (default 5000 ms). */
  readonly minSpanMs?: number;
}

/** True when an error is the exchange saying the order does not exist (open API code -2013). */
export function isNoSuchOrder(err: unknown): boolean {
  return err instanceof ExchangeError && err.httpStatus < 500 && (err.exchangeCode === -2013 || err.exchangeCode === '-2013');
}

interface Strikes {
  count: number;
  readonly firstAt: number;
  lastAt: number;
}

/** The strikes of each order, and the pacing of their lookups. */
export class LostOrders {
  readonly strikes: number;
  readonly minSpanMs: number;
  readonly #by = new Map<string, Strikes>();
  readonly #pace = new LookupBackoff({ baseMs: 1000, maxMs: 5000 });

  constructor(o: LostOrderOptions = {}) {
    this.strikes = Math.max(1, o.strikes ?? 3);
    this.minSpanMs = Math.max(0, o.minSpanMs ?? 5000);
  }

  /** Counts one "does not exist" answer; true when the rule's confirming lookups are due. */
  strike(clientId: string, now: number): boolean {
    const s = this.#by.get(clientId) ?? { count: 0, firstAt: now, lastAt: now };
    s.count++;
    s.lastAt = now;
    this.#by.set(clientId, s);
    this.#pace.unsettled(clientId, now);
    return s.count >= this.strikes && s.lastAt - s.firstAt >= this.minSpanMs;
  }

  /** The exchange showed the order (or it closed): its strikes are forgotten. */
  clear(clientId: string): void {
    this.#by.delete(clientId);
    this.#pace.settled(clientId);
  }

  /** The strikes of one order, when it has any. */
  of(clientId: string): Readonly<Strikes> | undefined {
    return this.#by.get(clientId);
  }

  /** True when the order has strikes and its next lookup is due at `now`. */
  isDue(clientId: string, now: number): boolean {
    return this.#by.has(clientId) && this.#pace.due(clientId, now);
  }

  /** Forgets every order not in `live` (closed since). */
  keepOnly(live: ReadonlySet<string>): void {
    for (const id of [...this.#by.keys()]) if (!live.has(id)) this.clear(id);
  }

  /** How many orders have strikes. */
  get size(): number {
    return this.#by.size;
  }
}
