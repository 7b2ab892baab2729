/**
 * One side of a price-time priority book over scaled-integer prices. Every price in the side sits in
 * a sorted ladder of two typed arrays (price, replayed quantity), best price at the END, so the
 * touch is O(1) and a replayed level costs a binary search and at most a short move, with no
 * object, map entry or garbage per level. A `Level` object (external quantity plus a FIFO of own
 * orders, doubly linked so cancel is O(1)) exists only where own orders rest or where a taker or
 * reader asked for the level as an object; the ladder slot of such a price holds OWN_LEVEL and the
 * Level is the authority for its external quantity.
 *
 * Ladder invariants: slots lo..hi-1 of `px` are sorted (ascending for bids, descending for asks);
 * `qx[i]` is the replayed quantity (> 0) of a price with no Level, OWN_LEVEL when `levels` holds
 * that price's Level, or 0 for a hole: a slot with no price that still holds a price value, so
 * the order stays sorted, until an insert next to it reuses it. A hole holds either the price that
 * was removed from it or its left neighbour's price; equal prices only occur as a slot followed by
 * holes, so the first slot of a price (the one seek finds) is the only one that can be live. Real
 * books remove and add levels at the same few places all the time, so a removal costs nothing and
 * an insert almost always finds a hole beside it or within a few slots; when it does not, the
 * move it makes opens a few holes at once. Holes are compacted away when they make up half of the
 * ladder. The slots at lo and hi - 1 are never holes, so the best price is px[hi - 1]. `levels`
 * holds exactly the prices whose slot is OWN_LEVEL. Free room is kept at both ends, so an insert
 * at either end (a new best price, or a snapshot listed best first) moves nothing.
 *
 * Window (once a side holds `windowAt` prices): the top of the ladder becomes direct-addressed. Slots
 * da..da+span-1 hold every price unit from `wb` (the window's worst price) towards better prices, one
 * slot per unit: px[da + k] = wb + k for bids, wb - k for asks (a hole there holds its own price),
 * for every window slot below `pw` (so always for the live slots: hi <= pw). Slots from pw up get
 * their prices when the live slots first reach them (see coverTo): the best price sits in the
 * middle of the window when it is laid out, so writing the upper half at once touched 256 KB of
 * fresh memory a side that a replay mostly never reaches (~64 page faults a side, each a few us). Slots below da are the ladder described above, for the prices worse than wb only (the far
 * book). A price in the window is found and added or removed in O(1) without moving anything; the
 * window is laid out again (rewindow, O(slots)) so that the best price sits `margin` below its top
 * when a price beyond its top arrives or the touch has fallen below it. Prices beyond 2^52 are never
 * windowed (window prices computed by adding offsets stay exact). Every ladder invariant above still
 * holds, so readers walk slots as before; `sparseHoles` counts the holes below da (the only ones
 * compaction can remove).
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

/** Ladder marker: this price's Level (in `levels`) holds its quantities. */
export const OWN_LEVEL = -1;

/** setPlain: nothing changed. */
export const UNCHANGED = -1;
/** setPlain: the ladder changed. */
export const CHANGED = -2;

/** How far an insert looks for a hole to shift into before moving a whole end of the ladder. */
const HOLE_REACH = 16;
/** How many slots such a move opens (one for the new price, the rest holes for the next inserts). */
const SPREAD = 8;
/**
 * Default window: 2^16 price units with the best price in the middle (on the BTCUSDT recording ~92 %
 * of replayed levels are within 2^15 of the touch, and the window is laid out again about once a
 * run), built once a side holds 64 prices (small books never pay for it: 1 MB a side).
 */
const WINDOW = 1 << 16;
const WINDOW_AT = 64;
/** Largest price magnitude a window may cover (its prices are computed as base plus offset). */
const WINDOW_MAX_PRICE = 2 ** 52;

/** Slots of BookSide's level cache (a power of two). */
const LC_SIZE = 1024;
const LC_MASK = LC_SIZE - 1;

