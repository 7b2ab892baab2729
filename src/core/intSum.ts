/**
 * An exact integer running sum that allocates nothing while it stays small: a safe-integer part
 * in a double and the rest in a bigint. The average-price window adds and removes one term per
 * trade and window, and a bigint per term would be garbage every scavenge copies.
 */

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Sum of integers added and subtracted; `total()` is exact at any size. */
export class IntSum {
  /** A safe integer (kept one by the check in `add`). */
  #lo = 0;
  #hi = 0n;

  /** Adds a safe integer (a term past 2^53 goes through `addBig`). */
  add(v: number): void {
    const s = this.#lo + v;
    // Both operands are safe integers: a true sum within the safe range is exact as a double, and
    // one beyond it rounds to at least 2^53, so the check below never keeps a rounded sum.
    if (s <= MAX_SAFE && s >= -MAX_SAFE) this.#lo = s;
    else {
      this.#hi += BigInt(this.#lo);
      this.#lo = v;
    }
  }

  /** Adds any integer. */
  addBig(v: bigint): void {
    this.#hi += v;
  }

  /** Multiplies the sum by `f` (a change of unit to a finer one). */
  scale(f: bigint): void {
    this.#hi = (this.#hi + BigInt(this.#lo)) * f;
    this.#lo = 0;
  }

  /** The exact sum. */
  total(): bigint {
    return this.#hi === 0n ? BigInt(this.#lo) : this.#hi + BigInt(this.#lo);
  }

  /** Whether the sum is zero. */
  isZero(): boolean {
    return this.#hi === 0n ? this.#lo === 0 : this.#hi + BigInt(this.#lo) === 0n;
  }
}
