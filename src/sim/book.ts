/**
 * One side of a price-time priority book over scaled-integer prices. A level holds replayed external
 * quantity (`ext`) and a FIFO of own orders (doubly linked, so cancel is O(1)); prices are kept sorted
 * with the best price at the END of the array so that taking the best level is O(1).
 */

/** What the book needs from an order. */
export interface Resting {
  /** Quantity currently visible in the book (an iceberg shows only its slice). */
  visible: number;
  /** Replayed external quantity queued ahead of this order at its level. */
  ahead: number;
  level: Level | null;
  prev: Resting | null;
  next: Resting | null;
}

/** One price level. */
export class Level {
  /** Replayed external quantity at this price (not own orders). */
  ext = 0;
  /** Sum of own orders' visible quantities. */
  own = 0;
  head: Resting | null = null;
  tail: Resting | null = null;
  /** Set once the level left its side; a later order at the same price gets a new level. */
  dead = false;
  /** The engine operation that last listed this level for its depth diff (MatchingEngine.touch). */
  mark = -1;
  constructor(readonly price: number) {}
  /** Visible quantity: external plus own. */
  get total(): number {
    return this.ext + this.own;
  }
}

/** One side of a book. `isBid` decides which prices are better. */
export class BookSide {
  readonly levels = new Map<number, Level>();
  /** Sorted so that the best price is last: ascending for bids, descending for asks. */
  readonly prices: number[] = [];
  /** Own orders resting on this side (lets replay paths skip scanning a side with none). */
  ownCount = 0;
  constructor(readonly isBid: boolean) {}

  /** Best level, or undefined when the side is empty. */
  best(): Level | undefined {
    const n = this.prices.length;
    return n === 0 ? undefined : this.levels.get(this.prices[n - 1]!);
  }

  /** The level at `price`, created (and placed in price order) when absent. */
  level(price: number): Level {
    return this.levels.get(price) ?? this.create(price);
  }

  /** A new level at `price`, which must not be on this side yet. */
  create(price: number): Level {
    const lv = new Level(price);
    this.levels.set(price, lv);
    const a = this.prices;
    const n = a.length;
    // New prices usually land at or near the top of the book (the end of the array): check that
    // first, then binary-search the insertion point (replayed depth reaches hundreds of levels deep).
    if (n === 0 || (this.isBid ? a[n - 1]! < price : a[n - 1]! > price)) a.push(price);
    else a.splice(this.insertionPoint(price), 0, price);
    return lv;
  }

  /** Drops a level when nothing is left in it. */
  dropIfEmpty(lv: Level): void {
    if (lv.dead || lv.ext !== 0 || lv.head !== null) return;
    lv.dead = true;
    this.levels.delete(lv.price);
    const a = this.prices;
    const n = a.length;
    if (a[n - 1] === lv.price) {
      a.pop();
      return;
    }
    const i = this.indexOf(lv.price);
    if (i >= 0) a.splice(i, 1);
  }

  /** First index whose price sorts after `price` (binary search; prices are distinct). */
  private insertionPoint(price: number): number {
    const a = this.prices;
    let lo = 0;
    let hi = a.length;
    const asc = this.isBid;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid]!;
      if (asc ? v < price : v > price) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of `price` in the sorted array (binary search), or -1. */
  private indexOf(price: number): number {
    const a = this.prices;
    let lo = 0;
    let hi = a.length - 1;
    const asc = this.isBid;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid]!;
      if (v === price) return mid;
      if (asc ? v < price : v > price) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Appends an own order at the back of its level's queue, behind all current external quantity. */
  append(lv: Level, o: Resting): void {
    o.level = lv;
    o.ahead = lv.ext;
    o.next = null;
    o.prev = lv.tail;
    if (lv.tail !== null) lv.tail.next = o;
    else lv.head = o;
    lv.tail = o;
    lv.own += o.visible;
    this.ownCount++;
  }

  /** Unlinks an own order and drops the level when nothing is left in it. */
  remove(o: Resting): void {
    const lv = o.level;
    if (lv === null) return;
    this.unlink(o);
    this.dropIfEmpty(lv);
  }

  /** Moves an order to the back of its level with a fresh visible slice (iceberg refresh). */
  requeue(o: Resting, visible: number): void {
    const lv = o.level;
    if (lv === null) return;
    this.unlink(o);
    o.visible = visible;
    this.append(lv, o);
  }

  /** Unlinks an own order (its visible quantity leaves the level); the level stays even when empty. */
  unlink(o: Resting): void {
    const lv = o.level;
    if (lv === null) return;
    if (o.prev !== null) o.prev.next = o.next;
    else lv.head = o.next;
    if (o.next !== null) o.next.prev = o.prev;
    else lv.tail = o.prev;
    lv.own -= o.visible;
    this.ownCount--;
    o.level = null;
    o.prev = null;
    o.next = null;
  }

  /** True when `price` would trade against this side's level `lvPrice` (taker on the other side). */
  crosses(lvPrice: number, takerPrice: number): boolean {
    return this.isBid ? lvPrice >= takerPrice : lvPrice <= takerPrice;
  }

  /** The best level with own orders (index scan, best first), or undefined. */
  firstOwn(): Level | undefined {
    if (this.ownCount === 0) return undefined;
    const a = this.prices;
    for (let i = a.length - 1; i >= 0; i--) {
      const lv = this.levels.get(a[i]!)!;
      if (lv.head !== null) return lv;
    }
    return undefined;
  }

  /** The best level with replayed quantity (index scan, best first), or undefined. */
  firstExt(): Level | undefined {
    const a = this.prices;
    for (let i = a.length - 1; i >= 0; i--) {
      const lv = this.levels.get(a[i]!)!;
      if (lv.ext > 0) return lv;
    }
    return undefined;
  }

  /** Levels from best to worst (for snapshots). */
  *bestFirst(): IterableIterator<Level> {
    for (let i = this.prices.length - 1; i >= 0; i--) {
      const lv = this.levels.get(this.prices[i]!);
      if (lv !== undefined) yield lv;
    }
  }
}
