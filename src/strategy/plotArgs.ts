/**
 * What ctx.plot accepts, checked alike by the run (StrategyRunner) and by the unit-test context
 * (fakeContext), so a strategy's test refuses the plot its backtest would.
 */
import type { PlotOptions } from './types.js';

/** A plotted series' name: a non-empty string (the report's legend), else refused naming it. */
export function plotSeries(series: unknown): string {
  // A name starting with a printable ASCII character is not blank: no trim per call (a strategy plots every bar).
  if (typeof series === 'string' && series.length > 0) {
    const c = series.charCodeAt(0);
    if (c > 32 && c < 127) return series;
  }
  if (typeof series !== 'string' || series.trim() === '') throw new RangeError(`ctx.plot: series=${JSON.stringify(series) ?? String(series)}: expected a non-empty name`);
  return series;
}

/**
 * A plotted value: a number, NaN or an infinity being a gap the chart skips. Anything else (a
 * Decimal from a plugin without types) is refused naming it, rather than dropped unseen.
 */
export function plotValue(value: unknown): number {
  if (typeof value === 'number') return value;
  const kind = value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  throw new TypeError(`ctx.plot: value=${JSON.stringify(value) ?? String(value)} (${kind}): expected a number (a Decimal: .toNumber(); NaN or an infinity leaves a gap in the series)`);
}

/** The pane a plot names (undefined: the price overlay); a pane that is not a non-empty name is refused, naming the value. */
export function plotPane(options: PlotOptions | undefined): string | undefined {
  const pane = options?.pane;
  if (pane === undefined) return undefined;
  if (typeof pane !== 'string' || pane.trim() === '') throw new RangeError(`ctx.plot: options.pane=${JSON.stringify(pane)}: expected a non-empty name (or no pane: drawn over the price)`);
  return pane;
}
