/**
 * Writes to the ladder: inserting a price (into a hole, the window, or by moving a part of the
 * ladder) and setting replayed quantities, one level or a run of a diff's plain window levels.
 */
import { CHANGED, HOLE_REACH, Ladder, OWN_LEVEL, SPREAD, UNCHANGED, WINDOW_MAX_PRICE } from './ladder.js';

/** The ladder with its write operations. */
export abstract class WritableLadder extends Ladder {
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
  protected place(price: number, q: number): number {
    const i = this.seek(price);
    if (i >= 0) {
      this.fillHole(i, q);
      return i;
    }
    return this.insert(~i, price, q);
  }

  /** Adds the window slot `j` (a hole, or beyond an end of lo..hi-1) with quantity `q`. */
  protected insertDense(j: number, q: number): number {
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

  /** insert below the window (or without one): the sorted ladder with holes. */
  protected insertSparse(at: number, price: number, q: number): number {
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
}
