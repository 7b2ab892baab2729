/**
 * How reports print a ratio figure: its value, or "n/a" with the reason it could not be
 * estimated, so an unavailable Sharpe is never read as a measured 0.
 */
import { spanText, type RatioField } from './metrics.js';
import type { StrategyMetrics } from './ResultCollector.js';

/** The figure as text: the number, or `n/a (<reason>)`. */
export function ratioText(m: StrategyMetrics, field: RatioField): string {
  const v = m[field];
  return v === null ? `n/a (${m.ratioNotes[field] ?? 'not estimated'})` : String(v);
}

/** What the ratios rest on, e.g. "600 returns of 1000 ms, spanning 10m 0s". */
export function ratioSampleText(m: StrategyMetrics): string {
  const s = m.ratioSample;
  return `${s.returns} returns of ${s.intervalMs} ms, spanning ${spanText(s.spanMs)}`;
}
