/**
 * Keeps a strategy from hearing that an order executed before it hears the fills. A REST answer
 * (a refused cancel's lookup, a cancel answer, a poll) can show an order FILLED or partly filled
 * while the fills' reports still travel on the user stream (its client holds them ~100 ms to put
 * them in E order). Published at once, the update would take the order out of the strategy's open
 * orders while its position still lacked the fills: for that window a strategy sizing against a
 * position limit would count the executed quantity nowhere. So an update whose executed quantity
 * is ahead of the recorded fills is held, the latest one per order, and published when the fills
 * catch up, as a simulated venue orders them (fills, then the update). The ledger has the truth at
 * once; only the publication waits. The router releases a held update after the fills were
 * fetched, or when it has waited past a bound, so a fill that never comes delays nothing forever.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderRecord } from '../store/records.js';
import { isTerminal } from './orderState.js';

/** Held order updates and the recorded fill quantity of each order that has executed. */
export class FillGate {
  readonly #sumFills: (clientId: string) => Decimal;
  /** Recorded fill quantity per order with a non-zero executed quantity, loaded when first needed. */
  readonly #filled = new Map<string, Decimal>();
  readonly #held = new Map<string, { o: OrderRecord; since: number }>();

  /** `sumFills` gives the quantity of the fills recorded for an order (the ledger's). */
  constructor(sumFills: (clientId: string) => Decimal) {
    this.#sumFills = sumFills;
  }

  /** Number of updates held now. */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Whether `o`'s update may be published now; if not, it is held (replacing an older one). */
  admit(o: OrderRecord, now: number): boolean {
    const id = o.clientId;
    if (!o.cumQty.isZero()) {
      let filled = this.#filled.get(id);
      if (filled === undefined) this.#filled.set(id, (filled = this.#sumFills(id)));
      if (o.cumQty.gt(filled)) {
        this.#held.set(id, { o, since: this.#held.get(id)?.since ?? now });
        return false;
      }
    }
    this.#settle(id, o);
    return true;
  }

  /** A fill of `qty` was recorded for the order: its held update when the fills now cover it. */
  recorded(clientId: string, qty: Decimal): OrderRecord | undefined {
    const before = this.#filled.get(clientId);
    // Not loaded: nothing is held for the order, and a later load sums this fill with the rest.
    if (before === undefined) return undefined;
    const filled = before.plus(qty);
    this.#filled.set(clientId, filled);
    const h = this.#held.get(clientId);
    if (h === undefined || h.o.cumQty.gt(filled)) return undefined;
    this.#settle(clientId, h.o);
    return h.o;
  }

  /** Takes the held updates waiting since before `before`. */
  releaseOlder(before: number): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const [id, h] of this.#held) {
      if (h.since >= before) continue;
      out.push(h.o);
      this.#settle(id, h.o);
    }
    return out;
  }

  /** Takes the held update of one order, if any. */
  releaseOf(clientId: string): OrderRecord | undefined {
    const h = this.#held.get(clientId);
    if (h !== undefined) this.#settle(clientId, h.o);
    return h?.o;
  }

  #settle(clientId: string, o: OrderRecord): void {
    this.#held.delete(clientId);
    if (isTerminal(o.state)) this.#filled.delete(clientId);
  }
}
