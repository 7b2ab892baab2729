/**
 * Parameter sweeps: every point of a grid run as an independent single backtest on a pool of
 * worker threads (one per core), then ranked. Each point's result is exactly what a single run
 * with those parameters gives (the workers call the same runBacktest).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkDataFiles } from './Backtest.js';
import { failureText } from './failureText.js';
import type { BacktestConfig } from './config.js';
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';
import { RATIO_FIELDS, type RatioField } from './metrics.js';
import { ratioText } from './ratioText.js';
import { compareRank, gridPoints, rankValue, type SweepGrid } from './sweepGrid.js';
import { paramValues, randomPoints } from './sweepSpace.js';
import { formatDocPath } from '../core/configIssue.js';
import { timeBoundMs } from '../config/timeBound.js';
import { loadPlugin, plainErrorAt } from '../strategy/loader.js';
import { validateParams } from '../strategy/params.js';
import { recordingFiles, type JobRunner, type SweepFigures, type SweepJob } from './sweepJob.js';
import { runJobs } from './sweepPool.js';
import { combineMetrics, recordingsTable, type RecordingRow } from './sweepRecordings.js';
import { runWalkForward, walkForwardSpans, type WalkForwardResult } from './sweepWalkForward.js';
import { renderSweepHtml } from './sweepReport.js';
import { overfittingText, sweepOverfitting, type SweepOverfitting } from './sweepOverfitting.js';
import { returnSlices } from './returnSlices.js';

/** One ranked row. */
export interface SweepRow {
  readonly rank: number;
  readonly index: number;
  readonly params: Record<string, unknown>;
  /** The strategy's figures (in-sample with an out-of-sample split); undefined when the point's run failed before it had any. */
  readonly metrics: StrategyMetrics | undefined;
  /** With an out-of-sample split: the same point's figures on the data from the split on. */
  readonly outOfSample?: StrategyMetrics;
  /**
   * Why the point failed: its run threw (a worker error included), or the strategy threw and was
   * stopped part-way (its metrics are then those of a truncated run). Failed points rank last.
   */
  readonly error?: string;
  /** With eachRecording: each recording's run of the point (its figures are these combined: sweepRecordings.ts). */
  readonly recordings?: readonly RecordingRow[];
  /** On a queue: the workers (host, pid) that ran the point's jobs, each once; absent on the embedded pool. */
  readonly ranBy?: readonly string[];
}

