/**
 * Status line and end-of-run summary, computed from the ledger (the one source of truth for fills)
 * and marked to market with the local books. Exact decimals throughout; the output is strings.
 */
import { Decimal } from '../core/decimal.js';
import { amountText } from '../backtest/roundTrips.js';
import type { Equity } from '../execution/equity.js';
import { addFill, markedPnl as pnl, pnlSplit, type SymbolBook } from '../execution/dailyPnl.js';
import { reasonCode, Rejections, rejectionsText, type RejectionCount } from '../backtest/rejections.js';
import type { BusEvent } from '../bus/events.js';
import type { Ledger } from '../store/Ledger.js';
import type { FillRecord, OrderRecord } from '../store/records.js';
import { counted } from '../core/plural.js';

/** Folds fills into per-(strategy, symbol) positions. */
export function positionsOf(fills: readonly FillRecord[], strategies: readonly string[]): Map<string, SymbolBook> {
  const wanted = new Set(strategies);
  const out = new Map<string, SymbolBook>();
  for (const f of fills) if (wanted.has(f.strategy)) addFill(out, f);
  return out;
}

/** The periodic status record; `books` is kept current from fill events (no ledger scan). */
export function statusLine(
  books: ReadonlyMap<string, SymbolBook>,
  strategies: readonly string[],
  live: readonly OrderRecord[],
  mark: (symbol: string) => Decimal | undefined,
  stats: Readonly<Record<string, number>>,
  equity?: Equity,
): Record<string, unknown> {
  const positions: Record<string, string> = {};
  const pnls: Record<string, string> = {};
  const realized: Record<string, string> = {};
  const unrealized: Record<string, string> = {};
  for (const [key, b] of books) {
    const m = mark(b.symbol);
    const split = pnlSplit(b, m);
    positions[key] = b.position.toFixed();
    pnls[key] = pnl(b, m).toFixed();
    realized[key] = split.realized.toFixed();
    unrealized[key] = split.unrealized.toFixed();
  }
  const mine = live.filter((o) => strategies.includes(o.strategy));
  const worth = equity === undefined ? {} : { equity: { quote: equity.quote, value: equity.value.toFixed(), ...(equity.unvalued.length > 0 ? { unvalued: equity.unvalued } : {}) } };
  return { positions, openOrders: mine.length, unknownOrders: mine.filter((o) => o.state === 'UNKNOWN').length, pnl: pnls, realized, unrealized, intents: { ...stats }, ...worth };
}

/**
 * A run's refusals by strategy and reason, fed from the bus like a backtest's (risk: the
 * intentRejected events; venue: an order's first REJECTED update, however often it is repeated).
 * A simulated venue refuses a placement with an intentRejected event too, and the order it names
 * is then closed REJECTED: that refusal is the venue's and counts once, as the order's. Such an
 * event is told from a risk refusal by `sentOrder`: an order journalled from that very intent.
 */
export class RunRejections {
  readonly #counts = new Rejections();
  readonly #strategies: readonly string[];
  readonly #rejectedOrders = new Set<string>();
  readonly #sentOrder: (clientId: string, intentId: string) => boolean;

  constructor(strategies: readonly string[], sentOrder: (clientId: string, intentId: string) => boolean = () => false) {
    this.#strategies = strategies;
    this.#sentOrder = sentOrder;
  }

