/**
 * The `ctx.plot` a strategy gets from the runner. A strategy may plot on every bar (a crossover:
 * its two averages), so an overlay series (a plot without options) goes to a sink asked for once
 * per series, not through the generic call with its name, pane and value checked again each time.
 * What is accepted, refused and kept is the generic call's (plotArgs.ts, the chart's plot).
 */
import type { PlotOptions } from './types.js';
import { plotPane, plotSeries, plotValue } from './plotArgs.js';

/** Takes every plot: the strategy, its first symbol, the series' name, the value and its pane. */
export type PlotTo = (strategy: string, symbol: string, name: string, value: number, pane: string | undefined) => void;

/** The sink of one overlay series of a strategy (its first symbol's chart), asked once per series. */
export type PlotSinkOf = (strategy: string, symbol: string, name: string) => (value: number) => void;

/** `ctx.plot` of strategy `name` trading `symbol` first; without `plotTo` (live, paper) a plot is dropped unread. */
export function ctxPlot(name: string, symbol: string, plotTo: PlotTo | undefined, sinkOf: PlotSinkOf | undefined): (series: string, value: number, options?: PlotOptions) => void {
  if (plotTo === undefined) return () => undefined;
  if (sinkOf === undefined) return (series, value, options) => plotTo(name, symbol, plotSeries(series), plotValue(value), plotPane(options));
  const sinks = new Map<string, (value: number) => void>();
  // The series of the last plot and of the one before it: compared, not looked up.
  let lastSeries: unknown;
  let lastSink: ((value: number) => void) | undefined;
  let prevSeries: unknown;
  let prevSink: ((value: number) => void) | undefined;
  return (series, value, options) => {
    if (options !== undefined || typeof value !== 'number') {
      plotTo(name, symbol, plotSeries(series), plotValue(value), plotPane(options));
      return;
    }
    let sink = lastSink;
    if (series !== lastSeries || sink === undefined) {
      if (series === prevSeries && prevSink !== undefined) sink = prevSink;
      else {
        const n = plotSeries(series);
        sink = sinks.get(n);
        if (sink === undefined) sinks.set(n, (sink = sinkOf(name, symbol, n)));
      }
      prevSeries = lastSeries;
      prevSink = lastSink;
      lastSeries = series;
      lastSink = sink;
    }
    sink(value);
  };
}
