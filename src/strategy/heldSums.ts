/**
 * Running sums of what open orders hold, per key (an asset's locked balance, a symbol side's
 * unfilled quantity), kept as order records come and go, so the risk check's questions at every
 * place cost no loop over the open orders and no Decimal addition per order.
 */
import type { Decimal } from '../core/decimal.js';
import { DecimalSum } from '../core/decimalSum.js';

interface Entry {
  readonly sum: DecimalSum;
  /**
   * The sum must be rebuilt from the terms before it is read: a term was negative, or the sum left
   * the integer form (a long term or a partial sum beyond 16 digits).
   */
  stale: boolean;
}

/**
 * Sums per key equal (value and digits) to adding the key's current terms one by one with `plus`,
 * from 0, in the order the caller lists them.
 *
 * Invariant: a sum that is not stale is in DecimalSum's integer form and every term in it is
 * non-negative. It is then the exact total T = U x 10^E (U a safe integer, E at most every term's
 * exponent); each partial sum of the one-by-one loop is a multiple of 10^E between 0 and T, so it
 * has at most 16 digits and every `plus` of the loop is exact too: the loop gives T. Removing a
 * term subtracts it exactly or marks the sum stale. A stale sum is rebuilt by adding the current
 * terms in the caller's order, which is what the loop gives by DecimalSum's own contract.
 */
export class HeldSums {
  readonly #entries = new Map<string, Entry>();

  /** Adds a term to `key`'s sum. */
  add(key: string, x: Decimal): void {
    this.#apply(key, x, 1);
  }

  /** Removes a term added earlier to `key`'s sum. */
  remove(key: string, x: Decimal): void {
    this.#apply(key, x, -1);
  }

  /** Adds the term m x 10^k (m a safe integer; the same term as its Decimal for `add`). */
  addUnits(key: string, m: number, k: number): void {
    this.#applyUnits(key, m, k, 1);
  }

  /** Removes a term m x 10^k added earlier (by either `add` or `addUnits`). */
  removeUnits(key: string, m: number, k: number): void {
    this.#applyUnits(key, m, k, -1);
  }

  /**
   * The sum of `key`'s current terms; `terms` lists them in loop order and is read only when the
   * sum must be rebuilt.
   */
  sum(key: string, terms: () => Iterable<Decimal>): Decimal {
    const e = this.#entry(key);
    if (!e.stale) return e.sum.value;
    e.sum.reset();
    let negative = false;
    for (const x of terms()) {
      if (x.isNegative() && !x.isZero()) negative = true;
      e.sum.add(x);
    }
    e.stale = negative || !e.sum.isInteger;
    return e.sum.value;
  }

  /**
   * `key`'s sum as kept, for exact integer reads (DecimalSum.floorDiff; read-only): undefined when
   * no term was ever added (the sum is 0), null when it is stale (`sum` must rebuild it).
   */
  exact(key: string): DecimalSum | undefined | null {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    return e.stale ? null : e.sum;
  }

  #apply(key: string, x: Decimal, sign: 1 | -1): void {
    const e = this.#entry(key);
    if (e.stale) return;
    if (x.isNegative() && !x.isZero()) {
      e.stale = true;
      return;
    }
    if (sign > 0) e.sum.add(x);
    else e.sum.sub(x);
    if (!e.sum.isInteger) e.stale = true;
  }

  /** #apply for a term m x 10^k. */
  #applyUnits(key: string, m: number, k: number, sign: 1 | -1): void {
    const e = this.#entry(key);
    if (e.stale) return;
    if (m < 0) {
      e.stale = true;
      return;
    }
    e.sum.addUnits(sign * m, k);
    if (!e.sum.isInteger) e.stale = true;
  }

  #entry(key: string): Entry {
    let e = this.#entries.get(key);
    if (e === undefined) this.#entries.set(key, (e = { sum: new DecimalSum(), stale: false }));
    return e;
  }
}
