/**
 * One side of an order book as two parallel arrays sorted worst-to-best, so the best level is
 * the last element and the frequent updates near the top move few elements on insert/delete.
 * Bids are stored by price ascending, asks by negated price ascending (one code path for both).
 */

/** A sorted side of scaled price levels. */
export class BookSide {
  /** Sort keys: price for bids, -price for asks; ascending, best last. */
  keys: number[] = [];
  /** Scaled quantities, parallel to keys. */
  qtys: number[] = [];

  constructor(readonly isBid: boolean) {}

  /** Number of levels. */
  get size(): number {
    return this.keys.length;
  }

  /** Removes every level. */
  clear(): void {
    this.keys = [];
    this.qtys = [];
  }

  /** Sets the absolute quantity of a price level; 0 removes it (removing an unknown level is a no-op). */
  set(price: number, qty: number): void {
    const key = this.isBid ? price : -price;
    const keys = this.keys;
    let hi = keys.length;
    // Most updates touch levels near the best: check the top before searching.
    if (hi > 0 && key > (keys[hi - 1] as number)) {
      if (qty !== 0) {
        keys.push(key);
        this.qtys.push(qty);
      }
      return;
    }
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    if (lo < keys.length && keys[lo] === key) {
      if (qty === 0) {
        keys.splice(lo, 1);
        this.qtys.splice(lo, 1);
      } else {
        this.qtys[lo] = qty;
      }
    } else if (qty !== 0) {
      keys.splice(lo, 0, key);
      this.qtys.splice(lo, 0, qty);
    }
  }

  /** Scaled price of the i-th best level (0 = best); NaN when absent. */
  priceAt(i: number): number {
    const k = this.keys[this.keys.length - 1 - i];
    if (k === undefined) return NaN;
    return this.isBid ? k : -k;
  }

  /** Scaled quantity of the i-th best level; NaN when absent. */
  qtyAt(i: number): number {
    return this.qtys[this.qtys.length - 1 - i] ?? NaN;
  }

  /** Multiplies every price (factor for prices) and quantity (factor for quantities) after a scale change. */
  rescale(priceFactor: number, qtyFactor: number): void {
    if (priceFactor !== 1) this.keys = this.keys.map((k) => k * priceFactor);
    if (qtyFactor !== 1) this.qtys = this.qtys.map((q) => q * qtyFactor);
    for (const v of this.keys) if (!Number.isSafeInteger(v)) throw new RangeError('price beyond safe-integer range after rescale');
    for (const v of this.qtys) if (!Number.isSafeInteger(v)) throw new RangeError('quantity beyond safe-integer range after rescale');
  }
}
