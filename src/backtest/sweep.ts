/**
 * Parameter sweeps: every point of a grid run as an independent single backtest on a pool of
 * worker threads (one per core), then ranked. Each point's result is exactly what a single run
 * with those parameters gives (the workers call the same runBacktest).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkDataFiles } from './Backtest.js';
import type { BacktestConfig } from './config.js';
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';
import { RATIO_FIELDS, type RatioField } from './metrics.js';
import { ratioText } from './ratioText.js';
import { pctText, ratioNumText } from './figureText.js';
import { gridObjective, type SweepGrid } from './sweepGrid.js';
import { planSweep, searchPoints, type SkippedPoint } from './sweepPlan.js';
import { searchText, type SearchNote } from './sweepTpe.js';
import { exclusionOf, objectiveFigure, objectiveText, orientedValue, rankCandidates, type Objective } from './sweepObjective.js';
import { pointRunner } from './sweepPoints.js';
import { timeBoundMs } from '../config/timeBound.js';
import { plainErrorAt } from '../strategy/loader.js';
export type { SkippedPoint } from './sweepPlan.js';
import { recordingFiles, type JobRunner } from './sweepJob.js';
import { runJobs, type JobSignals } from './sweepPool.js';
import { finishedPoints, interruptedLine, markUnrunWindows } from './sweepInterrupt.js';
import { recordingsTable, type RecordingRow } from './sweepRecordings.js';
import { runWalkForward, walkForwardSpans, type WalkForwardResult } from './sweepWalkForward.js';
import { walkForwardTable } from './walkForwardReport.js';
import { renderSweepHtml } from './sweepReport.js';
import { overfittingText, sweepOverfitting, type SweepOverfitting } from './sweepOverfitting.js';
import { makeFolder } from '../store/makeFolder.js';

/** One ranked row. */
export interface SweepRow {
  /** Place among the points that may win (1 is the winner); null for a point under minTrades. */
  readonly rank: number | null;
  readonly index: number;
  readonly params: Record<string, unknown>;
  /** The strategy's figures (in-sample with an out-of-sample split); undefined when the point's run failed before it had any. */
  readonly metrics: StrategyMetrics | undefined;
  /** With an out-of-sample split: the same point's figures on the data from the split on. */
  readonly outOfSample?: StrategyMetrics;
  /** The objective's metric in sample, as measured; null when unavailable. */
  readonly objective: number | null;
  /** Why the point may not win (fewer trades than minTrades): listed with its figures, not ranked. */
  readonly excluded?: string;
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
  /** The objective's metric. */
  readonly rankBy: string;
  readonly objective: Objective;
  /** Points with fewer trades may not win. */
  readonly minTrades?: number;
  /** With a model-based search: its settings, trials run and why it stopped early. */
  readonly search?: SearchNote;
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
  /** When the sweep was interrupted: how far it got ("interrupted: 37 of 120 points run"); the rows are the finished points. */
  readonly interrupted?: string;
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


/** How a sweep runs its jobs: on `workers` threads (default: all cores), or with `runner` (a queue's workers). */
export interface SweepOptions {
  readonly workers?: number;
  readonly gridFile?: string;
  readonly onDone?: (done: number, total: number) => void;
  readonly runner?: JobRunner;
  /** Keep each point's whole result in `SweepResult.results` (tests); else only its figures travel back. */
  readonly keepResults?: boolean;
  /** Cut the sweep short: `stop` starts no new point (running ones finish), `abandon` also ends those; the finished points are ranked. */
  readonly signals?: JobSignals;
}

/** Runs the grid; the grid is checked first, and nothing runs when it is wrong. */
export async function runSweep(cfg: BacktestConfig, grid: SweepGrid, opts: SweepOptions = {}): Promise<SweepResult> {
  const strategy = sweepStrategy(cfg, grid);
  checkDataFiles(cfg);
  const objective = gridObjective(grid);
  const planned = grid.search === 'tpe' ? undefined : await planSweep(cfg, grid, strategy, opts.gridFile);
  // With an out-of-sample split, each point runs twice: before the split (ranked) and from it.
  const split = grid.outOfSample === undefined ? undefined : timeBoundMs(grid.outOfSample);
  if (grid.eachRecording && (recordingFiles(cfg).length === 0 || cfg.backtest.candles.length > 0)) throw plainErrorAt(opts.gridFile ?? 'grid')(['eachRecording'], `needs a config whose data are recording files (backtest.recordings), not candles: ${cfg.file}`, true);
  // Walk-forward windows are checked before anything runs; their runs follow the grid's.
  const wfRuns = grid.walkForward === undefined || planned === undefined ? 0 : walkForwardSpans(grid.walkForward, cfg, opts.gridFile).length * (planned.points.length + 1);
  const signals = opts.signals ?? {};
  const halted = (): boolean => signals.stop?.aborted === true;
  const run: JobRunner = opts.runner ?? ((js, onDone) => runJobs(js, opts.workers, onDone, signals));
  let before = 0;
  const runner = pointRunner(cfg, grid, strategy, split, { run, keepResults: opts.keepResults, onDone: (d) => opts.onDone?.(before + d, total) });
  const total = (planned?.points.length ?? grid.trials ?? 0) * runner.jobsPerPoint + wfRuns;
  const searched = await searchPoints(cfg, grid, strategy, planned, {
    runPoints: async (ps) => {
      const out = await runner.runPoints(ps);
      before += ps.length * runner.jobsPerPoint;
      return out;
    },
    valueOf: (o) => (o.error !== undefined || exclusionOf(o.metrics, grid.minTrades) !== undefined ? null : orientedValue(objective, objectiveFigure(objective, o.metrics, o.trade))),
    gridFile: opts.gridFile,
    halted,
  });
  const { points, skipped } = searched;
  const pointsCut = halted();
  const outcomes = finishedPoints(searched.outcomes, pointsCut);
  before = points.length * runner.jobsPerPoint;
  const wfRun = grid.walkForward === undefined || pointsCut ? undefined : await runWalkForward(cfg, grid, strategy, points, { ...opts, run, onDone: (d) => opts.onDone?.(before + d, total) });
  const wfCut = !pointsCut && halted();
  const walkForward = wfRun !== undefined && wfCut ? markUnrunWindows(wfRun) : wfRun;
  const interrupted = interruptedLine({ points: outcomes.length, planned: planned?.points.length ?? grid.trials ?? 0, tpe: planned === undefined, pointsCut, ...(grid.walkForward !== undefined ? { walkForward: { result: wfRun, cut: wfCut } } : {}) });
  const search = searched.note === undefined || !pointsCut ? searched.note : { ...searched.note, trials: outcomes.length };
  const ranked = rankCandidates(outcomes.map((o) => ({ ...o, failed: o.error !== undefined })), objective, grid.minTrades);
  let rank = 0;
  const rows = ranked.map((c): SweepRow => {
    const figure = objectiveFigure(objective, c.metrics, c.trade);
    return { rank: c.excluded !== undefined ? null : ++rank, index: c.index, params: c.params, metrics: c.metrics, objective: c.failed ? null : figure, ...(c.excluded !== undefined ? { excluded: c.excluded } : {}), ...(c.outOfSample !== undefined ? { outOfSample: c.outOfSample } : {}), ...(c.error !== undefined ? { error: c.error } : {}), ...(c.recordings !== undefined ? { recordings: c.recordings } : {}), ...(c.ranBy.length > 0 ? { ranBy: c.ranBy } : {}) };
  });
  // Points under minTrades are no candidates of the choice, so they enter neither PBO nor DSR.
  const overfitting = sweepOverfitting(
    ranked.map((c) => ({ index: c.index, slices: c.excluded === undefined ? c.slices : undefined, inSample: c.excluded === undefined ? c.value : null, ...(split !== undefined ? { outOfSample: c.excluded !== undefined || c.outOfSample === undefined ? null : orientedValue(objective, objectiveFigure(objective, c.outOfSample, undefined)) } : {}) })),
    ranked[0]?.failed === false && ranked[0].excluded === undefined ? ranked[0].index : undefined,
  );
  const results = opts.keepResults === true ? outcomes.flatMap((o) => o.results ?? []) : undefined;
  return { strategy, rankBy: objective.metric, objective, ...(grid.minTrades !== undefined ? { minTrades: grid.minTrades } : {}), ...(search !== undefined ? { search } : {}), rows, ...(results !== undefined ? { results } : {}), failed: rows.filter((r) => r.error !== undefined).length, skipped, ...(split !== undefined ? { split } : {}), ...(walkForward !== undefined ? { walkForward } : {}), overfitting, ...(interrupted !== undefined ? { interrupted } : {}) };
}

/** The ranked table as Markdown. */
export function sweepTable(s: SweepResult): string {
  const keys = Object.keys(s.rows[0]?.params ?? {});
  const cols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'sortinoPerPeriod', 'fees', 'trades', 'fillRatio'] as const;
  // A queue sweep says which worker ran each point: a point that looks odd can be traced to its machine.
  const workers = s.rows.some((r) => r.ranBy !== undefined);
  // An objective beyond the listed figures (calmar, winRatePct) gets its own column; points under minTrades say so.
  const own = (cols as readonly string[]).includes(s.objective.metric) ? [] : [s.objective.metric];
  const excluded = s.rows.some((r) => r.excluded !== undefined);
  const outHead = [...own, ...(s.split !== undefined ? ['oos netPnl', 'oos returnPct', 'oos maxDrawdownPct', 'oos sharpe'] : []), ...(workers ? ['ran on'] : []), ...(excluded ? ['not ranked'] : [])];
  const head = `| rank | ${keys.join(' | ')} | ${[...cols, ...outHead].join(' | ')} |`;
  const sep = `|${' --- |'.repeat(1 + keys.length + cols.length + outHead.length)}`;
  const cell = (m: StrategyMetrics, c: (typeof cols)[number]): string => figureCell(m, c);
  const oos = s.split !== undefined;
  const oosCols = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe'] as const;
  const body = s.rows.map((r) => {
    const m = r.metrics;
    const figures = r.error !== undefined ? [`FAILED: ${r.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')}`, ...cols.slice(1).map(() => '')] : m === undefined ? cols.map(() => '') : cols.map((c) => cell(m, c));
    const o = r.outOfSample;
    const outFigures = [...own.map(() => ratioNumText(r.objective)), ...(!oos ? [] : oosCols.map((c) => (o === undefined ? '' : cell(o, c)))), ...(workers ? [(r.ranBy ?? []).join(', ')] : []), ...(excluded ? [r.excluded ?? ''] : [])];
    return `| ${r.rank ?? '-'} | ${keys.map((k) => JSON.stringify(r.params[k])).join(' | ')} | ${[...figures, ...outFigures].join(' | ')} |`;
  });
  const first = s.rows.find((r) => r.metrics !== undefined)?.metrics?.ratioSample;
  const asset = s.rows.find((r) => r.metrics !== undefined)?.metrics?.quoteAsset;
  const units = asset === undefined ? '' : `\nnetPnl and fees in ${asset} (exact); returnPct and maxDrawdownPct in percent; every digit in sweep.json.`;
  const note = first === undefined ? '' : `${units}\nsharpe, sortino: annualised (365-day year, risk-free 0), only over returns spanning at least a day; sharpePerPeriod, sortinoPerPeriod: per ${first.intervalMs} ms equity period. n/a: not estimated (reason given); ranked last when ranking by it.\n`;
  const failed = s.failed > 0 ? `\n${s.failed} of ${s.rows.length} points failed (ranked last, error in the first figure column).\n` : '';
  const skipped = s.skipped.length === 0 ? '' : `\n${s.skipped.length} points skipped (refused by the strategy):\n${s.skipped.map((p) => `- ${JSON.stringify(p.params)}: ${p.reason}`).join('\n')}\n`;
  const split = s.split === undefined ? '' : ` in sample (before ${new Date(s.split).toISOString()}); oos columns: the same point from then on`;
  const min = s.minTrades === undefined ? '' : `; points with fewer than ${s.minTrades} trades are listed, not ranked`;
  const search = s.search === undefined ? '' : `\n\n${searchText(s.search)}`;
  return `Sweep of ${s.strategy}, ranked by ${objectiveText(s.objective)}${min}${split}${search}${s.interrupted === undefined ? '' : `\n\n${s.interrupted}`}\n\n${[head, sep, ...body].join('\n')}\n${note}${failed}${skipped}${recordingsTable(s.rows)}${s.walkForward === undefined ? '' : walkForwardTable(s.walkForward)}${s.overfitting === undefined ? '' : overfittingText(s.overfitting, s.rankBy)}`;
}

