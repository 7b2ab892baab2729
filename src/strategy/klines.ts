/**
 * The kline streams a run's strategies read: each symbol of a strategy with each interval its
 * plugin names for its parameters (StrategyPlugin.klineIntervals), once each.
 */
import type { KlineIntervalName } from '../core/enums.js';
import { symbolKey } from '../core/symbols.js';
import { validateParams } from './params.js';
import type { StrategyPlugin } from './types.js';

/** One symbol's bars of one interval. */
export interface KlineSubscription {
  /** As configured (any spelling of the symbol). */
  readonly symbol: string;
  readonly interval: KlineIntervalName;
}

/**
 * The kline subscriptions of `strategies`. Parameters are validated here (a strategy whose
 * parameters do not validate reads none; its run refuses to start for that reason elsewhere).
 */
export function klineSubscriptions(strategies: readonly { readonly plugin: StrategyPlugin; readonly params: unknown; readonly symbols: readonly string[] }[]): KlineSubscription[] {
  const out = new Map<string, KlineSubscription>();
  for (const s of strategies) {
    if (s.plugin.klineIntervals === undefined) continue;
    const v = validateParams(s.plugin, s.params);
    if (!v.ok) continue;
    for (const interval of s.plugin.klineIntervals(v.value)) {
      for (const symbol of s.symbols) {
        const key = `${symbolKey(symbol)}|${interval}`;
        if (!out.has(key)) out.set(key, { symbol, interval });
      }
    }
  }
  return [...out.values()];
}