/** Result of a sweep. */
export interface SweepResult {
  readonly strategy: string;
  readonly rankBy: string;
  readonly rows: readonly SweepRow[];
  /**
   * With `keepResults`: the whole result per grid point, in grid order (for checks against single
   * runs); with eachRecording, per point and recording (point * recordings + recording).
   * Undefined for a run that threw.
   */
  readonly results?: readonly (BacktestResult | undefined)[];
  /** Number of failed points (rows with an error). */
  readonly failed: number;
  /** Points the strategy refused, not run. */
  readonly skipped: readonly SkippedPoint[];
  /** The out-of-sample split (ms), when the grid has one. */
  readonly split?: number;
  /** With `walkForward` in the grid: each window's chosen point and its out-of-sample figures, and their totals. */
  readonly walkForward?: WalkForwardResult;
  /** How much the winner owes to luck: PBO, deflated Sharpe ratio, in- against out-of-sample (sweepOverfitting.ts). */
  readonly overfitting?: SweepOverfitting;
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

/** A grid point the strategy's schema refuses: skipped, and listed with the reason. */
export interface SkippedPoint {
  readonly params: Record<string, unknown>;
  readonly reason: string;
}

/**
 * The points to run: the grid's (or a random draw of them), each checked with the strategy's own
 * parameter schema before anything runs. A point it refuses (a cross-field rule such as fast <
 * slow, a value out of its range) is skipped and listed, not fatal; a parameter the strategy does
 * not have at all is an error of the grid file, naming the parameter.
 */
export async function planSweep(cfg: BacktestConfig, grid: SweepGrid, strategy: string, gridFile = 'grid'): Promise<{ points: Record<string, unknown>[]; skipped: SkippedPoint[] }> {
  const i = cfg.strategies.findIndex((s) => s.name === strategy);
  const spec = cfg.strategies[i];
  if (spec === undefined) throw new RangeError(`grid strategy ${JSON.stringify(strategy)} is not in ${cfg.file}`);
  const plugin = await loadPlugin(spec.plugin, cfg.dir, plainErrorAt(cfg.file), ['strategies', i]);
  const errorAt = plainErrorAt(gridFile);
  const values = Object.entries(grid.params).map(([k, spec]) => {
    try {
      return [k, paramValues(spec)] as const;
    } catch (err) {
      throw errorAt(['params', k], (err as Error).message, spec);
    }
  });
  const candidates = grid.search === 'random' ? randomPoints(values, grid.samples ?? 1, grid.seed) : gridPoints(grid);
  const points: Record<string, unknown>[] = [];
  const skipped: SkippedPoint[] = [];
  for (const point of candidates) {
    const v = validateParams(plugin, { ...spec.params, ...point });
    const issue = v.ok ? undefined : v.issues[0];
    if (issue === undefined) {
      points.push(point);
      continue;
    }
    if (/^unknown key/.test(issue.message)) throw errorAt(['params', ...issue.path], `${issue.message}: ${spec.plugin} has no such parameter`, issue.value);
    skipped.push({ params: point, reason: `${formatDocPath(issue.path)}=${JSON.stringify(issue.value)}: ${issue.message}` });
  }
  if (points.length === 0) throw errorAt(['params'], `every point is refused by ${spec.plugin}, e.g. ${JSON.stringify(skipped[0]?.params)}: ${skipped[0]?.reason ?? ''}`, grid.params);
  return { points, skipped };
}

/** How a sweep runs its jobs: on `workers` threads (default: all cores), or with `runner` (a queue's workers). */
export interface SweepOptions {
  readonly workers?: number;
  readonly gridFile?: string;
  readonly onDone?: (done: number, total: number) => void;
  readonly runner?: JobRunner;
  /** Keep each point's whole result in `SweepResult.results` (tests); else only its figures travel back. */
  readonly keepResults?: boolean;
}

/** Runs the grid; the grid is checked first, and nothing runs when it is wrong. */
export async function runSweep(cfg: BacktestConfig, grid: SweepGrid, opts: SweepOptions = {}): Promise<SweepResult> {
  const strategy = sweepStrategy(cfg, grid);
  checkDataFiles(cfg);
  const { points, skipped } = await planSweep(cfg, grid, strategy, opts.gridFile);
  // With an out-of-sample split, each point runs twice: before the split (ranked) and from it.
  const split = grid.outOfSample === undefined ? undefined : timeBoundMs(grid.outOfSample);
  const windows: (SweepJob['window'] | undefined)[] = split === undefined ? [undefined] : [{ end: split - 1 }, { start: split }];
  // With eachRecording, each (point, window) runs once per recording file, and the runs are combined.
  const recordings = grid.eachRecording ? recordingFiles(cfg) : [];
  if (grid.eachRecording && (recordings.length === 0 || cfg.backtest.candles.length > 0)) throw plainErrorAt(opts.gridFile ?? 'grid')(['eachRecording'], `needs a config whose data are recording files (backtest.recordings), not candles: ${cfg.file}`, true);
  const parts: (number | undefined)[] = grid.eachRecording ? recordings.map((_, r) => r) : [undefined];
  const W = windows.length;
  const R = parts.length;
  const at = (p: number, w: number, r: number): number => (p * W + w) * R + r;
  const jobs: SweepJob[] = points.flatMap((params, p) =>
    windows.flatMap((window, w) => parts.map((recording, r) => ({ index: at(p, w, r), configFile: cfg.file, strategy, params, ...(opts.keepResults === true ? { full: true } : {}), ...(window !== undefined ? { window } : {}), ...(recording !== undefined ? { recording } : {}) }))),
  );
  // Walk-forward windows are checked before anything runs; their runs follow the grid's.
  const wfRuns = grid.walkForward === undefined ? 0 : walkForwardSpans(grid.walkForward, cfg, opts.gridFile).length * (points.length + 1);
  const run: JobRunner = opts.runner ?? ((js, onDone) => runJobs(js, opts.workers, onDone));
  const answers = await run(jobs, (d) => opts.onDone?.(d, jobs.length + wfRuns));
  const walkForward = grid.walkForward === undefined ? undefined : await runWalkForward(cfg, grid, strategy, points, { ...opts, run, onDone: (d) => opts.onDone?.(jobs.length + d, jobs.length + wfRuns) });
  const all = answers.map((a) => (a?.ok ? (JSON.parse(a.result) as SweepFigures) : undefined));
  const errorOf = (j: number): string | undefined => {
    const a = answers[j];
    const r = all[j];
    return a === undefined ? 'no answer' : !a.ok ? a.error : r !== undefined && r.failures.length > 0 ? r.failures.map(failureText).join('; ') : undefined;
  };
  const recordingRows = (p: number, w: number): RecordingRow[] =>
    recordings.map((rec, r) => {
      const error = errorOf(at(p, w, r));
      return { file: rec.file, metrics: all[at(p, w, r)]?.strategies[strategy], ...(error !== undefined ? { error } : {}) };
    });
  // A point's figures in window w: its one run's, or its recordings' runs combined (when all have figures).
  const metricsOf = (p: number, w: number): StrategyMetrics | undefined => {
    const ms = parts.map((_, r) => all[at(p, w, r)]?.strategies[strategy]);
    return ms.every((m) => m !== undefined) ? combineMetrics(ms) : undefined;
  };
  const errorsOf = (p: number, w: number): string[] =>
    parts.flatMap((recording, r) => {
      const e = errorOf(at(p, w, r));
      return e === undefined ? [] : [recording === undefined ? e : `${recordings[recording]?.file ?? ''}: ${e}`];
    });
  const rows = points
    .map((params, index) => {
      const metrics = metricsOf(index, 0);
      const errors = windows.flatMap((_, k) => errorsOf(index, k));
      const error = errors.length === 0 ? undefined : errors.join('; ');
      const outOfSample = W > 1 ? metricsOf(index, 1) : undefined;
      const value = error !== undefined || metrics === undefined ? null : rankValue(metrics, grid.rankBy);
      const ranBy = [...new Set(windows.flatMap((_, w) => parts.flatMap((_r, r) => answers[at(index, w, r)]?.ranBy ?? [])))];
      return { index, params, metrics, outOfSample, error, value, failed: error !== undefined, recordings: grid.eachRecording ? recordingRows(index, 0) : undefined, ranBy };
    })
    .sort((a, b) => (a.failed !== b.failed ? (a.failed ? 1 : -1) : compareRank(a, b)))
    .map(({ index, params, metrics, outOfSample, error, recordings: recs, ranBy }, i) => ({ rank: i + 1, index, params, metrics, ...(outOfSample !== undefined ? { outOfSample } : {}), ...(error !== undefined ? { error } : {}), ...(recs !== undefined ? { recordings: recs } : {}), ...(ranBy.length > 0 ? { ranBy } : {}) }));
  // Slices of one run per point: with eachRecording the recordings span different times, and slice k of one is not slice k of another.
  const overfitting = sweepOverfitting(
    points.map((params, p) => {
      const m = metricsOf(p, 0);
      const o = W > 1 ? metricsOf(p, 1) : undefined;
      const fig = all[at(p, 0, 0)];
      // A whole result (keepResults) carries its curve rather than the slices: sliced here alike.
      const slices = fig === undefined ? undefined : (fig.returnSlices ?? (opts.keepResults === true ? returnSlices(fig as BacktestResult, strategy) : undefined));
      return { index: p, slices: R === 1 && errorsOf(p, 0).length === 0 ? slices : undefined, inSample: m === undefined ? null : rankValue(m, grid.rankBy), ...(W > 1 ? { outOfSample: o === undefined ? null : rankValue(o, grid.rankBy) } : {}) };
    }),
    rows[0]?.error === undefined ? rows[0]?.index : undefined,
  );
  const results = opts.keepResults === true ? points.flatMap((_, p) => parts.map((_r, r) => all[at(p, 0, r)] as BacktestResult | undefined)) : undefined;
  return { strategy, rankBy: grid.rankBy, rows, ...(results !== undefined ? { results } : {}), failed: rows.filter((r) => r.error !== undefined).length, skipped, ...(split !== undefined ? { split } : {}), ...(walkForward !== undefined ? { walkForward } : {}), overfitting };
}

/** The ranked table as Markdown. */
export function sweepTable(s: SweepResult): string {
  const keys = Object.keys(s.rows[0]?.params ?? {});
  const cols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'fees', 'trades', 'fillRatio'] as const;
  // A queue sweep says which worker ran each point: a point that looks odd can be traced to its machine.
  const workers = s.rows.some((r) => r.ranBy !== undefined);
  const outHead = [...(s.split !== undefined ? ['oos netPnl', 'oos returnPct', 'oos maxDrawdownPct', 'oos sharpe'] : []), ...(workers ? ['ran on'] : [])];
  const head = `| rank | ${keys.join(' | ')} | ${[...cols, ...outHead].join(' | ')} |`;
  const sep = `|${' --- |'.repeat(1 + keys.length + cols.length + outHead.length)}`;
  const cell = (m: StrategyMetrics, c: (typeof cols)[number]): string => (isRatio(c) ? ratioText(m, c) : String(m[c]));
  const oos = s.split !== undefined;
  const oosCols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe'] as const;
  const body = s.rows.map((r) => {
    const m = r.metrics;
    const figures = r.error !== undefined ? [`FAILED: ${r.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')}`, ...cols.slice(1).map(() => '')] : m === undefined ? cols.map(() => '') : cols.map((c) => cell(m, c));
    const o = r.outOfSample;
    const outFigures = [...(!oos ? [] : oosCols.map((c) => (o === undefined ? '' : cell(o, c)))), ...(workers ? [(r.ranBy ?? []).join(', ')] : [])];
    return `| ${r.rank} | ${keys.map((k) => JSON.stringify(r.params[k])).join(' | ')} | ${[...figures, ...outFigures].join(' | ')} |`;
  });
  const first = s.rows.find((r) => r.metrics !== undefined)?.metrics?.ratioSample;
  const note = first === undefined ? '' : `\nsharpe, sortino: annualised (365-day year, risk-free 0), only over returns spanning at least a day; sharpePerPeriod, sortinoPerPeriod: per ${first.intervalMs} ms equity period. n/a: not estimated (reason given); ranked last when ranking by it.\n`;
  const failed = s.failed > 0 ? `\n${s.failed} of ${s.rows.length} points failed (ranked last, error in the first figure column).\n` : '';
  const skipped = s.skipped.length === 0 ? '' : `\n${s.skipped.length} points skipped (refused by the strategy):\n${s.skipped.map((p) => `- ${JSON.stringify(p.params)}: ${p.reason}`).join('\n')}\n`;
  const split = s.split === undefined ? '' : ` in sample (before ${new Date(s.split).toISOString()}); oos columns: the same point from then on`;
  return `Sweep of ${s.strategy}, ranked by ${s.rankBy}${split}\n\n${[head, sep, ...body].join('\n')}\n${note}${failed}${skipped}${recordingsTable(s.rows)}${s.walkForward === undefined ? '' : walkForwardTable(s.walkForward)}${s.overfitting === undefined ? '' : overfittingText(s.overfitting, s.rankBy)}`;
}