/**
 * A figure as the table shows it: money as the exact decimal (its asset named under the table),
 * percents and ratios to two places (more for a small one, so a loss never reads 0.00), an
 * unavailable ratio as n/a with the reason; sweep.json keeps every digit.
 */
function figureCell(m: StrategyMetrics, c: 'netPnl' | 'returnPct' | 'maxDrawdownPct' | RatioField | 'fees' | 'trades' | 'fillRatio'): string {
  if (isRatio(c)) return m[c] === null ? ratioText(m, c) : ratioNumText(m[c]);
  if (c === 'returnPct' || c === 'maxDrawdownPct') return pctText(m[c]);
  if (c === 'fillRatio') return ratioNumText(m[c]);
  return String(m[c]);
}

function isRatio(c: string): c is RatioField {
  return (RATIO_FIELDS as readonly string[]).includes(c);
}

/** Writes sweep.md, sweep.json and sweep.html into `dir`. */
export function writeSweep(dir: string, s: SweepResult): { md: string; json: string; html: string } {
  makeFolder(dir);
  const md = path.join(dir, 'sweep.md');
  const json = path.join(dir, 'sweep.json');
  const html = path.join(dir, 'sweep.html');
  writeFileSync(md, sweepTable(s));
  writeFileSync(json, `${JSON.stringify({ strategy: s.strategy, rankBy: s.rankBy, failed: s.failed, skipped: s.skipped, objective: s.objective, ...(s.minTrades !== undefined ? { minTrades: s.minTrades } : {}), ...(s.search !== undefined ? { search: s.search } : {}), ...(s.split !== undefined ? { split: s.split } : {}), ...(s.walkForward !== undefined ? { walkForward: s.walkForward } : {}), ...(s.overfitting !== undefined ? { overfitting: s.overfitting } : {}), ...(s.interrupted !== undefined ? { interrupted: s.interrupted } : {}), rows: s.rows }, null, 2)}\n`);
  writeFileSync(html, renderSweepHtml(s));
  return { md, json, html };
}
