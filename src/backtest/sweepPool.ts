/**
 * The worker pool of a sweep: runs backtest jobs on `workers` threads (default: one per core) and
 * answers each by its index. A worker that dies fails only the job it was running and is replaced.
 */
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { SweepAnswer, SweepJob } from './sweepJob.js';
import { startSweepThread } from './sweepThreads.js';

/** How a run of jobs is cut short (an interrupted sweep): `stop` starts no new job, `abandon` also ends the running ones. */
export interface JobSignals {
  readonly stop?: AbortSignal;
  readonly abandon?: AbortSignal;
}

/**
 * Runs `jobs` (indexed 0..n-1) and resolves with their answers in index order, once every thread
 * has exited. A job not started (after `stop`) or cut off (by `abandon`) has no answer (undefined).
 */
export async function runJobs(jobs: readonly SweepJob[], workers: number | undefined, onDone?: (done: number, total: number) => void, signals: JobSignals = {}): Promise<(SweepAnswer | undefined)[]> {
  const signal = signals.abandon;
  if (signals.stop?.aborted === true) return jobs.map(() => undefined);
  const n = Math.max(1, Math.min(workers ?? os.availableParallelism(), jobs.length));
  // Each thread listens for the abandon: more than Node's default 10 is no leak.
  if (signal !== undefined) setMaxListeners(n + 10, signal);
  const answers: (SweepAnswer | undefined)[] = jobs.map(() => undefined);
  let next = 0;
  let done = 0;
  const answer = (a: SweepAnswer): void => {
    if (answers[a.index] !== undefined) return;
    answers[a.index] = a;
    onDone?.(++done, jobs.length);
  };
  await new Promise<void>((resolve) => {
    let alive = 0;
    // A worker that dies (an uncaught error in it, out of memory) fails the point it was running
    // and is replaced while points remain: one bad point never takes the others with it.
    const start = (): void => {
      alive++;
      const worker = startSweepThread();
      let current: number | undefined;
      let crashed = false;
      const feed = (): void => {
        if (next >= jobs.length || signals.stop?.aborted === true) {
          current = undefined;
          worker.postMessage(null);
          return;
        }
        current = next++;
        worker.postMessage(jobs[current]);
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
      const stop = (): void => void worker.terminate();
      signal?.addEventListener('abort', stop, { once: true });
      worker.on('exit', (code) => {
        signal?.removeEventListener('abort', stop);
        if (current !== undefined && signal?.aborted !== true) answer({ index: current, ok: false, error: `worker exited with code ${code}` });
        alive--;
        if ((crashed || code !== 0) && next < jobs.length && signal?.aborted !== true && signals.stop?.aborted !== true) start();
        else if (alive === 0) resolve();
      });
      feed();
    };
    for (let w = 0; w < n; w++) start();
  });
  return answers;
}