/** The walk-forward windows and their stitched out-of-sample totals as Markdown. */
export function walkForwardTable(wf: WalkForwardResult): string {
  const day = (t: number | undefined): string => (t === undefined ? 'data start' : new Date(t).toISOString());
  const rows = wf.windows.map((w) => {
    const i = w.inSampleMetrics;
    const o = w.outOfSampleMetrics;
    const figures = o === undefined ? ['', '', '', ''] : [o.netPnl, String(o.returnPct), String(o.maxDrawdownPct), String(o.trades)];
    return `| ${w.window} | ${day(w.inSample.start)} .. ${day(w.inSample.end + 1)} | ${day(w.outOfSample.start)} .. ${day(w.outOfSample.end + 1)} | ${w.params === undefined ? '' : JSON.stringify(w.params)} | ${i === undefined ? '' : rankText(i, wf.rankBy)} | ${figures.join(' | ')} | ${(w.error ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`;
  });
  const t = wf.outOfSample;
  return `\nWalk-forward (${wf.anchored ? 'anchored' : 'rolling'} in-sample windows; each window's best point by ${wf.rankBy} in sample, run on the next out-of-sample window):\n\n| window | in sample | out of sample | chosen | in-sample ${wf.rankBy} | oos netPnl | oos returnPct | oos maxDrawdownPct | oos trades | error |\n|${' --- |'.repeat(10)}\n${rows.join('\n')}\n\nStitched out of sample (${t.windows} windows, each from the configured budget): netPnl ${t.netPnl}, returnPct ${t.returnPct} (compounded), fees ${t.fees}, trades ${t.trades}, profitable windows ${t.profitableWindows} of ${t.windows}.\n`;
}

function rankText(m: StrategyMetrics, by: string): string {
  return isRatio(by) ? ratioText(m, by) : String(m[by as keyof StrategyMetrics]);
}

function isRatio(c: string): c is RatioField {
  return (RATIO_FIELDS as readonly string[]).includes(c);
}

/** Writes sweep.md, sweep.json and sweep.html into `dir`. */
export function writeSweep(dir: string, s: SweepResult): { md: string; json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const md = path.join(dir, 'sweep.md');
  const json = path.join(dir, 'sweep.json');
  const html = path.join(dir, 'sweep.html');
  writeFileSync(md, sweepTable(s));
  writeFileSync(json, `${JSON.stringify({ strategy: s.strategy, rankBy: s.rankBy, failed: s.failed, skipped: s.skipped, ...(s.split !== undefined ? { split: s.split } : {}), ...(s.walkForward !== undefined ? { walkForward: s.walkForward } : {}), ...(s.overfitting !== undefined ? { overfitting: s.overfitting } : {}), rows: s.rows }, null, 2)}\n`);
  writeFileSync(html, renderSweepHtml(s));
  return { md, json, html };
}