  /** Feeds one bus event. */
  onEvent(e: BusEvent): void {
    if (e.type === 'intentRejected' && this.#strategies.includes(e.strategy)) {
      if (e.intent.kind === 'place' && this.#sentOrder(e.intent.clientId, e.intent.intentId)) return;
      this.#counts.add(e.strategy, 'risk', e.reason, e.message);
    }
    else if (e.type === 'orderUpdate' && e.state === 'REJECTED' && this.#strategies.includes(e.strategy) && !this.#rejectedOrders.has(e.clientId)) {
      this.#rejectedOrders.add(e.clientId);
      // Counted by code (`INSUFFICIENT_BALANCE: ...` and the like), as a backtest counts them.
      this.#counts.add(e.strategy, 'venue', e.reason === undefined ? 'REJECTED' : reasonCode(e.reason), e.reason ?? 'rejected by the venue');
    }
  }

  /** Counts per strategy, most frequent first; every strategy present, an empty list when none. */
  byStrategy(): Record<string, RejectionCount[]> {
    return Object.fromEntries(this.#strategies.map((n) => [n, this.#counts.of(n)]));
  }
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
    /** realized + unrealized, at `mark`. */
    readonly pnl: string;
    readonly realized: string;
    readonly unrealized: string;
    readonly mark: string | undefined;
  }[];
  readonly failures: readonly { strategy: string; error: string }[];
  /** Orders of the bot still live or unresolved on the exchange when it stopped although it was to cancel them. */
  readonly ordersLeft: number;
  /** Refused intents (risk) and orders (venue) of this run per strategy, by reason, most frequent first (as in a backtest's result). */
  readonly rejections: Readonly<Record<string, readonly RejectionCount[]>>;
}

/**
 * Builds the summary of one run from the ledger: the orders its strategies created since
 * `startedAt` and their fills (strategy names are stable across restarts, so earlier runs'
 * orders in the same ledger carry the same names and are left out by time).
 */
export function runSummary(
  ledger: Ledger,
  strategies: readonly string[],
  mark: (symbol: string) => Decimal | undefined,
  reason: string,
  startedAt: number,
  endedAt: number,
  failures: readonly { strategy: string; error: string }[],
  ordersLeft = 0,
  rejections: Readonly<Record<string, readonly RejectionCount[]>> = {},
): RunSummary {
  const orders: Record<string, number> = {};
  const mine = new Set<string>();
  for (const o of ledger.orders()) {
    if (!strategies.includes(o.strategy) || o.createdAt < startedAt) continue;
    orders[o.state] = (orders[o.state] ?? 0) + 1;
    mine.add(o.clientId);
  }
  const books = positionsOf(ledger.fills().filter((f) => mine.has(f.clientId)), strategies);
  let fills = 0;
  const rows = [...books.entries()].map(([key, b]) => {
    fills += b.fills;
    const m = mark(b.symbol);
    const split = pnlSplit(b, m);
    return { strategy: key.split(' ')[0] ?? key, symbol: b.symbol, fills: b.fills, position: b.position.toFixed(), volume: b.volume.toFixed(), pnl: pnl(b, m).toFixed(), realized: split.realized.toFixed(), unrealized: split.unrealized.toFixed(), mark: m?.toFixed() };
  });
  return { reason, durationSec: Math.round((endedAt - startedAt) / 100) / 10, orders, fills, strategies: rows, failures, ordersLeft, rejections };
}

/** Human-readable summary lines. */
export function formatSummary(s: RunSummary): string {
  const lines = [`run stopped (${s.reason}) after ${s.durationSec} s`, `orders: ${Object.entries(s.orders).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; fills: ${s.fills}`];
  // The split divides at average cost (40 digits); the line shows 8 places, the summary record keeps every digit.
  const short = (x: string): string => amountText(new Decimal(x), 8);
  for (const r of s.strategies) lines.push(`  ${r.strategy} ${r.symbol}: ${counted(r.fills, 'fill')}, position ${r.position}, volume ${r.volume}, PnL ${r.pnl} (realized ${short(r.realized)}, unrealized ${short(r.unrealized)}${r.mark ? ` at mark ${r.mark}` : ''})`);
  for (const [n, counts] of Object.entries(s.rejections)) if (counts.length > 0) lines.push(`  ${n} refused: ${rejectionsText(counts)} (first: ${counts[0]?.example ?? ''})`);
  for (const f of s.failures) lines.push(`  strategy ${f.strategy} FAILED: ${f.error}`);
  if (s.ordersLeft > 0) lines.push(`  ${s.ordersLeft} order(s) still live or unresolved on the exchange: start again to reconcile them`);
  return `${lines.join('\n')}\n`;
}
