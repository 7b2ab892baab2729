/**
 * Profit from a ledger's fills, per strategy and symbol or per UTC day, as `kancil profit` prints
 * it. PnL is cash flow plus the position marked at a price, split at average cost into realized
 * (closed trades, less commissions) and unrealized (the open position at the mark less its cost).
 * The mark is the run's one mark: the mid of its local book, else its last trade price. A reader
 * of the ledger alone takes the last marks the run journalled (kind `marks`: every minute while it
 * runs and at its stop, so a stopped run's status shows its summary's figures), and the symbol's
 * last fill price only where the run never marked it. A day's PnL is the change of that marked
 * value over the day, each day marked at its own last fill price, so the days add up to the total.
 * Amounts are in each symbol's quote asset and never summed across quote assets. Exact decimals.
 */
import { ZERO, type Decimal } from '../core/decimal.js';
import { splitSymbol } from '../core/symbols.js';
import { addFill, markedPnl, pnlSplit, type SymbolBook } from '../execution/dailyPnl.js';
import type { FillRecord } from '../store/records.js';

/** Profit of one strategy on one symbol. */
export interface StrategyProfit {
  readonly strategy: string;
  readonly symbol: string;
  readonly quote: string;
  readonly fills: number;
  readonly volume: string;
  readonly position: string;
  /** Price the position is marked at; undefined when none is known. */
  readonly mark: string | undefined;
  readonly pnl: string;
  /** pnl at average cost: what closed trades made (less commissions) and the open position at the mark less its cost. */
  readonly realized: string;
  readonly unrealized: string;
  /** Commissions charged in assets other than the symbol's own, by asset (not in pnl). */
  readonly otherFees: Readonly<Record<string, string>>;
}

/** Profit of one UTC day in one quote asset. */
export interface DayProfit {
  readonly day: string;
  readonly quote: string;
  readonly fills: number;
  readonly volume: string;
  readonly pnl: string;
}

const DAY_MS = 86_400_000;

/** Per (strategy, symbol): position, volume and PnL; `mark` overrides the last fill price (a live run's book). */
export function profitByStrategy(fills: readonly FillRecord[], mark?: (symbol: string) => Decimal | undefined): StrategyProfit[] {
  const books = new Map<string, SymbolBook>();
  const last = new Map<string, Decimal>();
  for (const f of fills) {
    addFill(books, f);
    last.set(f.symbol, f.price);
  }
  return [...books.entries()].map(([key, b]) => {
    const m = mark?.(b.symbol) ?? last.get(b.symbol);
    return {
      strategy: key.slice(0, key.indexOf(' ')),
      symbol: b.symbol,
      quote: splitSymbol(b.symbol).quote,
      fills: b.fills,
      volume: b.volume.toFixed(),
      position: b.position.toFixed(),
      mark: m?.toFixed(),
      pnl: markedPnl(b, m).toFixed(),
      realized: pnlSplit(b, m).realized.toFixed(),
      unrealized: pnlSplit(b, m).unrealized.toFixed(),
      otherFees: Object.fromEntries([...b.otherFees].map(([a, v]) => [a, v.toFixed()])),
    };
  });
}

/** Per UTC day and quote asset: fills, volume and the change of the marked PnL over the day. */
export function profitByDay(fills: readonly FillRecord[]): DayProfit[] {
  const sorted = [...fills].sort((a, b) => a.time - b.time);
  const books = new Map<string, SymbolBook>();
  const last = new Map<string, Decimal>();
  const before = new Map<string, Decimal>();
  const out: DayProfit[] = [];
  let i = 0;
  while (i < sorted.length) {
    const day = Math.floor((sorted[i] as FillRecord).time / DAY_MS);
    const stats = new Map<string, { fills: number; volume: Decimal }>();
    for (; i < sorted.length && Math.floor((sorted[i] as FillRecord).time / DAY_MS) === day; i++) {
      const f = sorted[i] as FillRecord;
      addFill(books, f);
      last.set(f.symbol, f.price);
      const q = splitSymbol(f.symbol).quote;
      const s = stats.get(q) ?? { fills: 0, volume: ZERO };
      stats.set(q, { fills: s.fills + 1, volume: s.volume.plus(f.quoteQty) });
    }
    const now = totals(books, last);
    for (const [quote, s] of stats) out.push({ day: new Date(day * DAY_MS).toISOString().slice(0, 10), quote, fills: s.fills, volume: s.volume.toFixed(), pnl: (now.get(quote) ?? ZERO).minus(before.get(quote) ?? ZERO).toFixed() });
    before.clear();
    for (const [q, v] of now) before.set(q, v);
  }
  return out;
}

/** Marked PnL of every book summed per quote asset. */
function totals(books: ReadonlyMap<string, SymbolBook>, last: ReadonlyMap<string, Decimal>): Map<string, Decimal> {
  const out = new Map<string, Decimal>();
  for (const b of books.values()) {
    const q = splitSymbol(b.symbol).quote;
    out.set(q, (out.get(q) ?? ZERO).plus(markedPnl(b, last.get(b.symbol))));
  }
  return out;
}
