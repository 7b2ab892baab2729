/**
 * The book view of candle mode, where no depth is replayed: both sides are the last bar's close
 * with an unbounded quantity. It lets the risk checker estimate market orders (notional, balance)
 * the way it does live, at the price the candle venue's model is anchored to; it says nothing
 * about liquidity, which candle mode does not model.
 */
import type { BookView, FillCost } from '../core/bookView.js';
import { Decimal, ZERO } from '../core/decimal.js';
import type { OrderSideName } from '../core/enums.js';
import type { BookLevel } from '../core/types.js';

/** Quantity shown on each side: large enough never to limit an estimate. */
const UNBOUNDED = new Decimal('1e15');

/** What the book reads of a bar: its close, read only when the book is (a CSV bar's Decimal is built on first read). */
export interface BookBar {
  readonly close: Decimal;
  readonly closeTime: number;
}

/** A one-level book at the last close. */
export class BarBook implements BookView {
  #bar: BookBar | undefined;
  /** The level at the bar's close, built when first read after an update (most bars are never read). */
  #cached: BookLevel | undefined;
  lastUpdateId = 0;

  constructor(readonly symbol: string) {}

  /** Ready once a bar has been seen. */
  get ready(): boolean {
    return this.#bar !== undefined;
  }

  /** Moves the book to a bar's close. */
  update(bar: BookBar): void {
    this.#bar = bar;
    this.#cached = undefined;
    this.lastUpdateId = bar.closeTime;
  }

  get #level(): BookLevel | undefined {
    if (this.#bar === undefined) return undefined;
    return (this.#cached ??= { price: this.#bar.close, qty: UNBOUNDED });
  }

  bestBid(): BookLevel | undefined {
    return this.#level;
  }

  bestAsk(): BookLevel | undefined {
    return this.#level;
  }

  top(n: number): { bids: BookLevel[]; asks: BookLevel[] } {
    const l = n > 0 && this.#level ? [this.#level] : [];
    return { bids: l, asks: [...l] };
  }

  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] } {
    const l = this.#level && this.#level.price.gte(low) && this.#level.price.lte(high) ? [this.#level] : [];
    return { bids: l, asks: [...l] };
  }

  singlePrice(): Decimal | undefined {
    return this.#bar?.close;
  }

  costToFill(_side: OrderSideName, qty: Decimal): FillCost {
    // Sign tests rather than lte(0): no Decimal(0) built per estimate.
    if (!this.#level || qty.isNegative() || qty.isZero()) return { filledQty: ZERO, quoteQty: ZERO, avgPrice: undefined, worstPrice: undefined };
    const p = this.#level.price;
    return { filledQty: qty, quoteQty: qty.mul(p), avgPrice: p, worstPrice: p };
  }
}
