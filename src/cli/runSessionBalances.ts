/**
 * Keeps a run's balances current (src/execution/balances.ts): every account update the user data
 * stream (live) or the simulator (paper) brings, and live a REST read of the whole account every
 * `refreshMs` (default 60 s), besides the one each reconciliation makes: a stream message lost
 * leaves the figures wrong for a minute at most.
 */
import type { Bus } from '../bus/Bus.js';
import type { Decimal } from '../core/decimal.js';
import { splitSymbol } from '../core/symbols.js';
import type { BalanceSourceName, LiveBalances } from '../execution/balances.js';
import { equityIn, type Equity } from '../execution/equity.js';
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
 * The run's equity (src/execution/equity.ts): in the quote asset of its first symbol, each other
 * asset at the run's mark of its pair with that quote when the run trades that pair.
 */
export function valuation(symbols: readonly string[], balances: LiveBalances, mark: (symbol: string) => Decimal | undefined): () => Equity | undefined {
  const first = symbols[0];
  if (first === undefined) return () => undefined;
  const quote = splitSymbol(first).quote;
  const traded = new Set(symbols);
  return () => equityIn(quote, balances.list(), (asset) => (traded.has(`${asset}_${quote}`) ? mark(`${asset}_${quote}`) : undefined));
}
