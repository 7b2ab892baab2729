/**
 * One side of an order book: the levels near the touch in a direct-addressed window (one slot per
 * scaled price unit), the rest in sorted blocks ({@link BlockSide}).
 *
 * Why: a recorded BTCUSDT depth stream updates ~46 levels per diff, four in five inserting or
 * removing a level, at a median of ~100 levels from the touch. In sorted blocks alone each such
 * update searched the blocks and shifted part of one: ~106 ns a level, measured replaying the
 * recording's 298k level updates into a side; with the window ~29 ns (2^16 slots; 2^15: ~41 ns,
 * 2^14: ~82 ns). A symbol's prices carry the tick's fraction digits, so one scaled unit is one
 * tick; on that recording 34% of the updates are within 4,096 ticks of the touch, 93% within
 * 32,768 and 95.5% within 65,536, so a window of 2^16 slots with the touch at 3/4 holds all but a
 * few percent (those go to the blocks). Memory: 2^16 doubles plus a bitmap, ~520 KB per side,
 * allocated on the first level.
 *
 * Key space: bids are keyed by price, asks by negated price, so the best level is always the
 * highest key. The window covers keys [#base, #base + W): key k is slot k - #base, `#wq[slot]` its
 * quantity (0: no level), bit `slot & 31` of `#bits[slot >> 5]` says whether it is occupied.
 * Invariants (while the window is on):
 *  1. no level has a key >= #base + W;
 *  2. the levels with keys in the window are exactly the occupied slots; `#deep` holds the others,
 *     all below #base; so best-first order is the window's slots top down, then `#deep`'s levels;
 *  3. `#wn` counts the occupied slots and `#top` is the highest one (-1 when none);
 *  4. the side is empty whenever the window is not placed.
 * Placement: the first level puts its key at 3/4 of the window (room for the touch to rise). A
 * level above the window moves the window up to put it there, slots falling below the window go
 * to the blocks; when the touch sinks below the window's lowest quarter the window moves down to
 * put the best level at 3/4 again, pulling the blocks' top levels in. A move costs O(W) and
 * happens only after the touch moved a quarter of the window. Keys that are not integers (callers
 * that do not scale) or lie within two windows of the safe-integer limit turn the window off until
 * the side is cleared: it is then blocks only, with the same results.
 */
import { BlockSide } from './block-side.js';

/** Slots of the window by default (a power of two). */
const WINDOW = 1 << 16;

/** Options of a book side. */
export interface BookSideOptions {
  /** Window slots, a power of two >= 32 (default 2^16; tests use small windows to move it often). */
  readonly window?: number;
}

/** A sorted side of scaled price levels. */
export class BookSide {
  readonly #w: number;
  /**
   * Largest |key| the window takes: 2 windows inside the safe-integer range, so every base and slot
   * key computed from such keys (base = key - 3W/4, key = base + slot) is an exact integer.
   */
  readonly #lim: number;
  /** Quantity per window slot; allocated on first use. */
  #wq = new Float64Array(0);
  #bits = new Int32Array(0);
  /** Key of slot 0. */
  #base = 0;
  #wn = 0;
  #top = -1;
  #placed = false;
  /** False once a key that is not a safe integer arrived: blocks only until cleared. */
  #direct = true;
  /** Levels below the window (all levels when the window is off), keyed in key space. */
  readonly #deep = new BlockSide(true);
  /** Rank cursor in the window: rank #cr is slot #cs; valid only while #cv (every mutation clears it). */
  #cr = 0;
  #cs = 0;
  #cv = false;

  constructor(
    readonly isBid: boolean,
    opts: BookSideOptions = {},
  ) {
    const w = opts.window ?? WINDOW;
    if (!(w >= 32 && (w & (w - 1)) === 0)) throw new RangeError(`window ${w} is not a power of two >= 32`);
    this.#w = w;
    this.#lim = Number.MAX_SAFE_INTEGER - 2 * w;
  }

  /** Number of levels. */
  get size(): number {
    return this.#wn + this.#deep.size;
  }

  /** Removes every level. */
  clear(): void {
    if (this.#wn > 0) {
      this.#wq.fill(0);
      this.#bits.fill(0);
    }
    this.#wn = 0;
    this.#top = -1;
    this.#placed = false;
    this.#direct = true;
    this.#deep.clear();
    this.#cv = false;
  }

