/**
 * Status line and end-of-run summary, computed from the ledger (the one source of truth for fills)
 * and marked to market with the local books. Exact decimals throughout; the output is strings.
 */
import { ZERO, type Decimal } from '../core/decimal.js';
import { splitSymbol } from '../core/symbols.js';
import type { Ledger } from '../store/Ledger.js';
import type { FillRecord, OrderRecord } from '../store/records.js';

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

/** Folds fills into per-(strategy, symbol) positions. */
export function positionsOf(fills: readonly FillRecord[], strategies: readonly string[]): Map<string, SymbolBook> {
  const wanted = new Set(strategies);
  const out = new Map<string, SymbolBook>();
  for (const f of fills) if (wanted.has(f.strategy)) addFill(out, f);
  return out;
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
    for (const [key, b] of this.#books) if (key.startsWith(`${strategy} `)) sum = sum.plus(pnl(b, mark(b.symbol)));
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
function pnl(b: SymbolBook, mark: Decimal | undefined): Decimal {
  return mark === undefined ? b.cash : b.cash.plus(b.position.mul(mark));
}

/** The periodic status record; `books` is kept current from fill events (no ledger scan). */
export function statusLine(
  books: ReadonlyMap<string, SymbolBook>,
  strategies: readonly string[],
  live: readonly OrderRecord[],
  mark: (symbol: string) => Decimal | undefined,
  stats: Readonly<Record<string, number>>,
): Record<string, unknown> {
  const positions: Record<string, string> = {};
  const pnls: Record<string, string> = {};
  for (const [key, b] of books) {
    positions[key] = b.position.toFixed();
    pnls[key] = pnl(b, mark(b.symbol)).toFixed();
  }
  const mine = live.filter((o) => strategies.includes(o.strategy));
  return { positions, openOrders: mine.length, unknownOrders: mine.filter((o) => o.state === 'UNKNOWN').length, pnl: pnls, intents: { ...stats } };
}

/** End-of-run summary. */
export interface RunSummary {
  readonly reason: string;
  readonly durationSec: number;
  readonly orders: Readonly<Record<string, number>>;
  readonly fills: number;
  readonly strategies: readonly {
    readonly strategy: string;
    readonly symbol: string;
    readonly fills: number;
    readonly position: string;
    readonly volume: string;
    readonly pnl: string;
    readonly mark: string | undefined;
  }[];
  readonly failures: readonly { strategy: string; error: string }[];
}

/** Builds the summary of one run's strategies from the ledger. */
export function runSummary(
  ledger: Ledger,
  strategies: readonly string[],
  mark: (symbol: string) => Decimal | undefined,
  reason: string,
  startedAt: number,
  endedAt: number,
  failures: readonly { strategy: string; error: string }[],
): RunSummary {
  const orders: Record<string, number> = {};
  for (const o of ledger.orders()) if (strategies.includes(o.strategy)) orders[o.state] = (orders[o.state] ?? 0) + 1;
  const books = positionsOf(ledger.fills(), strategies);
  let fills = 0;
  const rows = [...books.entries()].map(([key, b]) => {
    fills += b.fills;
    const m = mark(b.symbol);
    return { strategy: key.split(' ')[0] ?? key, symbol: b.symbol, fills: b.fills, position: b.position.toFixed(), volume: b.volume.toFixed(), pnl: pnl(b, m).toFixed(), mark: m?.toFixed() };
  });
  return { reason, durationSec: Math.round((endedAt - startedAt) / 100) / 10, orders, fills, strategies: rows, failures };
}

/** Human-readable summary lines. */
export function formatSummary(s: RunSummary): string {
  const lines = [`run stopped (${s.reason}) after ${s.durationSec} s`, `orders: ${Object.entries(s.orders).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; fills: ${s.fills}`];
  for (const r of s.strategies) lines.push(`  ${r.strategy} ${r.symbol}: ${r.fills} fills, position ${r.position}, volume ${r.volume}, PnL ${r.pnl}${r.mark ? ` (mark ${r.mark})` : ''}`);
  for (const f of s.failures) lines.push(`  strategy ${f.strategy} FAILED: ${f.error}`);
  return `${lines.join('\n')}\n`;
}
