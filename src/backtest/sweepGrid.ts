/**
 * Parameter grids for sweeps (YAML); config/sma-crossover.grid.yaml is an example:
 *
 *   strategy: mm            # which strategy of the config the parameters belong to (default: the only one)
 *   params:                 # each key a list of values, or a range; the grid is their cartesian product
 *     spreadBps: [1, 2, 4]
 *     skewBps: { from: 0, to: 2, step: 0.5 }   # inclusive; exact decimal steps (quoted bounds give decimal strings)
 *   rankBy: netPnl          # metric of the strategy to rank by (default netPnl), highest first;
 *                           # points where it is unavailable (a null ratio) rank last, in grid order
 *   objective: { metric: calmar, direction: max }   # instead of rankBy: any metric of result.json
 *                           # (sweepObjective.ts lists them), highest (max) or lowest (min) first
 *   minTrades: 20           # points with fewer trades are listed, never ranked or chosen
 *   search: random          # grid (default: every point) or random: `samples` distinct points of the grid
 *   samples: 20
 *   seed: 1                 # of the random draw (default 1), so a random search is reproducible
 *   search: tpe             # or a model-based search (sweepTpe.ts): `trials` points, each batch
 *   trials: 60              # suggested from the results before it; optional batch (default 4),
 *   patience: 20            # startup (default 10 random points) and patience (stop after that
 *                           # many trials in a row without a better point)
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
import { durationTextMs } from '../config/duration.js';
import { Direction, isObjectiveMetric, OBJECTIVE_METRICS, rankByObjective, type Objective, type ObjectiveMetric } from './sweepObjective.js';
import { paramValues } from './sweepSpace.js';

const METRIC_NAMES = Object.keys(OBJECTIVE_METRICS) as [ObjectiveMetric, ...ObjectiveMetric[]];

/** A custom objective: a named metric of result.json and which way is better; an unknown name is refused naming it. */
export const objectiveSchema = z.strictObject({
  metric: z
    .string()
    .superRefine((name, ctx) => {
      if (!isObjectiveMetric(name)) ctx.addIssue({ code: 'custom', message: `unknown metric ${JSON.stringify(name)}: one of ${METRIC_NAMES.join(', ')}`, input: name });
    })
    .describe(`a metric of result.json: ${METRIC_NAMES.join(', ')}`),
  direction: z.enum([Direction.MAX, Direction.MIN]).describe('max: highest first; min: lowest first'),
});

/** Schema of a grid file. */
const bound = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal')]);

/** A range of values: from, from + step, ... up to `to` inclusive. */
export const rangeSchema = z.strictObject({ from: bound, to: bound, step: bound });

/** A length of time: whole ms, or text such as `90m`, `12h`, `1d`. */
const DURATION_HINT = 'a duration such as 90m, 12h or 1d (or whole ms)';
const duration = z.unknown().transform((v, ctx): number => {
  const ms = typeof v === 'string' ? durationTextMs(v) : undefined;
  if (ms !== undefined) return ms;
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
  rankBy: z.enum(METRIC_NAMES).optional().describe('metric to rank points by, highest first (a drawdown lowest first); default netPnl'),
  objective: objectiveSchema.optional().describe('instead of rankBy: a metric and its direction, e.g. { metric: calmar, direction: max }'),
  minTrades: z.number().int().positive().optional().describe('points with fewer trades (fills) are listed but never ranked or chosen'),
  search: z.enum(['grid', 'random', 'tpe']).default('grid').describe('grid: every point; random: `samples` distinct points; tpe: `trials` points chosen by a tree-structured Parzen estimator'),
  samples: z.number().int().positive().optional().describe('points drawn by search: random'),
  trials: z.number().int().positive().optional().describe('points run by search: tpe'),
  batch: z.number().int().positive().max(64).optional().describe('search: tpe: points suggested together, run in parallel (default 4); fixes which points are tried'),
  startup: z.number().int().nonnegative().optional().describe('search: tpe: uniform random points before the model is used (default 10)'),
  patience: z.number().int().positive().optional().describe('search: tpe: stop after this many trials in a row without a better point'),
  seed: z.number().int().default(1).describe('seed of the random draw (default 1)'),
  outOfSample: z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]).optional().describe('split time: rank before it, report from it beside'),
  walkForward: walkForwardSchema.optional().describe('rolling or anchored walk-forward windows, instead of outOfSample'),
  eachRecording: z.boolean().default(false).describe("run each recording file of the config as its own backtest and combine them per point"),
})
  .refine((g) => g.rankBy === undefined || g.objective === undefined, { message: 'rankBy and objective both name what to rank by: keep one', path: ['objective'] })
  .refine((g) => g.search !== 'random' || g.samples !== undefined, { message: 'search: random needs samples', path: ['samples'] })
  .refine((g) => g.search !== 'tpe' || g.trials !== undefined, { message: 'search: tpe needs trials', path: ['trials'] })
  .refine((g) => g.search === 'tpe' || (g.trials === undefined && g.batch === undefined && g.startup === undefined && g.patience === undefined), { message: 'trials, batch, startup and patience are settings of search: tpe', path: ['search'] })
  .refine((g) => g.search !== 'tpe' || g.walkForward === undefined, { message: 'walkForward ranks every point in each window; a model-based search would need a search per window: use search: grid or random with walkForward', path: ['walkForward'] })
  .refine((g) => g.outOfSample === undefined || g.walkForward === undefined, { message: 'outOfSample (one split) and walkForward exclude each other: keep one', path: ['walkForward'] })
  .refine((g) => !g.eachRecording || g.objective === undefined || !isObjectiveMetric(g.objective.metric) || OBJECTIVE_METRICS[g.objective.metric] === 'strategies', { message: "a tearsheet metric is not combined across recordings run separately: with eachRecording, name one of the strategy's figures (netPnl, returnPct, maxDrawdownPct, trades...)", path: ['objective', 'metric'] })
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

/** What the grid ranks by: its objective, or its rankBy (default netPnl) as one. */
export function gridObjective(grid: SweepGrid): Objective {
  return grid.objective !== undefined ? (grid.objective as Objective) : rankByObjective(grid.rankBy ?? 'netPnl');
}