  /** Sets the absolute quantity of a price level; 0 removes it (removing an unknown level is a no-op). */
  set(price: number, qty: number): void {
    const key = this.isBid ? price : -price;
    this.#cv = false;
    if (!this.#direct || Math.floor(key) !== key || key > this.#lim || key < -this.#lim) {
      this.#blocksOnly(key, qty);
      return;
    }
    let off = key - this.#base;
    if (!this.#placed || off >= this.#w) {
      // Nothing is above the window (invariant 1), so removing such a level is a no-op.
      if (qty === 0) return;
      this.#place(key - ((this.#w >> 2) * 3));
      off = key - this.#base;
    }
    if (off < 0) {
      this.#deep.set(key, qty);
      return;
    }
    const wq = this.#wq;
    const old = wq[off] as number;
    if (qty !== 0) {
      wq[off] = qty;
      if (old === 0) {
        this.#bits[off >> 5] = (this.#bits[off >> 5] as number) | (1 << (off & 31));
        this.#wn++;
        if (off > this.#top) this.#top = off;
      }
      return;
    }
    if (old === 0) return;
    wq[off] = 0;
    this.#bits[off >> 5] = (this.#bits[off >> 5] as number) & ~(1 << (off & 31));
    this.#wn--;
    if (off === this.#top) {
      this.#top = this.#highestAtOrBelow(off - 1);
      if (this.#top < this.#w >> 2) this.#sink();
    }
  }

  /**
   * {@link set} for the first `n` levels of a diff's side, in order. Levels whose key lands in the
   * placed window (other than the removal of its top level, which must find the next one) are
   * applied in one loop over locals; any other level goes through set, and the loop goes on after
   * it. The side ends up exactly as with set per level. Why: ~95 % of a replayed BTCUSDT diff's
   * levels land in the window, and the loop skips set's per-call checks and field reloads
   * (measured: the recording's 298k level updates into a local book ~7 % less CPU). Level i is
   * `prices[pi + i]`, `qtys[qi + i]` (the offsets let a replay pass a binary recording's level pool
   * as it lies, see record/depth-diff's FlatDepthLevels).
   */
  setMany(prices: Float64Array, qtys: Float64Array, n: number, pi = 0, qi = 0): void {
    this.#cv = false;
    const isBid = this.isBid;
    const w = this.#w;
    const lim = this.#lim;
    let i = 0;
    while (i < n) {
      if (this.#placed && this.#direct) {
        // Re-read after every set: it may have moved or reallocated the window.
        const wq = this.#wq;
        const bits = this.#bits;
        const base = this.#base;
        let wn = this.#wn;
        let top = this.#top;
        for (; i < n; i++) {
          const price = prices[pi + i] as number;
          const qty = qtys[qi + i] as number;
          const key = isBid ? price : -price;
          if (Math.floor(key) !== key || key > lim || key < -lim) break;
          const off = key - base;
          if (off < 0 || off >= w) break;
          const old = wq[off] as number;
          if (qty !== 0) {
            wq[off] = qty;
            if (old === 0) {
              bits[off >> 5] = (bits[off >> 5] as number) | (1 << (off & 31));
              wn++;
              if (off > top) top = off;
            }
          } else if (old !== 0) {
            if (off === top) break;
            wq[off] = 0;
            bits[off >> 5] = (bits[off >> 5] as number) & ~(1 << (off & 31));
            wn--;
          }
        }
        this.#wn = wn;
        this.#top = top;
        if (i >= n) return;
      }
      this.set(prices[pi + i] as number, qtys[qi + i] as number);
      i++;
    }
  }

  /** Scaled price of the i-th best level (0 = best); NaN when absent. */
  priceAt(i: number): number {
    if (!(i >= 0 && i < this.size)) return NaN;
    const key = i < this.#wn ? this.#base + this.#slotOfRank(i) : this.#deep.priceAt(i - this.#wn);
    return this.isBid ? key : -key;
  }

  /** Scaled quantity of the i-th best level; NaN when absent. */
  qtyAt(i: number): number {
    if (!(i >= 0 && i < this.size)) return NaN;
    return i < this.#wn ? (this.#wq[this.#slotOfRank(i)] as number) : this.#deep.qtyAt(i - this.#wn);
  }

  /** Multiplies every price and quantity after a scale change; throws if any leaves the safe-integer range. */
  rescale(priceFactor: number, qtyFactor: number): void {
    // Checked before anything changes, so a refused rescale leaves the side as it was. Rare (a
    // scale grows a few times per symbol at most), so the side is simply rebuilt.
    const n = this.size;
    const keys = new Float64Array(n);
    const qtys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const p = this.priceAt(i) * priceFactor;
      const q = this.qtyAt(i) * qtyFactor;
      if (!Number.isSafeInteger(p) || !Number.isSafeInteger(q)) throw new RangeError('level beyond safe-integer range after rescale');
      keys[i] = p;
      qtys[i] = q;
    }
    this.clear();
    for (let i = 0; i < n; i++) this.set(keys[i] as number, qtys[i] as number);
  }

  /** A key the window cannot hold: every level moves to the blocks, which take this one too. */
  #blocksOnly(key: number, qty: number): void {
    if (this.#direct) {
      this.#direct = false;
      this.#spill(0, this.#w);
      this.#bits.fill(0);
      this.#wn = 0;
      this.#top = -1;
      this.#placed = false;
    }
    this.#deep.set(key, qty);
  }

