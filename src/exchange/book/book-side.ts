/**
 * One side of an order book as two parallel typed arrays sorted worst-to-best, so the best level
 * is the last element: frequent updates near the top move few elements, and inserts or removals
 * deeper in the book are a memmove (copyWithin) rather than an Array.splice.
 * Bids are stored by price ascending, asks by negated price ascending (one code path for both).
 * Values are scaled integers held exactly in doubles (safe-integer range).
 */

/** A sorted side of scaled price levels. */
export class BookSide {
  #keys = new Float64Array(1024);
  #qtys = new Float64Array(1024);
  #size = 0;

  constructor(readonly isBid: boolean) {}

  /** Number of levels. */
  get size(): number {
    return this.#size;
  }

  /** Removes every level. */
  clear(): void {
    this.#size = 0;
  }

  /** Sets the absolute quantity of a price level; 0 removes it (removing an unknown level is a no-op). */
  set(price: number, qty: number): void {
    const key = this.isBid ? price : -price;
    const keys = this.#keys;
    const n = this.#size;
    // Most updates touch levels near the best: check the top before searching.
    if (n === 0 || key > (keys[n - 1] as number)) {
      if (qty !== 0) this.#insert(n, key, qty);
      return;
    }
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    if (keys[lo] === key) {
      if (qty === 0) {
        keys.copyWithin(lo, lo + 1, n);
        this.#qtys.copyWithin(lo, lo + 1, n);
        this.#size = n - 1;
      } else {
        this.#qtys[lo] = qty;
      }
    } else if (qty !== 0) {
      this.#insert(lo, key, qty);
    }
  }

  #insert(at: number, key: number, qty: number): void {
    const n = this.#size;
    if (n === this.#keys.length) {
      const k = new Float64Array(n * 2);
      k.set(this.#keys);
      this.#keys = k;
      const q = new Float64Array(n * 2);
      q.set(this.#qtys);
      this.#qtys = q;
    }
    if (at < n) {
      this.#keys.copyWithin(at + 1, at, n);
      this.#qtys.copyWithin(at + 1, at, n);
    }
    this.#keys[at] = key;
    this.#qtys[at] = qty;
    this.#size = n + 1;
  }

  /** Scaled price of the i-th best level (0 = best); NaN when absent. */
  priceAt(i: number): number {
    const j = this.#size - 1 - i;
    if (j < 0 || i < 0) return NaN;
    const k = this.#keys[j] as number;
    return this.isBid ? k : -k;
  }

  /** Scaled quantity of the i-th best level; NaN when absent. */
  qtyAt(i: number): number {
    const j = this.#size - 1 - i;
    if (j < 0 || i < 0) return NaN;
    return this.#qtys[j] as number;
  }

  /** Multiplies every price and quantity after a scale change; throws if any leaves the safe-integer range. */
  rescale(priceFactor: number, qtyFactor: number): void {
    for (let i = 0; i < this.#size; i++) {
      const k = (this.#keys[i] as number) * priceFactor;
      const q = (this.#qtys[i] as number) * qtyFactor;
      if (!Number.isSafeInteger(k) || !Number.isSafeInteger(q)) throw new RangeError('level beyond safe-integer range after rescale');
      this.#keys[i] = k;
      this.#qtys[i] = q;
    }
  }
}
