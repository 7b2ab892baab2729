/**
 * Parameter grids for sweeps (YAML):
 *
 *   strategy: mm            # which strategy of the config the parameters belong to (default: the only one)
 *   params:                 # each key a list of values; the grid is their cartesian product
 *     spreadBps: [1, 2, 4]
 *     skewBps: [0, 1]
 *   rankBy: netPnl          # metric of the strategy to rank by (default netPnl), highest first;
 *                           # points where it is unavailable (a null ratio) rank last, in grid order
 *
 * Points are enumerated in a fixed order (keys as written, values as listed, last key fastest),
 * so a sweep is reproducible.
 */
import { z } from 'zod';
import { loadYamlFile } from '../config/yamlFile.js';
import type { StrategyMetrics } from './ResultCollector.js';

const RANKABLE = ['netPnl', 'returnPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'finalEquity', 'maxDrawdownPct', 'fillRatio', 'trades', 'realizedPnl'] as const;

/** Schema of a grid file. */
export const gridSchema = z.object({
  strategy: z.string().optional(),
  params: z.record(z.string(), z.array(z.unknown()).min(1)).refine((p) => Object.keys(p).length > 0, 'at least one parameter'),
  rankBy: z.enum(RANKABLE).default('netPnl'),
});

/** A parsed grid. */
export type SweepGrid = z.infer<typeof gridSchema>;

/** Reads and validates a grid YAML file (errors name the file, path, value and line). */
export function loadGrid(file: string): SweepGrid {
  return loadYamlFile(file, gridSchema);
}

/** Every point of the grid, in order. */
export function gridPoints(grid: SweepGrid): Record<string, unknown>[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [k, values] of Object.entries(grid.params)) points = points.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  return points;
}

/**
 * Numeric value of a metric for ranking (lower drawdown is better, so it is negated); null when
 * the metric is unavailable (a ratio that could not be estimated), which is not a value of 0.
 */
export function rankValue(m: StrategyMetrics, by: SweepGrid['rankBy']): number | null {
  const x = m[by];
  if (x === null) return null;
  const v = Number(x);
  // A figure that is no number cannot be ordered: ranked as unavailable, never as a sort key NaN.
  if (!Number.isFinite(v)) return null;
  return by === 'maxDrawdownPct' ? -v : v;
}

/**
 * Orders two grid points by their rank values, highest first, unavailable ones last; ties
 * (including two unavailable) keep grid order, so a ranking is deterministic.
 */
export function compareRank(a: { value: number | null; index: number }, b: { value: number | null; index: number }): number {
  if (a.value === b.value) return a.index - b.index;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return b.value - a.value;
}
