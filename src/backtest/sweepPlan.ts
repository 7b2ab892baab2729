/**
 * Which points a sweep runs: every point of the grid or a seeded random draw of them, each checked
 * with the strategy's own parameter schema before anything runs; or a model-based search
 * (sweepTpe.ts) that checks each point as it suggests it.
 */
import type { BacktestConfig } from './config.js';
import { formatDocPath } from '../core/configIssue.js';
import { loadPlugin, plainErrorAt } from '../strategy/loader.js';
import { validateParams } from '../strategy/params.js';
import { gridPoints, type SweepGrid } from './sweepGrid.js';
import type { PointOutcome } from './sweepPoints.js';
import { paramValues, randomPoints } from './sweepSpace.js';
import { tpeSearch, TPE_BATCH, type SearchNote, type TpeHooks } from './sweepTpe.js';

/** A grid point the strategy's schema refuses: skipped, and listed with the reason. */
export interface SkippedPoint {
  readonly params: Record<string, unknown>;
  readonly reason: string;
}

/** A grid's parameters with their values, and why the strategy refuses a point (undefined: it takes it). */
export interface PointCheck {
  readonly space: readonly (readonly [string, readonly unknown[]])[];
  readonly refusal: (point: Record<string, unknown>) => string | undefined;
}

/**
 * Checks a grid against the strategy's own parameter schema: a parameter the strategy does not
 * have at all is an error of the grid file, naming it; a point it refuses (a cross-field rule
 * such as fast < slow, a value out of its range) gets the reason, and is skipped, not fatal.
 */
export async function pointCheck(cfg: BacktestConfig, grid: SweepGrid, strategy: string, gridFile = 'grid'): Promise<PointCheck> {
  const i = cfg.strategies.findIndex((s) => s.name === strategy);
  const spec = cfg.strategies[i];
  if (spec === undefined) throw new RangeError(`grid strategy ${JSON.stringify(strategy)} is not in ${cfg.file}`);
  const plugin = await loadPlugin(spec.plugin, cfg.dir, plainErrorAt(cfg.file), ['strategies', i]);
  const errorAt = plainErrorAt(gridFile);
  const space = Object.entries(grid.params).map(([k, spec]) => {
    try {
      return [k, paramValues(spec)] as const;
    } catch (err) {
      throw errorAt(['params', k], (err as Error).message, spec);
    }
  });
  const refusal = (point: Record<string, unknown>): string | undefined => {
    const v = validateParams(plugin, { ...spec.params, ...point });
    const issue = v.ok ? undefined : v.issues[0];
    if (issue === undefined) return undefined;
    if (/^unknown key/.test(issue.message)) throw errorAt(['params', ...issue.path], `${issue.message}: ${spec.plugin} has no such parameter`, issue.value);
    return `${formatDocPath(issue.path)}=${JSON.stringify(issue.value)}: ${issue.message}`;
  };
  return { space, refusal };
}

/** The points of a grid or random search, each checked (pointCheck) before anything runs. */
export async function planSweep(cfg: BacktestConfig, grid: SweepGrid, strategy: string, gridFile = 'grid'): Promise<{ points: Record<string, unknown>[]; skipped: SkippedPoint[] }> {
  const { space, refusal } = await pointCheck(cfg, grid, strategy, gridFile);
  const candidates = grid.search === 'random' ? randomPoints(space, grid.samples ?? 1, grid.seed) : gridPoints(grid);
  const points: Record<string, unknown>[] = [];
  const skipped: SkippedPoint[] = [];
  for (const point of candidates) {
    const reason = refusal(point);
    if (reason === undefined) points.push(point);
    else skipped.push({ params: point, reason });
  }
  if (points.length === 0) throw plainErrorAt(gridFile)(['params'], `every point is refused by ${cfg.strategies.find((s) => s.name === strategy)?.plugin ?? strategy}, e.g. ${JSON.stringify(skipped[0]?.params)}: ${skipped[0]?.reason ?? ''}`, grid.params);
  return { points, skipped };
}

/** The points a sweep ran, their outcomes, the refused ones, and (a model-based search) how it went. */
export interface Searched {
  readonly points: Record<string, unknown>[];
  readonly outcomes: PointOutcome[];
  readonly skipped: SkippedPoint[];
  readonly note?: SearchNote;
}

/** Runs the planned points (grid, random) in one batch, or the grid's TPE search batch by batch. */
export async function searchPoints(cfg: BacktestConfig, grid: SweepGrid, strategy: string, planned: { points: Record<string, unknown>[]; skipped: SkippedPoint[] } | undefined, hooks: Omit<TpeHooks, 'refusal'> & { gridFile?: string | undefined }): Promise<Searched> {
  if (planned !== undefined) return { ...planned, outcomes: await hooks.runPoints(planned.points) };
  const { space, refusal } = await pointCheck(cfg, grid, strategy, hooks.gridFile);
  const settings = { trials: grid.trials ?? 1, seed: grid.seed, batch: grid.batch ?? TPE_BATCH, ...(grid.startup !== undefined ? { startup: grid.startup } : {}), ...(grid.patience !== undefined ? { patience: grid.patience } : {}) };
  const r = await tpeSearch(space, settings, { ...hooks, refusal });
  if (r.points.length === 0) throw plainErrorAt(hooks.gridFile ?? 'grid')(['params'], `every point suggested is refused by the strategy, e.g. ${JSON.stringify(r.skipped[0]?.params)}: ${r.skipped[0]?.reason ?? ''}`, grid.params);
  return r;
}
