/**
 * Per-(strategy, symbol) positions and cash from fills, and the daily PnL the daily loss limit
 * reads. Shared by live, paper (src/cli/runSession.ts) and backtests (src/backtest/Backtest.ts),
 * so a loss limit means the same in every mode. Exact decimals throughout.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import { isBaseQuote, splitSymbol } from '../core/symbols.js';
import type { FillRecord } from '../store/records.js';

/** Position and PnL of one strategy on one symbol. */
export interface SymbolBook {
  readonly symbol: string;
  /** Net base quantity bought minus sold, less base-asset commissions. */
  position: Decimal;
  /** Quote received minus quote paid, less quote-asset commissions. */
  cash: Decimal;
  /**
   * What the open position cost, in quote (negative for a short: what selling it brought), at
   * average cost. Kept by {@link addFill} only (the daily loss limit needs no split).
   */
  basis: Decimal;
  /** Commissions in other assets, by asset. */
  readonly otherFees: Map<string, Decimal>;
  fills: number;
  volume: Decimal;
}

/** The fields of a fill that positions and PnL read. */
type FillFields = Pick<FillRecord, 'strategy' | 'symbol' | 'side' | 'qty' | 'quoteQty' | 'commission' | 'commissionAsset'>;

/** A fill as the daily PnL reads it: with `E`, the exchange's transaction time (ms) a FillEvent carries, when known. */
export type DatedFill = FillFields & { readonly E?: number };

const DAY_MS = 86_400_000;

function emptyBook(symbol: string): SymbolBook {
  return { symbol, position: ZERO, cash: ZERO, basis: ZERO, otherFees: new Map(), fills: 0, volume: ZERO };
}

/** Adds one fill to a book whose symbol splits into `base` and `quote`. */
function applyFill(b: SymbolBook, f: FillFields, base: string, quote: string): void {
  const buy = f.side === 'BUY';
  b.position = buy ? b.position.plus(f.qty) : b.position.minus(f.qty);
  b.cash = buy ? b.cash.minus(f.quoteQty) : b.cash.plus(f.quoteQty);
  if (f.commissionAsset === base) b.position = b.position.minus(f.commission);
  else if (f.commissionAsset === quote) b.cash = b.cash.minus(f.commission);
  else if (f.commissionAsset !== null && !f.commission.isZero()) b.otherFees.set(f.commissionAsset, (b.otherFees.get(f.commissionAsset) ?? ZERO).plus(f.commission));
  b.fills++;
  b.volume = b.volume.plus(f.quoteQty);
}

/** Adds one fill to per-(strategy, symbol) positions (keyed `strategy symbol`), their cost basis included. */
export function addFill(out: Map<string, SymbolBook>, f: FillFields): void {
  const key = `${f.strategy} ${f.symbol}`;
  let b = out.get(key);
  if (!b) out.set(key, (b = emptyBook(f.symbol)));
  const { base, quote } = splitSymbol(f.symbol);
  const before = b.position;
  applyFill(b, f, base, quote);
  moveBasis(b, before, f);
}

/**
 * Average cost: a fill that adds to the position adds what it paid (a buy) or brought (a sell, as
 * a negative cost); one that reduces it takes out the average cost of what it closed, and what
 * goes beyond zero opens the other side at the fill's own price. A base-asset commission shrinks
 * the position, not its cost. A flat position has no basis (no rounding residue is carried).
 */
function moveBasis(b: SymbolBook, before: Decimal, f: FillFields): void {
  const buy = f.side === 'BUY';
  const signedQuote = buy ? f.quoteQty : f.quoteQty.neg();
  if (b.position.isZero()) b.basis = ZERO;
  else if (before.isZero() || before.isPositive() === buy) b.basis = b.basis.plus(signedQuote);
  else {
    const closed = Decimal.min(f.qty, before.abs());
    b.basis = b.basis.minus(b.basis.div(before).mul(buy ? closed.neg() : closed));
    const opened = f.qty.minus(closed);
    if (opened.isPositive() && !f.qty.isZero()) b.basis = b.basis.plus(signedQuote.mul(opened).div(f.qty));
  }
}

/** Realized and unrealized PnL of a book, in quote; they add up to {@link markedPnl}. */
export interface PnlSplit {
  /** Cash flow of what was closed, less commissions: cash plus the cost of what is still held. */
  readonly realized: Decimal;
  /** The open position at the mark less its cost; zero when flat or with no mark. */
  readonly unrealized: Decimal;
}

/** Splits a book's PnL at `mark` (undefined mark: the open position is valued at its cost). */
export function pnlSplit(b: SymbolBook, mark: Decimal | undefined): PnlSplit {
  const realized = b.cash.plus(b.basis);
  return { realized, unrealized: mark === undefined ? ZERO : b.position.mul(mark).minus(b.basis) };
}

