/**
 * Worker thread of a sweep: runs single backtests for the points it is sent and posts back the
 * strategy's metrics. Started with `--import tsx` so it runs the TypeScript sources directly.
 */
import { parentPort } from 'node:worker_threads';
import { runBacktest } from './Backtest.js';
import { loadBacktestConfig } from './config.js';
import { timeBoundMs } from '../config/timeBound.js';

/** A job: one grid point. */
export interface SweepJob {
  readonly index: number;
  readonly configFile: string;
  readonly strategy: string;
  readonly params: Record<string, unknown>;
  /** Run on this part of the data only (an out-of-sample split): backtest.start / backtest.end overrides. */
  readonly window?: { readonly start?: number; readonly end?: number };
}

/** A job's answer. */
export type SweepAnswer = { readonly index: number; readonly ok: true; readonly result: string } | { readonly index: number; readonly ok: false; readonly error: string };

parentPort?.on('message', (job: SweepJob | null) => {
  if (job === null) {
    parentPort?.close();
    return;
  }
  void (async () => {
    let answer: SweepAnswer;
    try {
      const loaded = loadBacktestConfig(job.configFile);
      const w = job.window;
      // The window narrows the config's own start and end, never widens them.
      const own = { start: loaded.backtest.start === undefined ? -Infinity : timeBoundMs(loaded.backtest.start), end: loaded.backtest.end === undefined ? Infinity : timeBoundMs(loaded.backtest.end) };
      const cfg = w === undefined ? loaded : { ...loaded, backtest: { ...loaded.backtest, ...(w.start !== undefined ? { start: Math.max(w.start, own.start) } : {}), ...(w.end !== undefined ? { end: Math.min(w.end, own.end) } : {}) } };
      const result = await runBacktest(cfg, { paramOverrides: { [job.strategy]: job.params }, writeOutput: false });
      // Serialized here so the parent compares exactly what a single run would write.
      answer = { index: job.index, ok: true, result: JSON.stringify(result) };
    } catch (err) {
      answer = { index: job.index, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    parentPort?.postMessage(answer);
  })();
});
