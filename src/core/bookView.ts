/** Read-only view of a local order book, as strategies and the risk checker see it. */
import type { Decimal } from './decimal.js';
import type { BookLevel } from './types.js';
import type { OrderSideName } from './enums.js';

/** Result of walking the book for a quantity. */
export interface FillCost {
  /** Quantity that the visible book can fill (may be less than asked). */
  readonly filledQty: Decimal;
  /** Quote amount paid (buy) or received (sell) for filledQty. */
  readonly quoteQty: Decimal;
  /** Volume-weighted average price, undefined when nothing fills. */
  readonly avgPrice: Decimal | undefined;
  /** Price of the last level touched. */
  readonly worstPrice: Decimal | undefined;
}

/** A read-only order book. `ready` false means the book is known to be wrong: do not trade on it. */
export interface BookView {
  readonly symbol: string;
  readonly ready: boolean;
  /** Update id of the last applied event. */
  readonly lastUpdateId: number;
  bestBid(): BookLevel | undefined;
  bestAsk(): BookLevel | undefined;
  /** Top n levels of each side, best first. */
  top(n: number): { bids: BookLevel[]; asks: BookLevel[] };
  /** Levels whose price lies within [low, high]. */
  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] };
  /** Cost of taking `qty` from the side opposite to `side` (BUY walks the asks). */
  costToFill(side: OrderSideName, qty: Decimal): FillCost;
  /**
   * The price any positive quantity fills at on either side, when the book is one level of
   * unbounded quantity (candle mode's bar book); undefined otherwise (absent: never). Lets the
   * risk checker value a market order as price x quantity in scaled integers.
   */
  singlePrice?(): Decimal | undefined;
}
