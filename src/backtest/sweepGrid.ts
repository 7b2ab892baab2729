/**
 * Parameter grids for sweeps (YAML); config/sma-crossover.grid.yaml is an example:
 *
 *   strategy: mm            # which strategy of the config the parameters belong to (default: the only one)
 *   params:                 # each key a list of values, or a range; the grid is their cartesian product
 *     spreadBps: [1, 2, 4]
 *     skewBps: { from: 0, to: 2, step: 0.5 }   # inclusive; exact decimal steps (quoted bounds give decimal strings)
 *   rankBy: netPnl          # metric of the strategy to rank by (default netPnl), highest first;
 *                           # points where it is unavailable (a null ratio) rank last, in grid order
 *   search: random          # grid (default: every point) or random: `samples` distinct points of the grid
 *   samples: 20
 *   seed: 1                 # of the random draw (default 1), so a random search is reproducible
 *   outOfSample: "2024-08-04T00:00:00Z"   # optional split: points run (and rank) on the data before it,
 *                                         # and are run again on the data from it, reported side by side
 *   walkForward:            # optional, instead of outOfSample: rolling (or anchored) walk-forward
 *     start: "2024-08-03T00:00:00Z"   # where the first out-of-sample window begins
 *     outOfSample: 1d       # length of each out-of-sample window; they follow each other
 *     windows: 3            # how many
 *     inSample: 2d          # the look-back each window ranks the points on, ending where its
 *                           # out-of-sample window begins; `anchored`: from the data's start
 *   eachRecording: true     # optional: run each recording file of the config as its own backtest
 *                           # (one job per point and file) and combine them per point (sweepRecordings.ts)
 *
 * Points are enumerated in a fixed order (keys as written, values as listed, last key fastest),
 * so a sweep is reproducible. A point the strategy's own schema refuses (fast >= slow) is skipped
 * and listed; a parameter the strategy does not have is an error of the grid.
 */
import { z } from 'zod';
import { loadYamlFile } from '../config/yamlFile.js';
import type { StrategyMetrics } from './ResultCollector.js';
import { paramValues } from './sweepSpace.js';

const RANKABLE = ['netPnl', 'returnPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'finalEquity', 'maxDrawdownPct', 'fillRatio', 'trades', 'realizedPnl'] as const;

/** Schema of a grid file. */
const bound = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal')]);

/** A range of values: from, from + step, ... up to `to` inclusive. */
export const rangeSchema = z.strictObject({ from: bound, to: bound, step: bound });

/** A length of time: whole ms, or text such as `90m`, `12h`, `1d`. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_HINT = 'a duration such as 90m, 12h or 1d (or whole ms)';
const duration = z.unknown().transform((v, ctx): number => {
  const m = typeof v === 'string' ? /^([1-9]\d*)(ms|s|m|h|d)$/.exec(v) : null;
  if (m !== null) return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  ctx.addIssue({ code: 'custom', message: DURATION_HINT, input: v });
  return z.NEVER;
});

/** Walk-forward: `windows` consecutive out-of-sample windows from `start`, each ranked on the data before it. */
export const walkForwardSchema = z.strictObject({
  start: z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]).describe('start of the first out-of-sample window'),
  outOfSample: duration.describe('length of each out-of-sample window'),
  windows: z.number().int().min(1).max(100).describe('number of windows'),
  inSample: z.union([z.literal('anchored'), duration]).describe('look-back ranked before each window, or anchored (from the data start)'),
});

/** Schema of a grid file. */
export const gridSchema = z.strictObject({
  $schema: z.string().optional().describe('path of config/grid.schema.json, for editors'),
  strategy: z.string().optional().describe("id of the config's strategy the parameters belong to (default: the only one)"),
  params: z
    .record(z.string(), z.union([z.array(z.unknown()).min(1), rangeSchema]))
    .refine((p) => Object.keys(p).length > 0, 'at least one parameter')
    .describe('each parameter a list of values or a range {from, to, step}; the grid is their cartesian product'),
  rankBy: z.enum(RANKABLE).default('netPnl').describe('metric to rank points by, highest first (default netPnl)'),
  search: z.enum(['grid', 'random']).default('grid').describe('grid: every point; random: `samples` distinct points'),
  samples: z.number().int().positive().optional().describe('points drawn by search: random'),
  seed: z.number().int().default(1).describe('seed of the random draw (default 1)'),
  outOfSample: z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]).optional().describe('split time: rank before it, report from it beside'),
  walkForward: walkForwardSchema.optional().describe('rolling or anchored walk-forward windows, instead of outOfSample'),
  eachRecording: z.boolean().default(false).describe("run each recording file of the config as its own backtest and combine them per point"),
})
  .refine((g) => g.search !== 'random' || g.samples !== undefined, { message: 'search: random needs samples', path: ['samples'] })
  .refine((g) => g.outOfSample === undefined || g.walkForward === undefined, { message: 'outOfSample (one split) and walkForward exclude each other: keep one', path: ['walkForward'] })
  .refine((g) => !g.eachRecording || g.walkForward === undefined, { message: 'walkForward runs over one continuous span of data, not over recordings run separately: drop one', path: ['eachRecording'] });

/** A parsed grid. */
export type SweepGrid = z.infer<typeof gridSchema>;

/** Reads and validates a grid YAML file (errors name the file, path, value and line). */
export function loadGrid(file: string): SweepGrid {
  return loadYamlFile(file, gridSchema);
}

/** Every point of the grid (ranges expanded), in order. */
export function gridPoints(grid: SweepGrid): Record<string, unknown>[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [k, spec] of Object.entries(grid.params)) {
    const values = paramValues(spec);
    points = points.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  }
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
