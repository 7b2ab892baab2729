/**
 * Fill models: what a replayed trade does to the replayed book and to own orders' queues, beyond
 * the rules every model shares (src/sim/README.md, "The fill model": rules 1, 2, 5 and 6). Chosen
 * by `EngineConfig.fillModel`.
 */
import type { BookSide } from './book.js';
import type { Ord, Sym } from './state.js';
import type { FillModelName } from './types.js';

/** What a fill model may do to the replayed book (ReplayedLiquidity, replayed.ts). */
export interface ReplayedBook {
  /** Takes `qty` off the replayed quantity at `p` on `side` and drops replayed quantity better than `p` there. */
  takeReplayed(s: Sym, side: BookSide, p: number, qty: number): void;
}

/**
 * How replayed trades consume replayed liquidity (the part of fill simulation hftbacktest leaves
 * to its exchange model and fill types). Assumes: depth diffs carry absolute quantities, so a
 * later diff restates whatever a trade took; a trade's time and the last applied diff's time are
 * on one clock (the exchange's, see README "Two clocks"); own orders are virtual (the recorded
 * market never saw them).
 */
export interface FillModel {
  /** The model's name, as configured. */
  readonly name: FillModelName;
  /** True when the book already shows a trade at `tradeTime` (the last diff applied is stamped `bookTime`). */
  reflected(tradeTime: number, bookTime: number): boolean;
  /** A diff moved own order `o` up its queue by `moved` units. */
  movedUp(o: Ord, moved: number): void;
  /** After a replayed trade at `p` of `qty` filled what it proved on the maker `side`. */
  afterTrade(book: ReplayedBook, s: Sym, side: BookSide, p: number, qty: number, reflected: boolean): void;
}

/**
 * kancil (default): a trade the book does not show yet takes what it traded off the replayed book
 * (rule 3), and one it shows counts once (rule 4): the queue a diff already moved an own order up
 * is kept as its credit and set against the reflected trades at its price.
 */
export class KancilFill implements FillModel {
  readonly name = 'kancil';
  reflected(tradeTime: number, bookTime: number): boolean {
    return tradeTime <= bookTime;
  }
  movedUp(o: Ord, moved: number): void {
    o.credit += moved;
  }
  afterTrade(book: ReplayedBook, s: Sym, side: BookSide, p: number, qty: number, reflected: boolean): void {
    if (!reflected) book.takeReplayed(s, side, p, qty);
  }
}

/**
 * hftbacktest: the replayed book is left as it is after a trade (as hftbacktest and Nautilus
 * Trader do), and every trade shrinks the queue even when the preceding diff already showed it.
 */
export class HftbacktestFill implements FillModel {
  readonly name = 'hftbacktest';
  reflected(): boolean {
    return false;
  }
  movedUp(): void {}
  afterTrade(): void {}
}

/** The fill model a config names (default kancil); a clear error for anything else. */
export function fillModelOf(name: FillModelName | undefined): FillModel {
  const fm = name ?? 'kancil';
  if (fm === 'kancil') return new KancilFill();
  if (fm === 'hftbacktest') return new HftbacktestFill();
  throw new RangeError(`fillModel ${String(fm)} must be kancil or hftbacktest`);
}
