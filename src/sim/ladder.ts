/**
 * A sorted ladder of prices over two typed arrays (price, replayed quantity), best price at the
 * END, so the touch is O(1) and a replayed level costs a binary search and at most a short move,
 * with no object, map entry or garbage per level. BookSide (book.ts) adds the Level objects of
 * prices where own orders rest.
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
 * fresh memory a side that a replay mostly never reaches (~64 page faults a side, each a few us). Slots below da are the ladder described
 * above, for the prices worse than wb only (the far book). A price in the window is found and added or removed in O(1) without moving anything; the
 * window is laid out again (rewindow, O(slots)) so that the best price sits `margin` below its top
 * when a price beyond its top arrives or the touch has fallen below it. Prices beyond 2^52 are never
 * windowed (window prices computed by adding offsets stay exact). Every ladder invariant above still
 * holds, so readers walk slots as before; `sparseHoles` counts the holes below da (the only ones
 * compaction can remove).
 */

/** Ladder marker: this price's Level (in `levels`) holds its quantities. */
export const OWN_LEVEL = -1;

/** setPlain: nothing changed. */
export const UNCHANGED = -1;
/** setPlain: the ladder changed. */
export const CHANGED = -2;

/** How far an insert looks for a hole to shift into before moving a whole end of the ladder. */
export const HOLE_REACH = 16;
/** How many slots such a move opens (one for the new price, the rest holes for the next inserts). */
export const SPREAD = 8;
/**
 * Default window: 2^16 price units with the best price in the middle (on the BTCUSDT recording ~92 %
 * of replayed levels are within 2^15 of the touch, and the window is laid out again about once a
 * run), built once a side holds 64 prices (small books never pay for it: 1 MB a side).
 */
const WINDOW = 1 << 16;
const WINDOW_AT = 64;
/** Largest price magnitude a window may cover (its prices are computed as base plus offset). */
export const WINDOW_MAX_PRICE = 2 ** 52;

/** Window options of a BookSide (tests use small ones so that window moves happen often). */
export interface WindowOptions {
  /** Price units the direct-addressed window covers (0: never window). */
  span?: number;
  /** Prices a side holds before it builds its window. */
  at?: number;
}

/** The ladder: its storage, search, removal and layout (window, compaction). */
export abstract class Ladder {
  /** Ladder prices (slots lo..hi-1, sorted, best last). Read-only outside this class; replaced when it grows. */
  px = new Float64Array(64);
  /** Ladder replayed quantities per slot, or OWN_LEVEL. Read-only outside this class. */
  qx = new Float64Array(64);
  /** First used slot. */
  lo = 32;
  /** One past the last used slot (the best price is at hi - 1). */
  hi = 32;
  /** Where the last seek ended (seek's starting point; any value is correct). */
  protected hint = 0;
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
  protected pw = 0;
  /** Price units in the window. */
  protected readonly span: number;
  /** Units kept above the best price when the window is laid out. */
  protected readonly margin: number;
  /** Prices held before the window is built. */
  protected readonly windowAt: number;
  /** Scratch for rebuild: the live prices and quantities in order. */
  protected scratchP = new Float64Array(0);
  protected scratchQ = new Float64Array(0);

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
  protected seekSparse(price: number, se: number): number {
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
      if (dense) this.compactSparse();
      else this.regrow(this.lo);
    }
  }

  /**
   * Compacts the far book in place: its live slots move up against the window (or, with no live
   * window slot, end just below it), in order, and its holes are gone; the window is untouched.
   * Why not rebuild: that lays the whole window out again (2^16 slots a side written, and the
   * caches' copy of the window lost) to take out a few dozen holes below it.
   */
  protected compactSparse(): void {
    const px = this.px;
    const qx = this.qx;
    const da = this.da;
    const top = this.hi < da ? this.hi : da;
    // From the top down: a slot is written at or above the one read, so nothing unread is overwritten.
    let w = da;
    for (let i = top - 1; i >= this.lo; i--) {
      const q = qx[i]!;
      if (q === 0) continue;
      px[--w] = px[i]!;
      qx[w] = q;
    }
    if (this.hi <= da) {
      this.hi = da;
      this.holes = 0;
    } else this.holes -= this.sparseHoles;
    this.lo = w;
    this.sparseHoles = 0;
    this.hint = w;
  }

  /** Sets the replayed quantity of a Level-less slot (live or a hole) to a new value: q > 0 keeps it, 0 removes it. */
  setExtAt(i: number, q: number): void {
    if (q === 0) this.removeAt(i);
    else if (this.qx[i] === 0) this.fillHole(i, q);
    else this.qx[i] = q;
  }

  /**
   * Gives window slots pw..j their prices (j >= pw), so that live slots up to j hold them. Slots
   * from j + 1 up are left to later: the window is at most a margin above the best price, and most
   * of it above the touch is never reached.
   */
  protected coverTo(j: number): void {
    const px = this.px;
    const isBid = this.isBid;
    const wb = this.wb;
    const da = this.da;
    for (let t = this.pw; t <= j; t++) px[t] = isBid ? wb + (t - da) : wb - (t - da);
    this.pw = j + 1;
  }

  /**
   * Without a window: moves the live slots into new arrays without holes and with free room at both
   * ends (twice the size when more than half full, so end inserts stay amortized O(1)); returns where
   * slot `at` went (the slot of the first live price at or after it).
   */
  protected regrow(at: number): number {
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
  protected rewindow(best: number): void {
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
  protected rebuild(): void {
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
}
