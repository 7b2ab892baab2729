/**
 * A local order book on scaled integers with exact Decimal views. It holds state only; the
 * snapshot+diff synchronisation that decides when the state is trustworthy is in book-sync.ts.
 */
import type { BookView, FillCost } from '../../core/bookView.js';
import { Decimal, ZERO } from '../../core/decimal.js';
import { scaledOfDecimal } from '../../core/decimalScaled.js';
import type { OrderSideName } from '../../core/enums.js';
import { fractionDigitsOf, reserveLevels, type FlatDepthLevels, type ScaledLevels } from '../../core/scaledLevels.js';
import type { BookLevel } from '../../core/types.js';
import { BookSide } from './book-side.js';
import { decimalToScaledRounded, pow10, scaledMidToDecimal, scaledToDecimal, scaledToString, toScaled } from './scaled.js';

/** Levels as they come: parsed BookLevels (stream events) or raw wire `[price, qty]` string pairs. */
export type LevelsInput = readonly BookLevel[] | readonly (readonly string[])[];

/** Options of an order book. */
export interface OrderBookOptions {
  /** Initial price scale (fraction digits); grows automatically when finer prices arrive. */
  readonly priceScale?: number;
  /** Initial quantity scale; grows automatically. */
  readonly qtyScale?: number;
}

/**
 * The last Decimal built for one scaled value at one scale. Strategies, the risk checker and mark
 * prices read the touch far more often than it changes between reads, and building a Decimal from
 * a string is the cost of a read; Decimals are immutable, so one may be handed out many times.
 */
class DecimalMemo {
  #v = NaN;
  #scale = -1;
  #d: Decimal = ZERO;

  of(v: number, scale: number): Decimal {
    if (v !== this.#v || scale !== this.#scale) {
      this.#d = scaledToDecimal(v, scale);
      this.#v = v;
      this.#scale = scale;
    }
    return this.#d;
  }
}

/** Book state plus the BookView contract; `ready` is driven by the owner (BookSync). */
export class OrderBook implements BookView {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  #priceScale: number;
  #qtyScale: number;
  #ready = false;
  /** Update id of the last applied snapshot or diff. */
  lastUpdateId = 0;
  readonly #bidPrice = new DecimalMemo();
  readonly #bidQty = new DecimalMemo();
  readonly #askPrice = new DecimalMemo();
  readonly #askQty = new DecimalMemo();
  /** Last midpoint and the scaled touch it was computed from. */
  #mid: { bid: number; ask: number; scale: number; mid: Decimal } | undefined;

  constructor(
    readonly symbol: string,
    opts: OrderBookOptions = {},
  ) {
    this.#priceScale = opts.priceScale ?? 0;
    this.#qtyScale = opts.qtyScale ?? 0;
  }

  /** False when the book is known to be wrong or not yet synchronised: do not trade on it. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Set by the synchroniser, which also empties the book when readiness is lost so no stale level can be read. */
  setReady(ready: boolean): void {
    this.#ready = ready;
  }

  /** Fraction digits of the scaled prices. */
  get priceScale(): number {
    return this.#priceScale;
  }

  /** Fraction digits of the scaled quantities. */
  get qtyScale(): number {
    return this.#qtyScale;
  }

  /** Empties both sides. */
  clear(): void {
    this.bids.clear();
    this.asks.clear();
    this.lastUpdateId = 0;
  }

  /** Replaces the content with a snapshot. */
  loadSnapshot(lastUpdateId: number, bids: LevelsInput, asks: LevelsInput): void {
    this.clear();
    this.applyLevels(bids, asks);
    this.lastUpdateId = lastUpdateId;
  }

  /** Applies absolute quantities per level; quantity 0 removes the level. */
  applyLevels(bids: LevelsInput, asks: LevelsInput): void {
    this.#applySide(this.bids, bids);
    this.#applySide(this.asks, asks);
  }