/** Window options of a BookSide (tests use small ones so that window moves happen often). */
export interface WindowOptions {
  /** Price units the direct-addressed window covers (0: never window). */
  span?: number;
  /** Prices a side holds before it builds its window. */
  at?: number;
}

/** One side of a book. `isBid` decides which prices are better. */
export class BookSide {
  /** Level objects by price: prices with own orders, or materialized for a taker or reader. */
  readonly levels = new Map<number, Level>();
  /**
   * A direct-mapped cache of `levels` by the price's low bits (a slot holds one live Level of
   * `levels`, or undefined): most lookups hit, and a hit is an array load and a compare instead of
   * a hash-map probe (FindOrderedHashMapEntry: ~1.6 % of the matching bench, an order resting at a
   * price with own orders, a taker or reader reaching a level with them). Entries are removed with
   * their Level from `levels` (demote, dropIfEmpty), so a hit is always the live Level.
   */
  private readonly lc: (Level | undefined)[] = Array.from({ length: LC_SIZE }, () => undefined);
  /** Ladder prices (slots lo..hi-1, sorted, best last). Read-only outside this class; replaced when it grows. */
  px = new Float64Array(64);
  /** Ladder replayed quantities per slot, or OWN_LEVEL. Read-only outside this class. */
  qx = new Float64Array(64);
  /** First used slot. */
  lo = 32;
  /** One past the last used slot (the best price is at hi - 1). */
  hi = 32;
  /** Where the last seek ended (seek's starting point; any value is correct). */
  private hint = 0;
  /** Holes among slots lo..hi-1. */
  holes = 0;
  /** Holes among slots lo..hi-1 below the window (all of them when there is no window). */
  sparseHoles = 0;
  /** True once the top of the ladder is the direct-addressed window. */
  dense = false;
  /** First window slot (valid when dense). */
  da = 0;
  /** The window's worst price, at slot da (valid when dense). */
  wb = 0;
  /** Window slots da..pw-1 hold their prices (valid when dense; see the file comment). */
  private pw = 0;
  /** Price units in the window. */
  private readonly span: number;
  /** Units kept above the best price when the window is laid out. */
  private readonly margin: number;
  /** Prices held before the window is built. */
  private readonly windowAt: number;
  /** Scratch for rebuild: the live prices and quantities in order. */
  private scratchP = new Float64Array(0);
  private scratchQ = new Float64Array(0);
  /** Own orders resting on this side (lets replay paths skip scanning a side with none). */
  ownCount = 0;
  /** Best level with own orders, or null when unknown (recomputed by firstOwn). */
  private ownBest: Level | null = null;
  constructor(
    readonly isBid: boolean,
    opts: WindowOptions = {},
  ) {
    this.span = opts.span ?? WINDOW;
    this.margin = this.span >> 1;
    this.windowAt = opts.at ?? WINDOW_AT;
  }

  /** Prices best last (a copy, for tests and diagnostics). */
  get prices(): number[] {
    const out: number[] = [];
    for (let i = this.lo; i < this.hi; i++) if (this.qx[i] !== 0) out.push(this.px[i]!);
    return out;
  }

  /** Best price, or -1 when the side is empty. */
  bestPrice(): number {
    return this.hi > this.lo ? this.px[this.hi - 1]! : -1;
  }

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
  private cached(price: number): Level | undefined {
    const k = price & LC_MASK;
    const c = this.lc[k];
    if (c !== undefined && c.price === price) return c;
    const lv = this.levels.get(price);
    if (lv !== undefined) this.lc[k] = lv;
    return lv;
  }

