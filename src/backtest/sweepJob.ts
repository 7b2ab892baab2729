/**
 * One sweep job run to its answer: the same single backtest whether a worker thread of the
 * embedded pool or a queue worker on another machine runs it.
 */
import { runBacktest } from './Backtest.js';
import type { BacktestResult } from './result.js';
import { streamsOf } from './resultStreams.js';
import type { Moments } from './overfitting.js';
import { returnSlices } from './returnSlices.js';
import { loadBacktestConfig, parseBacktestConfigText, type BacktestConfig } from './config.js';
import { timeBoundMs } from '../config/timeBound.js';
import { tradeFigures, type TradeFigures } from './sweepObjective.js';
import { curvePoints, type CurvePoint } from './equityCurve.js';

/** A job: one grid point (on one recording, when a sweep runs its recordings separately). */
export interface SweepJob {
  readonly index: number;
  readonly configFile: string;
  /** The config's YAML text, when the job travels to another machine (read as if at configFile); else configFile is read. */
  readonly configText?: string;
  readonly strategy: string;
  readonly params: Record<string, unknown>;
  /** Run on this part of the data only (an out-of-sample split): backtest.start / backtest.end overrides. */
  readonly window?: { readonly start?: number; readonly end?: number };
  /** Replay only this recording file (index into the config's recording files), not all of them. */
  readonly recording?: number;
  /**
   * Answer with the whole result (fills, samples, orders: what a single run's result.json holds),
   * not only the figures a sweep ranks on. For checks against single runs; a long run's whole
   * result is tens of MB per point, which a sweep of hundreds of points cannot hold.
   */
  readonly full?: boolean;
  /** Answer with the strategy's equity curve too, thinned to this many points (a walk-forward window's, to stitch). */
  readonly curve?: number;
}

/**
 * What a sweep reads of each point's run: its strategies' figures, why any stopped, and the swept
 * strategy's returns per time slice (for the probability of overfitting: returnSlices.ts).
 */
export type SweepFigures = Pick<BacktestResult, 'strategies' | 'failures'> & {
  readonly returnSlices?: readonly Moments[];
  /** The swept strategy's tearsheet scalars (what an objective beyond the strategy's figures reads). */
  readonly trade?: TradeFigures;
  /** With `curve` in the job: the swept strategy's equity, thinned. */
  readonly curve?: readonly CurvePoint[];
};

/** A job's answer: `result` is the JSON of {@link SweepFigures}, or of the whole result with `full`. */
export type SweepAnswer = ({ readonly index: number; readonly ok: true; readonly result: string } | { readonly index: number; readonly ok: false; readonly error: string }) & {
  /** Which queue worker ran it (host, pid); absent on the embedded pool. */
  readonly ranBy?: string;
};

/** The recording files of a config, in the order `SweepJob.recording` indexes them. */
export function recordingFiles(cfg: BacktestConfig): { symbol: string; file: string }[] {
  return cfg.backtest.recordings.flatMap((r) => r.files.map((file) => ({ symbol: r.symbol, file })));
}

/** The config a job runs: its window narrows the config's own start and end (never widens them); its recording replaces the config's. */
export function jobConfig(job: SweepJob): BacktestConfig {
  const loaded = job.configText === undefined ? loadBacktestConfig(job.configFile) : parseBacktestConfigText(job.configText, job.configFile);
  const w = job.window;
  const own = { start: loaded.backtest.start === undefined ? -Infinity : timeBoundMs(loaded.backtest.start), end: loaded.backtest.end === undefined ? Infinity : timeBoundMs(loaded.backtest.end) };
  const windowed = w === undefined ? loaded : { ...loaded, backtest: { ...loaded.backtest, ...(w.start !== undefined ? { start: Math.max(w.start, own.start) } : {}), ...(w.end !== undefined ? { end: Math.min(w.end, own.end) } : {}) } };
  if (job.recording === undefined) return windowed;
  const one = recordingFiles(loaded)[job.recording];
  if (one === undefined) throw new RangeError(`recording ${job.recording} is not in ${job.configFile}`);
  return { ...windowed, backtest: { ...windowed.backtest, recordings: [{ symbol: one.symbol, files: [one.file] }] } };
}

/** Runs a job; a failure is an answer too, never a throw. */
export async function runSweepJob(job: SweepJob): Promise<SweepAnswer> {
  try {
    const result = await runBacktest(jobConfig(job), { paramOverrides: { [job.strategy]: job.params }, writeOutput: false });
    try {
      // Serialized here so the gathering side compares exactly what a single run would write.
      const slices = returnSlices(result, job.strategy);
      const trade = tradeFigures(result, job.strategy);
      const curve = job.curve === undefined ? undefined : curvePoints(result, job.strategy, job.curve);
      const figures: SweepFigures = { strategies: result.strategies, failures: result.failures, ...(slices !== undefined ? { returnSlices: slices } : {}), ...(trade !== undefined ? { trade } : {}), ...(curve !== undefined ? { curve } : {}) };
      return { index: job.index, ok: true, result: JSON.stringify(job.full === true ? result : figures) };
    } finally {
      // A long run's lists spill to temporary files: a worker runs many jobs before it exits.
      streamsOf(result).dispose();
    }
  } catch (err) {
    return { index: job.index, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Runs jobs somewhere (worker threads here, a queue's workers elsewhere) and resolves with their answers in job order. */
export type JobRunner = (jobs: readonly SweepJob[], onDone: (done: number, total: number) => void) => Promise<(SweepAnswer | undefined)[]>;
