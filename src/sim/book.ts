/**
 * One side of a price-time priority book over scaled-integer prices: the ladder (ladder.ts,
 * ladderWrite.ts) holds every price; a `Level` object (external quantity plus a FIFO of own
 * orders, doubly linked so cancel is O(1)) exists only where own orders rest or where a taker or
 * reader asked for the level as an object; the ladder slot of such a price holds OWN_LEVEL and the
 * Level is the authority for its external quantity.
 */
import { OWN_LEVEL } from './ladder.js';
import { WritableLadder } from './ladderWrite.js';

export { CHANGED, OWN_LEVEL, UNCHANGED, type WindowOptions } from './ladder.js';

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

/** One price level held as an object (see the file comment for when one exists). */
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

/** Slots of BookSide's level cache (a power of two). */
const LC_SIZE = 1024;
const LC_MASK = LC_SIZE - 1;

/** One side of a book. `isBid` decides which prices are better. */
export class BookSide extends WritableLadder {
  /** Level objects by price: prices with own orders, or materialized for a taker or reader. */
  readonly levels = new Map<number, Level>();
  /**
   * A direct-mapped cache of `levels` by the price's low bits (a slot holds one live Level of
   * `levels`, or undefined): most lookups hit, and a hit is an array load and a compare instead of
   * a hash-map probe (FindOrderedHashMapEntry: ~1.6 % of the matching bench, an order resting at a
   * price with own orders, a taker or reader reaching a level with them). Entries are removed with
   * their Level from `levels` (demote, dropIfEmpty), so a hit is always the live Level.
   */
  protected readonly lc: (Level | undefined)[] = Array.from({ length: LC_SIZE }, () => undefined);
  /** Own orders resting on this side (lets replay paths skip scanning a side with none). */
  ownCount = 0;
  /** Best level with own orders, or null when unknown (recomputed by firstOwn). */
  protected ownBest: Level | null = null;

  /** Best level, or undefined when the side is empty (materialized: callers may trade against it). */
  best(): Level | undefined {
    return this.hi > this.lo ? this.levelAt(this.hi - 1) : undefined;
  }

  /** The level at `price`, created (and placed in price order) when absent. */
  level(price: number): Level {
    const lv = this.cached(price);
    if (lv !== undefined) return lv;
    const i = this.seek(price);
    if (i >= 0 && this.qx[i] !== 0) return this.materialize(i);
    const made = new Level(price);
    if (i >= 0) this.fillHole(i, OWN_LEVEL);
    else this.insert(~i, price, OWN_LEVEL);
    this.levels.set(price, made);
    this.lc[price & LC_MASK] = made;
    return made;
  }

  /** The Level object at `price` (from `levels`, through the cache), or undefined. */
  protected cached(price: number): Level | undefined {
    const k = price & LC_MASK;
    const c = this.lc[k];
    if (c !== undefined && c.price === price) return c;
    const lv = this.levels.get(price);
    if (lv !== undefined) this.lc[k] = lv;
    return lv;
  }

  /** Removes a Level from `levels` and the cache. */
  protected forget(lv: Level): void {
    this.levels.delete(lv.price);
    const k = lv.price & LC_MASK;
    if (this.lc[k] === lv) this.lc[k] = undefined;
  }

  /** The Level of the live slot `i`, materialized from the ladder when it has none. */
  levelAt(i: number): Level {
    return this.qx[i] === OWN_LEVEL ? this.cached(this.px[i]!)! : this.materialize(i);
  }

  /** Replayed quantity of slot `i` (0 for a hole). */
  extAt(i: number): number {
    const q = this.qx[i]!;
    return q === OWN_LEVEL ? this.cached(this.px[i]!)!.ext : q;
  }

  /** Visible quantity (external plus own) of slot `i` (0 for a hole). */
  totalAt(i: number): number {
    const q = this.qx[i]!;
    return q === OWN_LEVEL ? this.cached(this.px[i]!)!.total : q;
  }

  /** Visible quantity at `price` (0 when absent). */
  totalOf(price: number): number {
    const i = this.seek(price);
    return i >= 0 ? this.totalAt(i) : 0;
  }

  /** A Level for the Level-less slot `i`, holding its replayed quantity. */
  protected materialize(i: number): Level {
    const lv = new Level(this.px[i]!);
    lv.ext = this.qx[i]!;
    this.qx[i] = OWN_LEVEL;
    this.levels.set(lv.price, lv);
    this.lc[lv.price & LC_MASK] = lv;
    return lv;
  }

  /**
   * Turns a Level with no own orders back into a plain ladder slot `i` holding `lv.ext` (removed when
   * 0); the Level is dead from then on, like a dropped one.
   */
  demote(lv: Level, i: number): void {
    lv.dead = true;
    this.forget(lv);
    if (lv.ext === 0) this.removeAt(i);
    else this.qx[i] = lv.ext;
  }

  /** Drops a level when nothing is left in it. */
  dropIfEmpty(lv: Level): void {
    if (lv.dead || lv.ext !== 0 || lv.head !== null) return;
    lv.dead = true;
    this.forget(lv);
    const i = this.seek(lv.price);
    if (i >= 0) this.removeAt(i);
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
    if (this.ownCount === 0) this.ownBest = lv;
    else if (this.ownBest !== null && (this.isBid ? lv.price > this.ownBest.price : lv.price < this.ownBest.price)) this.ownBest = lv;
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
    if (lv.head === null && lv === this.ownBest) this.ownBest = null;
    o.level = null;
    o.prev = null;
    o.next = null;
  }

  /** True when `price` would trade against this side's level `lvPrice` (taker on the other side). */
  crosses(lvPrice: number, takerPrice: number): boolean {
    return this.isBid ? lvPrice >= takerPrice : lvPrice <= takerPrice;
  }

  /** The best level with own orders, or undefined (kept as it changes; recomputed from `levels` when unknown). */
  firstOwn(): Level | undefined {
    if (this.ownCount === 0) return undefined;
    if (this.ownBest === null) {
      let best: Level | null = null;
      for (const lv of this.levels.values()) {
        if (lv.head !== null && (best === null || (this.isBid ? lv.price > best.price : lv.price < best.price))) best = lv;
      }
      this.ownBest = best;
    }
    return this.ownBest ?? undefined;
  }

  /** Slot of the best price with replayed quantity (scan from the touch), or -1. */
  firstExtSlot(): number {
    // Holes are skipped on qx alone: an own order resting beyond the replayed touch can sit over
    // hundreds of window holes, and the engine asks this after every replayed diff while it does.
    const qx = this.qx;
    for (let i = this.hi - 1; i >= this.lo; i--) {
      const q = qx[i]!;
      if (q > 0 || (q === OWN_LEVEL && this.cached(this.px[i]!)!.ext > 0)) return i;
    }
    return -1;
  }

  /** Prices with replayed quantity, best first. */
  extPrices(): number[] {
    const out: number[] = [];
    for (let i = this.hi - 1; i >= this.lo; i--) if (this.extAt(i) > 0) out.push(this.px[i]!);
    return out;
  }

  /**
   * Levels from best to worst, for reading only: a price without a Level is yielded as a detached
   * copy (nothing is materialized, and changing the copy changes nothing).
   */
  *bestFirst(): IterableIterator<Level> {
    for (let i = this.hi - 1; i >= this.lo; i--) {
      const q = this.qx[i]!;
      if (q === OWN_LEVEL) yield this.cached(this.px[i]!)!;
      else if (q !== 0) {
        const lv = new Level(this.px[i]!);
        lv.ext = q;
        yield lv;
      }
    }
  }
}
