/**
 * Small pure steps of a run's start-up: which symbols to fetch, the paper account's balances, the
 * settle time of unknown orders.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import type { SymbolInfo } from '../core/types.js';
import type { OpenClient } from '../exchange/open/OpenClient.js';
import type { RunConfig } from './runConfig.js';

/** Time after sending before an absent order counts as not placed: longer than the recvWindow the server enforces. */
export function settleMsOf(cfg: RunConfig): number {
  return (cfg.exchange?.recvWindow ?? 5000) + 1000;
}

/** The exchange's entries of the symbols the run's strategies trade; a symbol it does not list is a config error. */
export async function strategySymbols(open: OpenClient, cfg: RunConfig): Promise<SymbolInfo[]> {
  const all = await open.symbols();
  const byName = new Map(all.map((s) => [s.symbol, s]));
  const wanted = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  return wanted.map((name) => {
    const info = byName.get(name);
    if (!info) throw new ConfigError(cfg.file, 'strategies.symbols', name, `the exchange does not list this symbol (it has ${all.length} symbols)`);
    return info;
  });
}

/** `{ [key]: value }` when the value is set, else nothing (exactOptionalPropertyTypes-friendly spreading). */
export function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

/** Paper account balances: `paper.balances`, else the sum of the strategies' budgets. */
export function paperBalances(cfg: RunConfig): Record<string, Decimal> {
  if (cfg.paper.balances) return Object.fromEntries(Object.entries(cfg.paper.balances).map(([k, v]) => [k, new Decimal(v)]));
  const sum: Record<string, Decimal> = {};
  for (const s of cfg.strategies) for (const [k, v] of Object.entries(s.budget)) sum[k] = (sum[k] ?? ZERO).plus(v);
  return sum;
}

