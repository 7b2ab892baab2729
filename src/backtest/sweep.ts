/**
 * Parameter sweeps: every point of a grid run as an independent single backtest on a pool of
 * worker threads (one per core), then ranked. Each point's result is exactly what a single run
 * with those parameters gives (the workers call the same runBacktest).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkDataFiles } from './Backtest.js';
import { failureText } from './failureText.js';
import type { BacktestConfig } from './config.js';
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';
import { RATIO_FIELDS, type RatioField } from './metrics.js';
import { ratioText } from './ratioText.js';
import { compareRank, gridPoints, rankValue, type SweepGrid } from './sweepGrid.js';
import { formatDocPath } from '../core/configIssue.js';
import { loadPlugin, plainErrorAt } from '../strategy/loader.js';
import { validateParams } from '../strategy/params.js';
import type { SweepAnswer, SweepJob } from './sweepWorker.js';

/** One ranked row. */
export interface SweepRow {
  readonly rank: number;
  readonly index: number;
  readonly params: Record<string, unknown>;
  /** The strategy's figures; undefined when the point's run failed before it had any. */
  readonly metrics: StrategyMetrics | undefined;
  /**
   * Why the point failed: its run threw (a worker error included), or the strategy threw and was
   * stopped part-way (its metrics are then those of a truncated run). Failed points rank last.
   */
  readonly error?: string;
}

/** Result of a sweep. */
export interface SweepResult {
  readonly strategy: string;
  readonly rankBy: string;
  readonly rows: readonly SweepRow[];
  /** Full result per grid point, in grid order (for checks against single runs); undefined for a point whose run threw. */
  readonly results: readonly (BacktestResult | undefined)[];
  /** Number of failed points (rows with an error). */
  readonly failed: number;
}

/** Which strategy a grid applies to. */
export function sweepStrategy(cfg: BacktestConfig, grid: SweepGrid): string {
  if (grid.strategy !== undefined) {
    if (!cfg.strategies.some((s) => s.name === grid.strategy)) throw new RangeError(`grid strategy ${JSON.stringify(grid.strategy)} is not in ${cfg.file}`);
    return grid.strategy;
  }
  if (cfg.strategies.length !== 1) throw new RangeError(`${cfg.file} has ${cfg.strategies.length} strategies: name one with "strategy:" in the grid`);
  return (cfg.strategies[0] as { name: string }).name;
}

/**
 * Checks every grid point with the strategy's own parameter schema before anything runs, so a value
 * it refuses (or a parameter it does not have) stops the sweep with an error naming the grid file,
 * the parameter, its position in the list and the value, not one failed run among many.
 */
export async function checkGrid(cfg: BacktestConfig, grid: SweepGrid, strategy: string, gridFile = 'grid'): Promise<void> {
  const i = cfg.strategies.findIndex((s) => s.name === strategy);
  const spec = cfg.strategies[i];
  if (spec === undefined) throw new RangeError(`grid strategy ${JSON.stringify(strategy)} is not in ${cfg.file}`);
  const plugin = await loadPlugin(spec.plugin, cfg.dir, plainErrorAt(cfg.file), ['strategies', i]);
  const errorAt = plainErrorAt(gridFile);
  for (const point of gridPoints(grid)) {
    const v = validateParams(plugin, { ...spec.params, ...point });
    const issue = v.ok ? undefined : v.issues[0];
    if (issue === undefined) continue;
    const key = issue.path[0];
    const values = typeof key === 'string' && Object.hasOwn(grid.params, key) ? grid.params[key] : undefined;
    if (typeof key === 'string' && values !== undefined) {
      const at = values.findIndex((x) => x === point[key]);
      throw errorAt(['params', key, at, ...issue.path.slice(1)], `${issue.message} (${spec.plugin}, at grid point ${JSON.stringify(point)})`, issue.value);
    }
    // The issue is on a parameter of the config that this point's values make invalid (a cross-field rule).
    throw errorAt(['params'], `grid point ${JSON.stringify(point)} is refused by ${spec.plugin}: ${formatDocPath(issue.path)}=${JSON.stringify(issue.value)}: ${issue.message}`, point);
  }
}

