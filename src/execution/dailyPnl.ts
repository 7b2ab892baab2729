/**
 * Per-(strategy, symbol) positions and cash from fills, and the daily PnL the daily loss limit
 * reads. Shared by live, paper (src/cli/runSession.ts) and backtests (src/backtest/Backtest.ts),
 * so a loss limit means the same in every mode. Exact decimals throughout.
 */
import { ZERO, type Decimal } from '../core/decimal.js';
import { splitSymbol } from '../core/symbols.js';
import type { FillRecord } from '../store/records.js';

/** Position and PnL of one strategy on one symbol. */
export interface SymbolBook {
  readonly symbol: string;
  /** Net base quantity bought minus sold, less base-asset commissions. */
  position: Decimal;
  /** Quote received minus quote paid, less quote-asset commissions. */
  cash: Decimal;
  /** Commissions in other assets, by asset. */
  readonly otherFees: Map<string, Decimal>;
  fills: number;
  volume: Decimal;
}

/** Adds one fill to per-(strategy, symbol) positions (keyed `strategy symbol`). */
export function addFill(out: Map<string, SymbolBook>, f: Pick<FillRecord, 'strategy' | 'symbol' | 'side' | 'qty' | 'quoteQty' | 'commission' | 'commissionAsset'>): void {
  const key = `${f.strategy} ${f.symbol}`;
  let b = out.get(key);
  if (!b) out.set(key, (b = { symbol: f.symbol, position: ZERO, cash: ZERO, otherFees: new Map(), fills: 0, volume: ZERO }));
  const { base, quote } = splitSymbol(f.symbol);
  const buy = f.side === 'BUY';
  b.position = buy ? b.position.plus(f.qty) : b.position.minus(f.qty);
  b.cash = buy ? b.cash.minus(f.quoteQty) : b.cash.plus(f.quoteQty);
  if (f.commissionAsset === base) b.position = b.position.minus(f.commission);
  else if (f.commissionAsset === quote) b.cash = b.cash.minus(f.commission);
  else if (f.commissionAsset !== null && !f.commission.isZero()) b.otherFees.set(f.commissionAsset, (b.otherFees.get(f.commissionAsset) ?? ZERO).plus(f.commission));
  b.fills++;
  b.volume = b.volume.plus(f.quoteQty);
}

/**
 * Per-strategy PnL of the current UTC day: the day's fills (cash flows and position change)
 * marked to market. Resets at 00:00 UTC, which is when a daily loss limit rolls over.
 */
export class DailyPnl {
  #day = -1;
  #books = new Map<string, SymbolBook>();

  /** Adds a fill at time `t` (ms). */
  add(t: number, f: Parameters<typeof addFill>[1]): void {
    this.#roll(t);
    addFill(this.#books, f);
  }

  /** PnL of `strategy` today at time `t`, in quote terms, with positions at `mark`. */
  of(strategy: string, t: number, mark: (symbol: string) => Decimal | undefined): Decimal {
    this.#roll(t);
    let sum = ZERO;
    for (const [key, b] of this.#books) if (key.startsWith(`${strategy} `)) sum = sum.plus(markedPnl(b, mark(b.symbol)));
    return sum;
  }

  #roll(t: number): void {
    const day = Math.floor(t / 86_400_000);
    if (day !== this.#day) {
      this.#day = day;
      this.#books = new Map();
    }
  }
}

/** PnL in quote terms: cash plus position at the mark (undefined mark: cash only). */
export function markedPnl(b: SymbolBook, mark: Decimal | undefined): Decimal {
  return mark === undefined ? b.cash : b.cash.plus(b.position.mul(mark));
}
