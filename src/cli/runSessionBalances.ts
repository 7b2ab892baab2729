/**
 * Keeps a run's balances current (src/execution/balances.ts): every account update the user data
 * stream (live) or the simulator (paper) brings, and live a REST read of the whole account every
 * `refreshMs` (default 60 s), besides the one each reconciliation makes: a stream message lost
 * leaves the figures wrong for a minute at most.
 */
import type { Bus } from '../bus/Bus.js';
import type { Decimal } from '../core/decimal.js';
import type { Balance } from '../core/types.js';
import { splitSymbol } from '../core/symbols.js';
import type { BalanceSourceName, LiveBalances } from '../execution/balances.js';
import { equityIn, type Equity } from '../execution/equity.js';
import type { Ledger } from '../store/Ledger.js';
import type { ExecLogger } from '../execution/log.js';

/** Starts following; returns the stop. */
export function followBalances(o: {
  bus: Bus;
  balances: LiveBalances;
  log: ExecLogger;
  /** The source the bus's account updates are recorded under (stream live, sim on paper). */
  source: BalanceSourceName;
  /** Live: a REST read of the account, recorded through the router's onBalances. */
  refresh?: () => Promise<void>;
  refreshMs?: number;
}): () => void {
  const unlisten = o.bus.listen((e) => {
    if (e.type === 'accountPosition') o.balances.update(o.source, e.balances, false);
  });
  const refresh = o.refresh;
  if (refresh === undefined) return unlisten;
  const timer = setInterval(() => {
    refresh().catch((err: unknown) => o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'balance refresh failed; the next one tries again'));
  }, o.refreshMs ?? 60_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    unlisten();
  };
}

/**
 * The run's account figures beyond its positions: its balances, its equity (src/execution/equity.ts)
 * in the quote asset of its first symbol, each other asset at the run's mark of its pair with that
 * quote when the run trades that pair, and the journalling of its marks (kind `marks`,
 * { symbol: price }): what a reader of the ledger alone (`kancil status`, `kancil profit`) values
 * positions at, so it shows the run's own figures.
 */
export class RunAccount {
  readonly #ledger: Ledger;
  readonly #balances: LiveBalances;
  readonly #symbols: readonly string[];
  readonly #mark: (symbol: string) => Decimal | undefined;

  constructor(ledger: Ledger, balances: LiveBalances, symbols: readonly string[], mark: (symbol: string) => Decimal | undefined) {
    this.#ledger = ledger;
    this.#balances = balances;
    this.#symbols = [...new Set(symbols)];
    this.#mark = mark;
  }

  /** The balances now. */
  balances(): Balance[] {
    return this.#balances.list();
  }

  /** The equity now; undefined for a run without symbols. */
  equity(): Equity | undefined {
    const first = this.#symbols[0];
    if (first === undefined) return undefined;
    const quote = splitSymbol(first).quote;
    return equityIn(quote, this.#balances.list(), (asset) => (this.#symbols.includes(`${asset}_${quote}`) ? this.#mark(`${asset}_${quote}`) : undefined));
  }

  /** Journals the marks of every symbol that has one. */
  journalMarks(now: number): void {
    const marks: Record<string, string> = {};
    for (const s of this.#symbols) {
      const m = this.#mark(s);
      if (m !== undefined) marks[s] = m.toFixed();
    }
    if (Object.keys(marks).length > 0) this.#ledger.journal(now, 'marks', marks);
  }
}
