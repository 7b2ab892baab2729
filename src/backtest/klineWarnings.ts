/** What a backtest tells its reader about bars a strategy waited for and never got. */
import type { StrategySpec } from '../strategy/StrategyRunner.js';
import { klineSubscriptions } from '../strategy/klines.js';
import type { BacktestConfig } from './config.js';

/**
 * One sentence per strategy that reads klines of a symbol none came for: the data has neither
 * candles nor trades to build them from (a recording of depth alone, a filter that left nothing).
 */
export function klineWarnings(strategies: readonly StrategySpec[], withKlines: ReadonlySet<string>, cfg: BacktestConfig): string[] {
  const out: string[] = [];
  for (const s of strategies) {
    // The intervals it subscribes to, read as the replay reads them (validated parameters).
    const intervals = [...new Set(klineSubscriptions([s]).map((k) => k.interval))];
    if (!(s.plugin.marketEvents?.includes('kline') ?? false) && intervals.length === 0) continue;
    const missing = s.symbols.filter((sym) => !withKlines.has(sym));
    if (missing.length === 0) continue;
    const field = cfg.backtest.candles.length > 0 ? 'backtest.candles' : 'backtest.recordings';
    out.push(`strategy ${s.name} reads klines${intervals.length > 0 ? ` (${intervals.join(', ')})` : ''} of ${missing.join(', ')} but got none: ${field} has no candles and no trades of ${missing.length === 1 ? 'it' : 'them'} to build bars from`);
  }
  return out;
}
