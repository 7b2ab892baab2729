/**
 * Worker thread of a sweep: runs single backtests for the jobs it is sent and posts back their
 * answers. Started through sweepWorkerEntry.mjs (tsx) from the sources, directly when compiled.
 */
import { parentPort } from 'node:worker_threads';
import { runSweepJob, type SweepJob } from './sweepJob.js';

parentPort?.on('message', (job: SweepJob | null) => {
  if (job === null) {
    parentPort?.close();
    return;
  }
  void runSweepJob(job).then((answer) => parentPort?.postMessage(answer));
});