  #applySide(side: BookSide, levels: LevelsInput): void {
    for (let i = 0; i < levels.length; i++) {
      const lv = levels[i] as BookLevel | readonly string[];
      let ps: string;
      let qs: string;
      if (Array.isArray(lv)) {
        ps = lv[0] as string;
        qs = lv[1] as string;
      } else {
        // Parsed levels (eager stream events, REST snapshots): their Decimals scale directly when
        // they fit the book's scales as they are; any other goes the text way below, as before.
        const { price, qty } = lv as BookLevel;
        const p = scaledOfDecimal(price, this.#priceScale);
        const q = p >= 0 ? scaledOfDecimal(qty, this.#qtyScale) : -1;
        if (q >= 0) {
          side.set(p, q);
          continue;
        }
        ps = price.toFixed();
        qs = qty.toFixed();
      }
      let p = toScaled('price', ps, this.#priceScale);
      if (p < 0) {
        this.#rescale(fractionDigitsOf(ps), this.#qtyScale);
        p = toScaled('price', ps, this.#priceScale);
      }
      let q = toScaled('qty', qs, this.#qtyScale);
      if (q < 0) {
        this.#rescale(this.#priceScale, fractionDigitsOf(qs));
        q = toScaled('qty', qs, this.#qtyScale);
      }
      side.set(p, q);
    }
  }

  /**
   * Applies absolute quantities per level from levels parsed once by the caller (a replay hands the
   * same parsed diff to this book and to the matching engine). The book first moves to the levels'
   * scales where they are finer (as parsing their strings would have); levels at coarser scales are
   * converted exactly. Same result as {@link applyLevels} on the strings they were parsed from.
   * Throws RangeError when a rescale would leave the safe-integer range (the side being rescaled is
   * left unchanged, like applyLevels; the synchroniser then invalidates the book).
   */
  applyScaled(bids: ScaledLevels, asks: ScaledLevels): void {
    this.#applyScaledSide(this.bids, bids.prices, 0, bids.qtys, 0, bids.n, bids.priceScale, bids.qtyScale);
    this.#applyScaledSide(this.asks, asks.prices, 0, asks.qtys, 0, asks.n, asks.priceScale, asks.qtyScale);
  }

  /**
   * {@link applyScaled} for a diff's levels where a binary recording's reader left them (both
   * sides in one buffer, see record/depth-diff's FlatDepthLevels): same effect, without reading
   * them through ScaledLevels objects and array views.
   */
  applyFlat(f: FlatDepthLevels): void {
    this.#applyScaledSide(this.bids, f.buf, f.bidPrices, f.buf, f.bidQtys, f.nBids, f.priceScale, f.qtyScale);
    this.#applyScaledSide(this.asks, f.buf, f.askPrices, f.buf, f.askQtys, f.nAsks, f.priceScale, f.qtyScale);
  }

  /** One side's `n` levels: prices from `prices[pi]`, quantities from `qtys[qi]`, at `priceScale`/`qtyScale`. */
  #applyScaledSide(side: BookSide, prices: Float64Array, pi: number, qtys: Float64Array, qi: number, n: number, priceScale: number, qtyScale: number): void {
    if (priceScale > this.#priceScale || qtyScale > this.#qtyScale) this.#rescale(Math.max(priceScale, this.#priceScale), Math.max(qtyScale, this.#qtyScale));
    if (priceScale === this.#priceScale && qtyScale === this.#qtyScale) {
      side.setMany(prices, qtys, n, pi, qi);
      return;
    }
    // Coarser levels (parsed before this book's scale grew): exact conversion, refused past 2^53.
    const pf = pow10(this.#priceScale - priceScale);
    const qf = pow10(this.#qtyScale - qtyScale);
    for (let i = 0; i < n; i++) {
      const p = (prices[pi + i] as number) * pf;
      const q = (qtys[qi + i] as number) * qf;
      if (p > Number.MAX_SAFE_INTEGER || q > Number.MAX_SAFE_INTEGER) throw new RangeError('level beyond safe-integer range after rescale');
      side.set(p, q);
    }
  }

  #rescale(priceScale: number, qtyScale: number): void {
    const pf = pow10(priceScale - this.#priceScale);
    const qf = pow10(qtyScale - this.#qtyScale);
    this.bids.rescale(pf, qf);
    this.asks.rescale(pf, qf);
    this.#priceScale = priceScale;
    this.#qtyScale = qtyScale;
  }

  /** Best bid price as a scaled integer (see priceScale); NaN when empty. Allocation-free hot path. */
  bestBidScaled(): number {
    return this.bids.priceAt(0);
  }

  /** Best ask price as a scaled integer; NaN when empty. */
  bestAskScaled(): number {
    return this.asks.priceAt(0);
  }

  /** True when best bid >= best ask, which a correct book never shows. */
  isCrossed(): boolean {
    return this.bids.size > 0 && this.asks.size > 0 && this.bids.priceAt(0) >= this.asks.priceAt(0);
  }

  #level(side: BookSide, i: number): BookLevel {
    return { price: scaledToDecimal(side.priceAt(i), this.#priceScale), qty: scaledToDecimal(side.qtyAt(i), this.#qtyScale) };
  }

  /** Best bid, undefined when empty (a new level object each call; its Decimals may be shared). */
  bestBid(): BookLevel | undefined {
    const b = this.bids;
    return b.size > 0 ? { price: this.#bidPrice.of(b.priceAt(0), this.#priceScale), qty: this.#bidQty.of(b.qtyAt(0), this.#qtyScale) } : undefined;
  }

  /** Best ask, undefined when empty. */
  bestAsk(): BookLevel | undefined {
    const a = this.asks;
    return a.size > 0 ? { price: this.#askPrice.of(a.priceAt(0), this.#priceScale), qty: this.#askQty.of(a.qtyAt(0), this.#qtyScale) } : undefined;
  }

  /** (best bid + best ask) / 2, exact; undefined when a side is empty. */
  midPrice(): Decimal | undefined {
    if (this.bids.size === 0 || this.asks.size === 0) return undefined;
    const bid = this.bids.priceAt(0);
    const ask = this.asks.priceAt(0);
    const scale = this.#priceScale;
    const m = this.#mid;
    if (m !== undefined && m.bid === bid && m.ask === ask && m.scale === scale) return m.mid;
    const mid = scaledMidToDecimal(bid, ask, scale);
    this.#mid = { bid, ask, scale, mid };
    return mid;
  }

  /** Top n levels of each side, best first. */
  top(n: number): { bids: BookLevel[]; asks: BookLevel[] } {
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    for (let i = 0; i < Math.min(n, this.bids.size); i++) bids.push(this.#level(this.bids, i));
    for (let i = 0; i < Math.min(n, this.asks.size); i++) asks.push(this.#level(this.asks, i));
    return { bids, asks };
  }

  /**
   * Every level of each side, best first, as plain decimal strings with the book's scales (for
   * handing the whole book to something that scales strings itself, without building Decimals).
   */
  wireLevels(): { bids: { price: string; qty: string }[]; asks: { price: string; qty: string }[] } {
    const side = (s: BookSide): { price: string; qty: string }[] => {
      const out = new Array<{ price: string; qty: string }>(s.size);
      for (let i = 0; i < s.size; i++) out[i] = { price: scaledToString(s.priceAt(i), this.#priceScale), qty: scaledToString(s.qtyAt(i), this.#qtyScale) };
      return out;
    };
    return { bids: side(this.bids), asks: side(this.asks) };
  }

  /**
   * Every level of each side, best first, as scaled integers at the book's scales, into `bids` and
   * `asks` (their arrays are replaced when too small): the whole book for the matching engine
   * without a text per level.
   */
  scaledLevels(bids: ScaledLevels, asks: ScaledLevels): void {
    this.#scaledSide(this.bids, bids);
    this.#scaledSide(this.asks, asks);
  }

  #scaledSide(side: BookSide, out: ScaledLevels): void {
    const n = side.size;
    reserveLevels(out, n);
    // Ranks read in order: one pass over the side (see BookSide's rank cursor).
    for (let i = 0; i < n; i++) {
      out.prices[i] = side.priceAt(i);
      out.qtys[i] = side.qtyAt(i);
    }
    out.n = n;
    out.priceScale = this.#priceScale;
    out.qtyScale = this.#qtyScale;
  }

  /** Levels whose price lies within [low, high], best first on each side. */
  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] } {
    const lo = decimalToScaledRounded(low, this.#priceScale, 'ceil');
    const hi = decimalToScaledRounded(high, this.#priceScale, 'floor');
    const pick = (side: BookSide): BookLevel[] => {
      const out: BookLevel[] = [];
      for (let i = 0; i < side.size; i++) {
        const p = side.priceAt(i);
        if (p >= lo && p <= hi) out.push(this.#level(side, i));
        // Sides are walked best first: bids fall below the band, asks rise above it.
        else if (side.isBid ? p < lo : p > hi) break;
      }
      return out;
    };
    return { bids: pick(this.bids), asks: pick(this.asks) };
  }

  /** Total quantity on one side within [low, high] (exact). */
  depthWithin(side: OrderSideName, low: Decimal, high: Decimal): Decimal {
    const levels = this.band(low, high);
    return (side === 'BUY' ? levels.bids : levels.asks).reduce((acc, l) => acc.plus(l.qty), ZERO);
  }

  /** Cost of taking `qty` from the opposite side (BUY walks the asks), exact. */
  costToFill(side: OrderSideName, qty: Decimal): FillCost {
    const book = side === 'BUY' ? this.asks : this.bids;
    let remaining = qty;
    let filled = ZERO;
    let quote = ZERO;
    let worst: Decimal | undefined;
    for (let i = 0; i < book.size && remaining.gt(0); i++) {
      const lv = this.#level(book, i);
      const take = Decimal.min(remaining, lv.qty);
      filled = filled.plus(take);
      quote = quote.plus(take.mul(lv.price));
      remaining = remaining.minus(take);
      worst = lv.price;
    }
    return { filledQty: filled, quoteQty: quote, avgPrice: filled.isZero() ? undefined : quote.div(filled), worstPrice: worst };
  }
}
