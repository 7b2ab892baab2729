/**
 * Spread captured by a strategy's fills: each fill's price against the mark when it filled (the
 * book mid on tick data; on candles the last price, so there it reads as slippage against the
 * last close), from the filler's side: a buy below the mid or a sell above it captured spread, in
 * the quote asset (times the fill's quantity) and in basis points of the mid. A market maker lives
 * on this figure; markouts (markouts.ts) say how much of it adverse selection gave back.
 * Descriptive floats: they decide no order.
 */

/** What the figure reads of a fill. */
export interface SpreadFill {
  readonly strategy: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: string;
  readonly qty: string;
  readonly maker: boolean;
}

/** A strategy's spread captured. */
export interface SpreadCapture {
  /** Fills with a mark at fill time (all of them once the book or a price is known). */
  readonly fills: number;
  readonly makerFills: number;
  /** Mean per fill, in basis points of the mid; null without fills. */
  readonly meanBps: number | null;
  /** Mean of maker fills alone (the quotes' own edge); null without maker fills. */
  readonly makerMeanBps: number | null;
  /** Sum over fills of (mid - price) x qty for buys, (price - mid) x qty for sells, in the quote asset. */
  readonly totalQuote: number;
}

/**
 * Sums per strategy. The mark is taken when each fill happens (`mark`, in fill order) and the fills
 * are read later in the same order (`fill`), as a result collector stores them.
 */
export class SpreadCaptureBuilder {
  readonly #sums = new Map<string, { n: number; maker: number; bps: number; makerBps: number; quote: number }>();
  readonly #mids: number[] = [];
  #next = 0;

  /** The mark when the next fill happened (undefined: none known). */
  mark(mid: number | undefined): void {
    this.#mids.push(mid ?? NaN);
  }

  /** The next fill, in the order the marks were taken. */
  fill(f: SpreadFill): void {
    const mid = this.#mids[this.#next++];
    if (mid === undefined || !(mid > 0)) return;
    const price = Number(f.price);
    const edge = f.side === 'BUY' ? mid - price : price - mid;
    let s = this.#sums.get(f.strategy);
    if (s === undefined) this.#sums.set(f.strategy, (s = { n: 0, maker: 0, bps: 0, makerBps: 0, quote: 0 }));
    const bps = (edge / mid) * 10_000;
    s.n++;
    s.bps += bps;
    s.quote += edge * Number(f.qty);
    if (f.maker) {
      s.maker++;
      s.makerBps += bps;
    }
  }

  /** A strategy's figure, each number rounded by `round`. */
  of(strategy: string, round: (x: number) => number): SpreadCapture {
    const s = this.#sums.get(strategy);
    if (s === undefined) return { fills: 0, makerFills: 0, meanBps: null, makerMeanBps: null, totalQuote: 0 };
    return { fills: s.n, makerFills: s.maker, meanBps: round(s.bps / s.n), makerMeanBps: s.maker === 0 ? null : round(s.makerBps / s.maker), totalQuote: round(s.quote) };
  }
}