  /** Moves the levels of window slots [from, to) to the blocks and empties those slots. */
  #spill(from: number, to: number): void {
    if (this.#wn === 0) return;
    const wq = this.#wq;
    for (let s = from; s < to; s++) {
      const q = wq[s] as number;
      if (q !== 0) {
        this.#deep.set(this.#base + s, q);
        wq[s] = 0;
      }
    }
  }

  /**
   * Places the window with slot 0 at key `base`, keeping invariants 1 and 2: slots falling below it
   * go to the blocks and the blocks' levels inside it come in. Callers choose a base that leaves
   * no level above the window (a new level above it, or the best level, lands at 3/4).
   */
  #place(base: number): void {
    const w = this.#w;
    if (this.#wq.length !== w) {
      this.#wq = new Float64Array(w);
      this.#bits = new Int32Array(w >> 5);
    }
    const wq = this.#wq;
    if (!this.#placed) {
      // An empty side (invariant 4): every slot and bit is already clear, nothing to move or count.
      this.#placed = true;
      this.#base = base;
      this.#wn = 0;
      this.#top = -1;
      return;
    }
    if (base > this.#base) {
      const shift = base - this.#base;
      this.#spill(0, Math.min(shift, w));
      if (shift < w) wq.copyWithin(0, shift, w);
      wq.fill(0, Math.max(w - shift, 0));
    } else if (base < this.#base) {
      const shift = this.#base - base;
      if (shift < w) wq.copyWithin(shift, 0, w - shift);
      wq.fill(0, 0, Math.min(shift, w));
    }
    this.#base = base;
    // The blocks' best levels at or above the new base belong to the window now.
    const deep = this.#deep;
    while (deep.size > 0) {
      const k = deep.priceAt(0);
      if (k < base) break;
      wq[k - base] = deep.qtyAt(0);
      deep.set(k, 0);
    }
    // Recount (O(W), only when the window moves).
    const bits = this.#bits;
    bits.fill(0);
    let n = 0;
    let top = -1;
    for (let s = 0; s < w; s++) {
      if ((wq[s] as number) !== 0) {
        bits[s >> 5] = (bits[s >> 5] as number) | (1 << (s & 31));
        n++;
        top = s;
      }
    }
    this.#wn = n;
    this.#top = top;
  }

  /** The touch fell below the window's lowest quarter: move the window down to put the best level at 3/4, or un-place an empty side. */
  #sink(): void {
    const best = this.#top >= 0 ? this.#base + this.#top : this.#deep.size > 0 ? this.#deep.priceAt(0) : undefined;
    if (best === undefined) {
      this.#placed = false;
      return;
    }
    this.#place(best - ((this.#w >> 2) * 3));
  }

  /** Highest occupied slot at or below `s`, or -1. */
  #highestAtOrBelow(s: number): number {
    if (s < 0) return -1;
    const bits = this.#bits;
    let w = s >> 5;
    // Bits 0..(s & 31) of the word: (2 << b) - 1, which ToInt32 makes all ones for b = 31.
    let m = (bits[w] as number) & ((2 << (s & 31)) - 1);
    while (m === 0) {
      if (--w < 0) return -1;
      m = bits[w] as number;
    }
    return (w << 5) + 31 - Math.clz32(m);
  }

  /**
   * Window slot of the level of rank i (< #wn). Walks occupied slots down from the top, or from the
   * cursor when reading on from an earlier rank, skipping whole bitmap words by their popcount, so
   * reading ranks in order costs one pass over the bitmap.
   */
  #slotOfRank(i: number): number {
    let r = 0;
    let s = this.#top;
    if (this.#cv && i >= this.#cr) {
      r = this.#cr;
      s = this.#cs;
    }
    let need = i - r;
    if (need > 0) {
      const bits = this.#bits;
      let w = s >> 5;
      // Occupied slots strictly below s in its word.
      let m = (bits[w] as number) & ((1 << (s & 31)) - 1);
      for (;;) {
        const c = popcount(m);
        if (c >= need) {
          for (; need > 1; need--) m &= ~(1 << (31 - Math.clz32(m)));
          s = (w << 5) + 31 - Math.clz32(m);
          break;
        }
        need -= c;
        m = bits[--w] as number;
      }
    }
    this.#cr = i;
    this.#cs = s;
    this.#cv = true;
    return s;
  }
}

/** Set bits of a 32-bit word. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
