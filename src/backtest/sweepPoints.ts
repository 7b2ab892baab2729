/**
 * Runs a batch of sweep points as jobs and reads their answers back per point: each point runs
 * once per window (in sample, and out of sample with a split) and per recording (eachRecording),
 * and its figures are its one run's, or its recordings' runs combined. A grid runs its points in
 * one batch; a model-based search (sweepTpe.ts) runs them in several, each chosen from the last.
 */
import type { BacktestConfig } from './config.js';
import { failureText } from './failureText.js';
import type { Moments } from './overfitting.js';
import type { BacktestResult, StrategyMetrics } from './result.js';
import { returnSlices } from './returnSlices.js';
import type { SweepGrid } from './sweepGrid.js';
import type { JobRunner, SweepAnswer, SweepFigures, SweepJob } from './sweepJob.js';
import { recordingFiles } from './sweepJob.js';
import { tradeFigures, type TradeFigures } from './sweepObjective.js';
import { combineMetrics, type RecordingRow } from './sweepRecordings.js';

/** What a point's runs gave. */
export interface PointOutcome {
  readonly params: Record<string, unknown>;
  /** In-sample figures (the whole span without a split); undefined when a run gave none. */
  readonly metrics: StrategyMetrics | undefined;
  readonly outOfSample?: StrategyMetrics;
  /** The tearsheet scalars in sample (one run only: they do not combine across recordings). */
  readonly trade?: TradeFigures;
  /** Every run's error, joined; undefined when all ran to the end. */
  readonly error?: string;
  readonly recordings?: readonly RecordingRow[];
  /** Queue workers that ran its jobs, each once. */
  readonly ranBy: readonly string[];
  /** In-sample returns per slice (for PBO and DSR); undefined with recordings or a failed run. */
  readonly slices?: readonly Moments[];
  /** The whole in-sample result per recording (keepResults). */
  readonly results?: readonly (BacktestResult | undefined)[];
  /** A job of it has no answer: not started or cut off by an interrupt (an interrupted sweep leaves the point out). */
  readonly unfinished?: true;
}

/** How the batches run. */
export interface PointRunOptions {
  readonly run: JobRunner;
  readonly keepResults?: boolean;
  /** Progress of a batch: jobs done in it, and its job count. */
  readonly onDone?: (done: number, total: number) => void;
}

/** The windows a grid runs each point on: the whole span, or before and from its split. */
export function sweepWindows(split: number | undefined): (SweepJob['window'] | undefined)[] {
  return split === undefined ? [undefined] : [{ end: split - 1 }, { start: split }];
}

/** A runner of point batches for one sweep, and how many jobs each point takes. */
export function pointRunner(cfg: BacktestConfig, grid: SweepGrid, strategy: string, split: number | undefined, opts: PointRunOptions): { jobsPerPoint: number; runPoints: (points: readonly Record<string, unknown>[]) => Promise<PointOutcome[]> } {
  const windows = sweepWindows(split);
  const recordings = grid.eachRecording ? recordingFiles(cfg) : [];
  const parts: (number | undefined)[] = grid.eachRecording ? recordings.map((_, r) => r) : [undefined];
  const W = windows.length;
  const R = parts.length;
  const at = (p: number, w: number, r: number): number => (p * W + w) * R + r;
  const runPoints = async (points: readonly Record<string, unknown>[]): Promise<PointOutcome[]> => {
    const jobs: SweepJob[] = points.flatMap((params, p) =>
      windows.flatMap((window, w) => parts.map((recording, r) => ({ index: at(p, w, r), configFile: cfg.file, strategy, params, ...(opts.keepResults === true ? { full: true } : {}), ...(window !== undefined ? { window } : {}), ...(recording !== undefined ? { recording } : {}) }))),
    );
    const answers = await opts.run(jobs, (d) => opts.onDone?.(d, jobs.length));
    const all = answers.map((a) => (a?.ok ? (JSON.parse(a.result) as SweepFigures) : undefined));
    const errorOf = (j: number): string | undefined => answerError(answers[j], all[j]);
    const metricsOf = (p: number, w: number): StrategyMetrics | undefined => {
      const ms = parts.map((_, r) => all[at(p, w, r)]?.strategies[strategy]);
      return ms.every((m) => m !== undefined) ? combineMetrics(ms) : undefined;
    };
    const errorsOf = (p: number, w: number): string[] =>
      parts.flatMap((recording, r) => {
        const e = errorOf(at(p, w, r));
        return e === undefined ? [] : [recording === undefined ? e : `${recordings[recording]?.file ?? ''}: ${e}`];
      });
    return points.map((params, p): PointOutcome => {
      const errors = windows.flatMap((_, w) => errorsOf(p, w));
      const outOfSample = W > 1 ? metricsOf(p, 1) : undefined;
      const fig = all[at(p, 0, 0)];
      // A whole result (keepResults) carries its curve rather than the slices: sliced here alike.
      const slices = fig === undefined || R > 1 || errorsOf(p, 0).length > 0 ? undefined : (fig.returnSlices ?? (opts.keepResults === true ? returnSlices(fig as BacktestResult, strategy) : undefined));
      const trade = R === 1 ? (fig?.trade ?? tradeOfWhole(fig, strategy)) : undefined;
      const recordingRows = recordings.map((rec, r): RecordingRow => {
        const error = errorOf(at(p, 0, r));
        return { file: rec.file, metrics: all[at(p, 0, r)]?.strategies[strategy], ...(error !== undefined ? { error } : {}) };
      });
      return {
        params,
        metrics: metricsOf(p, 0),
        ...(outOfSample !== undefined ? { outOfSample } : {}),
        ...(trade !== undefined ? { trade } : {}),
        ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
        ...(grid.eachRecording ? { recordings: recordingRows } : {}),
        ...(windows.some((_, w) => parts.some((_r, r) => answers[at(p, w, r)] === undefined)) ? { unfinished: true as const } : {}),
        ranBy: [...new Set(windows.flatMap((_, w) => parts.flatMap((_r, r) => answers[at(p, w, r)]?.ranBy ?? [])))],
        ...(slices !== undefined ? { slices } : {}),
        ...(opts.keepResults === true ? { results: parts.map((_r, r) => all[at(p, 0, r)] as BacktestResult | undefined) } : {}),
      };
    });
  };
  return { jobsPerPoint: W * R, runPoints };
}

/** A whole result (keepResults) has its tearsheet rather than the scalars: read alike. */
function tradeOfWhole(fig: SweepFigures | undefined, strategy: string): TradeFigures | undefined {
  const whole = fig as Partial<BacktestResult> | undefined;
  return whole?.tearsheet === undefined ? undefined : tradeFigures({ tearsheet: whole.tearsheet }, strategy);
}

/** Why a job gave no usable figures: no answer, its run threw, or the strategy failed part-way. */
export function answerError(a: SweepAnswer | undefined, r: SweepFigures | undefined): string | undefined {
  if (a === undefined) return 'no answer';
  if (!a.ok) return a.error;
  return r !== undefined && r.failures.length > 0 ? r.failures.map(failureText).join('; ') : undefined;
}
