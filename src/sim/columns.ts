/**
 * Number parts of every order's lock and cumulative quote, column-wise in typed arrays indexed by
 * order id − `first`, the id of slot 0 (amount.ts explains the bigint + number split).
 *
 * Why not fields of the order record: these amounts pass 2^31 on real markets (a BTC_IDR buy locks
 * ~10^11 units), so as object fields V8 keeps each in its own boxed heap number: one more object
 * per order for the young-generation collector to copy before promotion, and 16 more bytes per
 * order in the record. A Float64Array holds the same doubles without a box and outside the
 * collector's copying (matching bench: retained memory ~255 -> ~233 bytes per operation, CPU-time
 * rate +2 % in-process A/B, +4-9 % across processes). The cost: 16 bytes per order id from the
 * oldest order the engine still holds to the newest, like the engine's id index (8 bytes per id):
 * the engine drops the prefix below its oldest held order (`dropPrefix`), so with a finite
 * `historyLimit` a long run keeps a bounded span instead of a slot for every id ever issued.
 *
 * Invariants:
 * - the values stored are safe integers (|x| <= 2^53 − 1, see amount.ts addSafe), which a double
 *   holds exactly, so a column reads back exactly what was written (including -0);
 * - slots at and past the engine's next order id are 0 (a new order's amounts start at 0);
 * - every id below `first` belongs to an order the history bound dropped, whose amounts were moved
 *   into its record first (Ord.keepAmounts), so no record reads a dropped slot.
 */
export class OrderColumns {
  lock: Float64Array;
  cum: Float64Array;

  constructor(
    /** The id of slot 0: the engine's first order, advanced by `dropPrefix`. */
    public first: number,
    capacity = 1024,
  ) {
    this.lock = new Float64Array(capacity);
    this.cum = new Float64Array(capacity);
  }

  /** Makes room for order `id` (ids are issued in increasing order); its slots start at 0. */
  ensure(id: number): void {
    const i = id - this.first;
    if (i < this.lock.length) return;
    let n = this.lock.length * 2;
    while (n <= i) n *= 2;
    const lock = new Float64Array(n);
    lock.set(this.lock);
    const cum = new Float64Array(n);
    cum.set(this.cum);
    this.lock = lock;
    this.cum = cum;
  }

  /**
   * Drops the slots of the `dead` lowest ids (`first` .. `first + dead − 1`) of the `used` slots
   * in use: the rest move to the front, `first` advances by `dead`, and the vacated tail is zeroed
   * so it is again the fresh slots of ids not yet issued. The capacity is kept (at most twice the
   * largest span in use, from the doubling in `ensure`).
   */
  dropPrefix(dead: number, used: number): void {
    this.lock.copyWithin(0, dead, used);
    this.lock.fill(0, used - dead, used);
    this.cum.copyWithin(0, dead, used);
    this.cum.fill(0, used - dead, used);
    this.first += dead;
  }
}
