/**
 * Parameter sweeps: every point of a grid run as an independent single backtest on a pool of
 * worker threads (one per core), then ranked. Each point's result is exactly what a single run
 * with those parameters gives (the workers call the same runBacktest).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BacktestConfig } from './config.js';
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';
import { RATIO_FIELDS, type RatioField } from './metrics.js';
import { ratioText } from './ratioText.js';
import { compareRank, gridPoints, rankValue, type SweepGrid } from './sweepGrid.js';
import type { SweepAnswer, SweepJob } from './sweepWorker.js';

/** One ranked row. */
export interface SweepRow {
  readonly rank: number;
  readonly index: number;
  readonly params: Record<string, unknown>;
  readonly metrics: StrategyMetrics;
}

/** Result of a sweep. */
export interface SweepResult {
  readonly strategy: string;
  readonly rankBy: string;
  readonly rows: readonly SweepRow[];
  /** Full result per grid point, in grid order (for checks against single runs). */
  readonly results: readonly BacktestResult[];
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

/** Runs the grid on `workers` threads (default: all cores). */
export async function runSweep(cfg: BacktestConfig, grid: SweepGrid, opts: { workers?: number; onDone?: (done: number, total: number) => void } = {}): Promise<SweepResult> {
  const strategy = sweepStrategy(cfg, grid);
  const points = gridPoints(grid);
  const n = Math.max(1, Math.min(opts.workers ?? os.availableParallelism(), points.length));
  const answers: (SweepAnswer | undefined)[] = points.map(() => undefined);
  let next = 0;
  let done = 0;
  await new Promise<void>((resolve, reject) => {
    let alive = n;
    for (let w = 0; w < n; w++) {
      // `execArgv: ['--import', 'tsx']` does not reach worker threads on Node 20: the entry registers tsx itself.
      const worker = new Worker(new URL('./sweepWorkerEntry.mjs', import.meta.url));
      const feed = (): void => {
        if (next >= points.length) {
          worker.postMessage(null);
          return;
        }
        const index = next++;
        const job: SweepJob = { index, configFile: cfg.file, strategy, params: points[index] as Record<string, unknown> };
        worker.postMessage(job);
      };
      worker.on('message', (a: SweepAnswer) => {
        answers[a.index] = a;
        opts.onDone?.(++done, points.length);
        feed();
      });
      worker.on('error', reject);
      worker.on('exit', () => {
        if (--alive === 0) resolve();
      });
      feed();
    }
  });
  const results: BacktestResult[] = answers.map((a, i) => {
    if (a === undefined) throw new Error(`sweep point ${i} got no answer`);
    if (!a.ok) throw new Error(`sweep point ${i} (${JSON.stringify(points[i])}) failed: ${a.error}`);
    return JSON.parse(a.result) as BacktestResult;
  });
  const rows = results
    .map((r, index) => {
      const metrics = r.strategies[strategy] as StrategyMetrics;
      return { index, params: points[index] as Record<string, unknown>, metrics, value: rankValue(metrics, grid.rankBy) };
    })
    .sort(compareRank)
    .map(({ index, params, metrics }, i) => ({ rank: i + 1, index, params, metrics }));
  return { strategy, rankBy: grid.rankBy, rows, results };
}

/** The ranked table as Markdown. */
export function sweepTable(s: SweepResult): string {
  const keys = Object.keys(s.rows[0]?.params ?? {});
  const cols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'fees', 'trades', 'fillRatio'] as const;
  const head = `| rank | ${keys.join(' | ')} | ${cols.join(' | ')} |`;
  const sep = `|${' --- |'.repeat(1 + keys.length + cols.length)}`;
  const cell = (m: StrategyMetrics, c: (typeof cols)[number]): string => (isRatio(c) ? ratioText(m, c) : String(m[c]));
  const body = s.rows.map((r) => `| ${r.rank} | ${keys.map((k) => JSON.stringify(r.params[k])).join(' | ')} | ${cols.map((c) => cell(r.metrics, c)).join(' | ')} |`);
  const first = s.rows[0]?.metrics.ratioSample;
  const note = first === undefined ? '' : `\nsharpe, sortino: annualised (365-day year, risk-free 0), only over returns spanning at least a day; sharpePerPeriod, sortinoPerPeriod: per ${first.intervalMs} ms equity period. n/a: not estimated (reason given); ranked last when ranking by it.\n`;
  return `Sweep of ${s.strategy}, ranked by ${s.rankBy}\n\n${[head, sep, ...body].join('\n')}\n${note}`;
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
  writeFileSync(json, `${JSON.stringify({ strategy: s.strategy, rankBy: s.rankBy, rows: s.rows }, null, 2)}\n`);
  return { md, json };
}