  /** Removes a Level from `levels` and the cache. */
  private forget(lv: Level): void {
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

  /**
   * Slot of `price` (possibly a hole: check qx), or the bitwise complement of the slot it would be
   * inserted before (a negative number). A window price is its slot (or lies beyond an end); any other
   * price is searched for among the slots below the window (see seekSparse).
   */
  seek(price: number): number {
    if (this.dense) {
      const k = this.isBid ? price - this.wb : this.wb - price;
      if (k >= 0) {
        const j = this.da + k;
        if (j >= this.hi) return ~this.hi;
        // Below lo inside the window: nothing lies below the window, so it goes before lo.
        if (j < this.lo) return ~this.lo;
        return j;
      }
      return this.seekSparse(price, this.hi < this.da ? this.hi : this.da);
    }
    return this.seekSparse(price, this.hi);
  }

  /**
   * seek among slots lo..se-1 (everything at or after se sorts after `price`). Checks the top first,
   * then gallops from the previous answer (a diff lists its levels in price order, so the next one is
   * usually a few slots further from the touch) to bracket the answer, and binary-searches the
   * bracket. The hint only decides where the search starts: any value gives the same answer.
   */
  private seekSparse(price: number, se: number): number {
    const px = this.px;
    const lo = this.lo;
    if (se <= lo) return ~lo;
    const asc = this.isBid;
    const top = px[se - 1]!;
    // Slot se - 1 is live when se is hi; below the window it may be a hole holding an earlier slot's price.
    if (top === price && se === this.hi) return se - 1;
    if (asc ? top < price : top > price) return ~se;
    // px[se - 1] does not sort before price: the answer (the first slot that does not) is in lo..se-1.
    let g = this.hint;
    if (g < lo || g >= se) g = se - 1;
    let a: number;
    let b: number;
    const v = px[g]!;
    let step = 1;
    if (asc ? v < price : v > price) {
      // The answer is above g: px[a - 1] sorts before price, px[b] after (or b is se - 1).
      a = g + 1;
      b = a;
      while (b < se - 1) {
        const w = px[b]!;
        if (!(asc ? w < price : w > price)) break;
        a = b + 1;
        b = b + step < se - 1 ? b + step : se - 1;
        step <<= 1;
      }
    } else {
      // The answer is at or below g.
      b = g;
      a = g - 1;
      while (a > lo) {
        const w = px[a]!;
        if (asc ? w < price : w > price) break;
        b = a;
        a = a - step > lo ? a - step : lo;
        step <<= 1;
      }
      if (a < lo) a = lo;
    }
    while (a < b) {
      const mid = (a + b) >> 1;
      const w = px[mid]!;
      if (asc ? w < price : w > price) a = mid + 1;
      else b = mid;
    }
    this.hint = a;
    return px[a] === price ? a : ~a;
  }

  /** Gives the hole at slot `i` (which holds the price being added) the quantity `q` (> 0 or OWN_LEVEL). */
  fillHole(i: number, q: number): void {
    this.qx[i] = q;
    this.holes--;
    if (!this.dense || i < this.da) this.sparseHoles--;
  }

  /**
   * Inserts `price` (absent) with quantity `q` (> 0, or OWN_LEVEL) before slot `at` (from seek);
   * returns its slot. A window price takes its own slot. Below the window (or without one) it reuses
   * a neighbouring hole, or shifts the few slots up to the nearest hole within HOLE_REACH; otherwise
   * moves a part of the ladder (nothing at either end). Builds or moves the window when due.
   */
  insert(at: number, price: number, q: number): number {
    if (this.dense) {
      const k = this.isBid ? price - this.wb : this.wb - price;
      if (k >= 0) {
        if (k < this.span) return this.insertDense(this.da + k, q);
        // A new best price beyond the window's top.
        this.rewindow(price);
        return this.place(price, q);
      }
      if (this.hi > this.lo && this.hi <= this.da) {
        // The touch has fallen below the window: lay it out again around the (new) best price when
        // this price lands in it.
        const b = this.px[this.hi - 1]!;
        const nb = (this.isBid ? price > b : price < b) ? price : b;
        if ((this.isBid ? nb - price : price - nb) < this.span - this.margin) {
          this.rewindow(nb);
          return this.place(price, q);
        }
      }
    } else if (this.span > 0 && this.hi - this.lo - this.holes + 1 >= this.windowAt) {
      const nb = this.hi > this.lo && !(this.isBid ? price > this.px[this.hi - 1]! : price < this.px[this.hi - 1]!) ? this.px[this.hi - 1]! : price;
      if (Math.abs(nb) <= WINDOW_MAX_PRICE) {
        this.rewindow(nb);
        return this.place(price, q);
      }
    }
    return this.insertSparse(at, price, q);
  }

  /** Adds the absent `price`: fills the hole that holds it, or inserts it. Returns its slot. */
  private place(price: number, q: number): number {
    const i = this.seek(price);
    if (i >= 0) {
      this.fillHole(i, q);
      return i;
    }
    return this.insert(~i, price, q);
  }

  /** Adds the window slot `j` (a hole, or beyond an end of lo..hi-1) with quantity `q`. */
  private insertDense(j: number, q: number): number {
    const qx = this.qx;
    const lo = this.lo;
    let hi = this.hi;
    if (j >= this.pw) this.coverTo(j);
    if (hi === lo) {
      this.lo = j;
      this.hi = j + 1;
      qx[j] = q;
      return j;
    }
    if (j >= hi) {
      if (hi < this.da) {
        // The live slots end below the window: the slots up to it become holes (left neighbour's price).
        const px = this.px;
        const left = px[hi - 1]!;
        for (let t = hi; t < this.da; t++) {
          px[t] = left;
          qx[t] = 0;
        }
        this.holes += this.da - hi;
        this.sparseHoles += this.da - hi;
        hi = this.da;
      }
      // Window slots hi..j-1 are holes already (qx 0, own prices).
      this.holes += j - hi;
      this.hi = j + 1;
      qx[j] = q;
      return j;
    }
    if (j < lo) {
      // lo is in the window, so nothing lies below it: window slots j+1..lo-1 are holes already.
      this.holes += lo - j - 1;
      this.lo = j;
      qx[j] = q;
      return j;
    }
    this.fillHole(j, q);
    return j;
  }

  /**
   * Gives window slots pw..j their prices (j >= pw), so that live slots up to j hold them. Slots
   * from j + 1 up are left to later: the window is at most a margin above the best price, and most
   * of it above the touch is never reached.
   */
  private coverTo(j: number): void {
    const px = this.px;
    const isBid = this.isBid;
    const wb = this.wb;
    const da = this.da;
    for (let t = this.pw; t <= j; t++) px[t] = isBid ? wb + (t - da) : wb - (t - da);
    this.pw = j + 1;
  }

  /** insert below the window (or without one): the sorted ladder with holes. */
  private insertSparse(at: number, price: number, q: number): number {
    const px = this.px;
    const qx = this.qx;
    const dense = this.dense;
    if (dense) {
      if (this.hi === this.lo) {
        // Empty side: the price goes just below the window.
        const j = this.da - 1;
        px[j] = price;
        qx[j] = q;
        this.lo = j;
        this.hi = this.da;
        return j;
      }
      if (this.lo > this.da) {
        // Nothing below the window and its lowest slots empty: they become holes again.
        this.holes += this.lo - this.da;
        this.lo = this.da;
        at = this.da;
      }
    }
    const lo = this.lo;
    const hi = this.hi;
    // Slots se..: the window (or nothing); limit: the first slot this ladder may not use.
    const se = dense && this.da < hi ? this.da : hi;
    const limit = dense ? this.da : px.length;
    if (at === hi && hi < limit) {
      // A new best price (or the first one): nothing moves.
      px[hi] = price;
      qx[hi] = q;
      this.hi = hi + 1;
      return hi;
    }
    if (at === lo && lo > 0 && hi > lo) {
      px[lo - 1] = price;
      qx[lo - 1] = q;
      this.lo = lo - 1;
      return lo - 1;
    }
    if (at > lo && at <= se) {
      // A hole just before or at `at` can take the price as it is: the order stays strict.
      if (at < se && qx[at] === 0) {
        px[at] = price;
        this.fillHole(at, q);
        return at;
      }
      if (qx[at - 1] === 0) {
        px[at - 1] = price;
        this.fillHole(at - 1, q);
        return at - 1;
      }
      const up = Math.min(se - 1, at + HOLE_REACH);
      const down = Math.max(lo + 1, at - 1 - HOLE_REACH);
      for (let k = 1; at + k <= up || at - 1 - k >= down; k++) {
        const u = at + k;
        if (u <= up && qx[u] === 0) {
          // Slots at..u-1 move up one into the hole at u.
          for (let j = u; j > at; j--) {
            px[j] = px[j - 1]!;
            qx[j] = qx[j - 1]!;
          }
          px[at] = price;
          this.fillHole(at, q);
          return at;
        }
        const d = at - 1 - k;
        if (d >= down && qx[d] === 0) {
          // Slots d+1..at-1 move down one into the hole at d.
          for (let j = d; j < at - 1; j++) {
            px[j] = px[j + 1]!;
            qx[j] = qx[j + 1]!;
          }
          px[at - 1] = price;
          this.fillHole(at - 1, q);
          return at - 1;
        }
      }
    }
    // The window never moves: below it, always move the low part.
    const toLow = dense || at - lo < hi - at;
    // No hole near: move the shorter part by SPREAD slots, leaving SPREAD - 1 holes beside the new
    // price for the inserts that usually follow nearby (each carries its left neighbour's price).
    if (toLow ? lo < SPREAD : hi + SPREAD > px.length) {
      if (!dense) return this.insert(this.regrow(at), price, q);
      this.rebuild();
      return this.place(price, q);
    }
    if (toLow) {
      px.copyWithin(lo - SPREAD, lo, at);
      qx.copyWithin(lo - SPREAD, lo, at);
      this.lo = lo - SPREAD;
      // at > lo here (an insert at lo with room took the fast path), so a live left neighbour exists.
      const left = px[at - SPREAD - 1]!;
      for (let j = at - SPREAD; j < at - 1; j++) {
        px[j] = left;
        qx[j] = 0;
      }
      at--;
    } else {
      px.copyWithin(at + SPREAD, at, hi);
      qx.copyWithin(at + SPREAD, at, hi);
      this.hi = hi + SPREAD;
      for (let j = at + 1; j < at + SPREAD; j++) {
        px[j] = price;
        qx[j] = 0;
      }
    }
    this.holes += SPREAD - 1;
    this.sparseHoles += SPREAD - 1;
    px[at] = price;
    qx[at] = q;
    return at;
  }

  /** Removes the price of slot `i` (its Level, if any, must already be out of `levels`): the slot becomes a hole. */
  removeAt(i: number): void {
    const qx = this.qx;
    const dense = this.dense;
    const da = this.da;
    qx[i] = 0;
    this.holes++;
    if (!dense || i < da) this.sparseHoles++;
    // Keep both ends live: the best price is read from hi - 1 without a check. Removing the best
    // price walks down to the next live slot; in a window that is one slot per price unit, ~19 on
    // average on the BTCUSDT recording (~280k slots a replay), so the walk runs over locals and
    // the counts are settled once after it.
    const hi = this.hi;
    let h = hi;
    while (h > this.lo && qx[h - 1] === 0) h--;
    if (h < hi) {
      // Slots h..hi-1 were holes; those below the window (all without one) were sparse holes.
      this.hi = h;
      this.holes -= hi - h;
      if (!dense) this.sparseHoles -= hi - h;
      else if (h < da) this.sparseHoles -= (hi < da ? hi : da) - h;
    }
    while (this.hi > this.lo && qx[this.lo] === 0) {
      if (!dense || this.lo < da) this.sparseHoles--;
      this.lo++;
      this.holes--;
    }
    if (this.lo === this.hi) this.lo = this.hi = dense ? da : this.px.length >> 1;
    else if (this.sparseHoles > 32 && this.sparseHoles * 2 > (dense ? Math.min(this.hi, da) : this.hi) - this.lo) {
      if (dense) this.rebuild();
      else this.regrow(this.lo);
    }
  }

  /**
   * Sets the replayed quantity at `price` when the price has no Level: returns UNCHANGED, or CHANGED
   * when the ladder changed. When the price has a Level, changes nothing and returns its slot (>= 0)
   * for the caller, which owns the queue rules, to update the Level.
   */
  setPlain(price: number, q: number): number {
    const i = this.seek(price);
    if (i < 0) {
      if (q === 0) return UNCHANGED;
      this.insert(~i, price, q);
      return CHANGED;
    }
    const cur = this.qx[i]!;
    if (cur === OWN_LEVEL) return i;
    // A Level-less price (or a hole keeping its place): no queue to adjust, no object.
    if (cur === q) return UNCHANGED;
    this.setExtAt(i, q);
    return CHANGED;
  }

  /**
   * setPlain for the levels `from`..n-1 of a replayed diff's side, in order, for as long as each one
   * is the plain case: a window price inside the live slots with no Level, whose quantity changes in
   * place, fills a hole, or empties a slot that is neither end of the ladder (and leaves no
   * compaction due). Returns the index of the first level it did not apply (n when it applied all),
   * which the caller applies in full (setPlain or the Level, crossing, events) before calling again.
   * Also stops at a level that is not a non-negative safe integer pair (the caller reports it) and
   * at a quantity > 0 whose price reaches `cross` (the other side's best price, NaN when that side is
   * empty): the caller must then check the other side for stale crossing quantity.
   *
   * Why: ~92 % of a replayed BTCUSDT diff's levels are this case, and as a loop over locals they
   * need none of the per-level calls (setExt, setPlain, seek, setExtAt, removeAt or fillHole) and
   * field reloads; the ladder ends up exactly as with setPlain per level (same slots, counts, ends).
   * Level i's quantity is `qtys[i + dq]` (a binary recording's pool holds a side's prices and
   * quantities in one buffer).
   */
  applyWindow(prices: Float64Array, qtys: Float64Array, from: number, n: number, cross: number, dq = 0): number {
    if (!this.dense) return from;
    const qx = this.qx;
    const isBid = this.isBid;
    const wb = this.wb;
    const da = this.da;
    const lo = this.lo;
    const hi = this.hi;
    const compactAt = (hi < da ? hi : da) - lo;
    let holes = this.holes;
    let i = from;
    for (; i < n; i++) {
      const p = prices[i]!;
      let q = qtys[i + dq]!;
      if (!(p >= 0 && p <= Number.MAX_SAFE_INTEGER && q >= 0 && q <= Number.MAX_SAFE_INTEGER && Math.floor(p) === p && Math.floor(q) === q)) break;
      // As the engine's small-integer conversion (it also turns a -0 into 0).
      if (q <= 0x7fffffff) q |= 0;
      const j = da + (isBid ? p - wb : wb - p);
      if (j < da || j < lo || j >= hi) break;
      const cur = qx[j]!;
      if (cur === OWN_LEVEL) break;
      if (q > 0 && (isBid ? p >= cross : p <= cross)) break;
      if (cur === q) continue;
      if (q === 0) {
        // removeAt without its work: not an end, so no end moves; a window slot, so no far hole.
        if (j === hi - 1 || j === lo || (this.sparseHoles > 32 && this.sparseHoles * 2 > compactAt)) break;
        qx[j] = 0;
        holes++;
      } else {
        if (cur === 0) holes--;
        qx[j] = q;
      }
    }
    this.holes = holes;
    return i;
  }

  /** Sets the replayed quantity of a Level-less slot (live or a hole) to a new value: q > 0 keeps it, 0 removes it. */
  setExtAt(i: number, q: number): void {
    if (q === 0) this.removeAt(i);
    else if (this.qx[i] === 0) this.fillHole(i, q);
    else this.qx[i] = q;
  }

  /**
   * Without a window: moves the live slots into new arrays without holes and with free room at both
   * ends (twice the size when more than half full, so end inserts stay amortized O(1)); returns where
   * slot `at` went (the slot of the first live price at or after it).
   */
  private regrow(at: number): number {
    const n = this.hi - this.lo - this.holes;
    const cap = n * 2 > this.px.length ? this.px.length * 2 : this.px.length;
    const lo = (cap - n) >> 1;
    const px = new Float64Array(cap);
    const qx = new Float64Array(cap);
    let w = lo;
    let moved = -1;
    for (let i = this.lo; i < this.hi; i++) {
      if (i === at) moved = w;
      const q = this.qx[i]!;
      if (q === 0) continue;
      px[w] = this.px[i]!;
      qx[w++] = q;
    }
    this.px = px;
    this.qx = qx;
    this.lo = lo;
    this.hi = w;
    this.holes = 0;
    this.sparseHoles = 0;
    return moved < 0 ? w : moved;
  }

  /** Lays the window out again with the best price `best` (present or about to be added) `margin` below its top. */
  private rewindow(best: number): void {
    if (Math.abs(best) <= WINDOW_MAX_PRICE) {
      this.wb = this.isBid ? best - (this.span - this.margin) : best + (this.span - this.margin);
      this.dense = true;
      this.rebuild();
    } else if (this.dense) {
      // Too large to window exactly: back to the plain ladder.
      this.dense = false;
      this.regrow(this.lo);
      this.hint = this.lo;
    }
  }

  /**
   * With a window (whose top is at or above every price held): new arrays holding the prices below
   * the window packed under it, with free room below them, and the window slots with their prices.
   */
  private rebuild(): void {
    const span = this.span;
    const wb = this.wb;
    const isBid = this.isBid;
    // The live prices in order, into reused scratch arrays (the arrays are then reused too when they fit).
    let sp = this.scratchP;
    let sq = this.scratchQ;
    if (sp.length < this.hi - this.lo) {
      sp = this.scratchP = new Float64Array(this.hi - this.lo);
      sq = this.scratchQ = new Float64Array(this.hi - this.lo);
    }
    let n = 0;
    let nSparse = 0;
    for (let i = this.lo; i < this.hi; i++) {
      const q = this.qx[i]!;
      if (q === 0) continue;
      const p = this.px[i]!;
      if (isBid ? p < wb : p > wb) nSparse++;
      sp[n] = p;
      sq[n++] = q;
    }
    // Room below: the far book grows downwards by SPREAD slots when an insert finds no hole near.
    const da = 2 * nSparse + 1024;
    let px = this.px;
    let qx = this.qx;
    if (px.length < da + span || px.length > 2 * (da + span)) {
      px = this.px = new Float64Array(da + span);
      qx = this.qx = new Float64Array(da + span);
    } else qx.fill(0);
    let w = da - nSparse;
    let first = -1;
    let last = -1;
    for (let i = 0; i < n; i++) {
      const p = sp[i]!;
      const k = isBid ? p - wb : wb - p;
      if (k < 0) {
        px[w] = p;
        qx[w++] = sq[i]!;
      } else {
        const j = da + k;
        qx[j] = sq[i]!;
        if (first < 0) first = j;
        last = j;
      }
    }
    this.da = da;
    this.lo = nSparse > 0 ? da - nSparse : first >= 0 ? first : da;
    this.hi = last >= 0 ? last + 1 : da;
    // Prices of the window slots up to the best one (coverTo adds the rest as they are reached).
    const pw = this.hi > da ? this.hi : da;
    for (let k = 0; da + k < pw; k++) px[da + k] = isBid ? wb + k : wb - k;
    this.pw = pw;
    this.holes = this.hi - this.lo - n;
    this.sparseHoles = 0;
    this.hint = this.lo;
  }

  /** A Level for the Level-less slot `i`, holding its replayed quantity. */
  private materialize(i: number): Level {
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
