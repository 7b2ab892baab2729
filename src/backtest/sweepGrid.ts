/**
 * Parameter grids for sweeps (YAML):
 *
 *   strategy: mm            # which strategy of the config the parameters belong to (default: the only one)
 *   params:                 # each key a list of values; the grid is their cartesian product
 *     spreadBps: [1, 2, 4]
 *     skewBps: [0, 1]
 *   rankBy: netPnl          # metric of the strategy to rank by (default netPnl), highest first
 *
 * Points are enumerated in a fixed order (keys as written, values as listed, last key fastest),
 * so a sweep is reproducible.
 */
import { z } from 'zod';
import { loadYamlFile } from '../config/yamlFile.js';
import type { StrategyMetrics } from './ResultCollector.js';

const RANKABLE = ['netPnl', 'returnPct', 'sharpe', 'sortino', 'finalEquity', 'maxDrawdownPct', 'fillRatio', 'trades', 'realizedPnl'] as const;

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

/** Numeric value of a metric for ranking (lower drawdown is better, so it is negated). */
export function rankValue(m: StrategyMetrics, by: SweepGrid['rankBy']): number {
  const v = Number(m[by]);
  return by === 'maxDrawdownPct' ? -v : v;
}