/** Runs the grid on `workers` threads (default: all cores); the grid is checked first (checkGrid). */
export async function runSweep(cfg: BacktestConfig, grid: SweepGrid, opts: { workers?: number; gridFile?: string; onDone?: (done: number, total: number) => void } = {}): Promise<SweepResult> {
  const strategy = sweepStrategy(cfg, grid);
  checkDataFiles(cfg);
  await checkGrid(cfg, grid, strategy, opts.gridFile);
  const points = gridPoints(grid);
  const n = Math.max(1, Math.min(opts.workers ?? os.availableParallelism(), points.length));
  const answers: (SweepAnswer | undefined)[] = points.map(() => undefined);
  let next = 0;
  let done = 0;
  const answer = (a: SweepAnswer): void => {
    if (answers[a.index] !== undefined) return;
    answers[a.index] = a;
    opts.onDone?.(++done, points.length);
  };
  await new Promise<void>((resolve) => {
    let alive = 0;
    // A worker that dies (an uncaught error in it, out of memory) fails the point it was running
    // and is replaced while points remain: one bad point never takes the others with it.
    const start = (): void => {
      alive++;
      // Compiled (dist/): the worker's JavaScript. From the sources: `execArgv: ['--import', 'tsx']`
      // does not reach worker threads on Node 20, so the .mjs entry registers tsx itself.
      const worker = new Worker(new URL(import.meta.url.endsWith('.js') ? './sweepWorker.js' : './sweepWorkerEntry.mjs', import.meta.url));
      let current: number | undefined;
      let crashed = false;
      const feed = (): void => {
        if (next >= points.length) {
          current = undefined;
          worker.postMessage(null);
          return;
        }
        current = next++;
        const job: SweepJob = { index: current, configFile: cfg.file, strategy, params: points[current] as Record<string, unknown> };
        worker.postMessage(job);
      };
      worker.on('message', (a: SweepAnswer) => {
        answer(a);
        feed();
      });
      worker.on('error', (err) => {
        crashed = true;
        if (current !== undefined) answer({ index: current, ok: false, error: `worker failed: ${err.message}` });
        current = undefined;
      });
      worker.on('exit', (code) => {
        if (current !== undefined) answer({ index: current, ok: false, error: `worker exited with code ${code}` });
        alive--;
        if ((crashed || code !== 0) && next < points.length) start();
        else if (alive === 0) resolve();
      });
      feed();
    };
    for (let w = 0; w < n; w++) start();
  });
  const results = answers.map((a) => (a?.ok ? (JSON.parse(a.result) as BacktestResult) : undefined));
  const rows = points
    .map((params, index) => {
      const a = answers[index];
      const r = results[index];
      const metrics = r?.strategies[strategy];
      const error = a === undefined ? 'no answer' : !a.ok ? a.error : r !== undefined && r.failures.length > 0 ? r.failures.map(failureText).join('; ') : undefined;
      const value = error !== undefined || metrics === undefined ? null : rankValue(metrics, grid.rankBy);
      return { index, params, metrics, error, value, failed: error !== undefined };
    })
    .sort((a, b) => (a.failed !== b.failed ? (a.failed ? 1 : -1) : compareRank(a, b)))
    .map(({ index, params, metrics, error }, i) => ({ rank: i + 1, index, params, metrics, ...(error !== undefined ? { error } : {}) }));
  return { strategy, rankBy: grid.rankBy, rows, results, failed: rows.filter((r) => r.error !== undefined).length };
}

/** The ranked table as Markdown. */
export function sweepTable(s: SweepResult): string {
  const keys = Object.keys(s.rows[0]?.params ?? {});
  const cols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'fees', 'trades', 'fillRatio'] as const;
  const head = `| rank | ${keys.join(' | ')} | ${cols.join(' | ')} |`;
  const sep = `|${' --- |'.repeat(1 + keys.length + cols.length)}`;
  const cell = (m: StrategyMetrics, c: (typeof cols)[number]): string => (isRatio(c) ? ratioText(m, c) : String(m[c]));
  const body = s.rows.map((r) => {
    const m = r.metrics;
    const figures = r.error !== undefined ? [`FAILED: ${r.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')}`, ...cols.slice(1).map(() => '')] : m === undefined ? cols.map(() => '') : cols.map((c) => cell(m, c));
    return `| ${r.rank} | ${keys.map((k) => JSON.stringify(r.params[k])).join(' | ')} | ${figures.join(' | ')} |`;
  });
  const first = s.rows.find((r) => r.metrics !== undefined)?.metrics?.ratioSample;
  const note = first === undefined ? '' : `\nsharpe, sortino: annualised (365-day year, risk-free 0), only over returns spanning at least a day; sharpePerPeriod, sortinoPerPeriod: per ${first.intervalMs} ms equity period. n/a: not estimated (reason given); ranked last when ranking by it.\n`;
  const failed = s.failed > 0 ? `\n${s.failed} of ${s.rows.length} points failed (ranked last, error in the first figure column).\n` : '';
  return `Sweep of ${s.strategy}, ranked by ${s.rankBy}\n\n${[head, sep, ...body].join('\n')}\n${note}${failed}`;
}

function isRatio(c: string): c is RatioField {
  return (RATIO_FIELDS as readonly string[]).includes(c);
}

/** Writes sweep.md and sweep.json into `dir`. */
export function writeSweep(dir: string, s: SweepResult): { md: string; json: string } {
  mkdirSync(dir, { recursive: true });
  const md = path.join(dir, 'sweep.md');
  const json = path.join(dir, 'sweep.json');
  writeFileSync(md, sweepTable(s));
  writeFileSync(json, `${JSON.stringify({ strategy: s.strategy, rankBy: s.rankBy, failed: s.failed, rows: s.rows }, null, 2)}\n`);
  return { md, json };
}