/** One strategy's books of the day by symbol, with each symbol's assets split once. */
interface DayBook {
  readonly book: SymbolBook;
  readonly base: string;
  readonly quote: string;
}

/** Most fills queued before they are folded unasked (see {@link DailyPnl}). */
export const PENDING_KEPT = 16;

/**
 * Per-strategy PnL of the current UTC day: the day's fills (cash flows and position change)
 * marked to market. Resets at 00:00 UTC, which is when a daily loss limit rolls over.
 *
 * A fill counts in the UTC day of its exchange transaction time, not of its arrival: one
 * recovered by reconciliation (or late on the stream) just after midnight belongs to the day that
 * ended and is not counted today; one stamped after midnight that arrives while our clock is still
 * before it (our clock behind the exchange's) is kept for the new day instead of being reset away.
 * A fill without a usable transaction time (no `E`, or not a positive integer) falls back to its
 * arrival time on our clock.
 *
 * Fills are queued when they arrive and folded into the books, in arrival order, when a PnL is
 * asked for or {@link PENDING_KEPT} are queued. Folding later performs the very operations, in
 * the very order, of folding at once, so the PnL is the same. The bound is for a run that never
 * asks (no daily loss limit, no status): it would hold each fill for the day, long enough to be
 * copied twice by young-generation collections and promoted.
 */
export class DailyPnl {
  #day = -1;
  /** Books of the day by strategy, then symbol (first-fill order within each). */
  #books = new Map<string, Map<string, DayBook>>();
  /** Fills of the day not folded into the books yet, in arrival order. */
  #pending: FillFields[] = [];
  /** Fills stamped on a later day than our clock's current one, with that day, in arrival order. */
  #later: { day: number; f: FillFields }[] = [];

  /** Adds a fill that arrived at time `t` (ms, our clock); it counts in the day of `f.E` when usable, else of `t`. */
  add(t: number, f: DatedFill): void {
    this.#roll(t);
    // A symbol without BASE_QUOTE form is refused on arrival, as when fills were folded at once.
    if (!isBaseQuote(f.symbol)) splitSymbol(f.symbol);
    const e = f.E;
    const day = Math.floor((e !== undefined && Number.isSafeInteger(e) && e > 0 ? e : t) / DAY_MS);
    if (day === this.#day) {
      if (this.#pending.push(f) >= PENDING_KEPT) this.#fold();
    } else if (day > this.#day) this.#later.push({ day, f });
    // else: a fill of a day already over; its limit no longer decides anything, and today's must not see it.
  }

  /** Fills of the day not folded into the books yet. */
  get queued(): number {
    return this.#pending.length;
  }

  /** PnL of `strategy` today at time `t`, in quote terms, with positions at `mark`. */
  of(strategy: string, t: number, mark: (symbol: string) => Decimal | undefined): Decimal {
    this.#roll(t);
    if (this.#pending.length > 0) this.#fold();
    let sum = ZERO;
    const books = this.#books.get(strategy);
    if (books !== undefined) for (const d of books.values()) sum = sum.plus(markedPnl(d.book, mark(d.book.symbol)));
    return sum;
  }

  #fold(): void {
    const pending = this.#pending;
    for (let i = 0; i < pending.length; i++) {
      const f = pending[i] as FillFields;
      let books = this.#books.get(f.strategy);
      if (books === undefined) this.#books.set(f.strategy, (books = new Map()));
      let d = books.get(f.symbol);
      if (d === undefined) {
        const { base, quote } = splitSymbol(f.symbol);
        books.set(f.symbol, (d = { book: emptyBook(f.symbol), base, quote }));
      }
      applyFill(d.book, f, d.base, d.quote);
    }
    pending.length = 0;
  }

  /** Moves to the day of `t` when it is later (a clock stepping back does not reopen a day). */
  #roll(t: number): void {
    const day = Math.floor(t / DAY_MS);
    if (day <= this.#day) return;
    this.#day = day;
    this.#books = new Map();
    this.#pending = [];
    if (this.#later.length === 0) return;
    const later = this.#later;
    this.#later = [];
    for (const x of later) {
      if (x.day === day) this.#pending.push(x.f);
      else if (x.day > day) this.#later.push(x);
    }
  }
}

/** PnL in quote terms: cash plus position at the mark (undefined mark: cash only). */
export function markedPnl(b: SymbolBook, mark: Decimal | undefined): Decimal {
  return mark === undefined ? b.cash : b.cash.plus(b.position.mul(mark));
}
