/**
 * The working side of a queue sweep: takes jobs from the queue and runs each on a worker thread
 * (the embedded pool's, so the result is the same and this thread stays free to renew its job
 * locks). Before a run it checks the job against this machine: the same kancil version (else the
 * job fails for good, the reason naming both), and the same data files and strategy source (else
 * it fails this attempt, and another worker may take the next). A worker that dies holds its job
 * only until its lock expires: a live worker's stalled check then puts the job back.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { runJobs } from '../sweepPool.js';
import { KEEP_SECONDS, QUEUE_NAME, QUEUE_PREFIX, redisOptions, type QueueJobData } from './connection.js';
import { fileIdentity } from './jobKey.js';
import { sourceHash } from './sourceHash.js';
import { redactRedisUrls, type RedisTarget } from './redisUrl.js';

/** How a queue worker runs. */
export interface QueueWorkerOptions {
  readonly target: RedisTarget;
  readonly version: string;
  /** Jobs run at once (each on its own thread). */
  readonly concurrency: number;
  /** How long a job's lock lasts without renewal (ms); a dead worker's job is free again after it. */
  readonly lockMs: number;
  /** How often this worker looks for stalled jobs (ms). */
  readonly stalledMs: number;
  readonly log: (line: string) => void;
}

/** A started worker. */
export interface QueueWorker {
  /** Stops taking jobs and waits for the running ones to finish. */
  close(): Promise<void>;
  /** Puts the running jobs back in the queue (for another worker) and stops at once. */
  release(): Promise<void>;
}

/** Why this machine cannot run `data`, or undefined when it can. */
function machineProblem(data: QueueJobData): string | undefined {
  for (const f of data.files) {
    if (!existsSync(f.path)) return `data file ${f.path} is missing on worker ${os.hostname()}`;
    const mine = fileIdentity(f.path);
    if (mine.size !== f.size || mine.head !== f.head) return `data file ${f.path} on worker ${os.hostname()} differs from the one the sweep was enqueued with (${mine.size} bytes here, ${f.size} there${mine.size === f.size ? ', other content' : ''})`;
  }
  if (!existsSync(data.plugin.path)) return `strategy ${data.plugin.path} is missing on worker ${os.hostname()}`;
  if (sourceHash(data.plugin.path) !== data.plugin.hash) return `strategy ${data.plugin.path} (or a module it imports) on worker ${os.hostname()} differs from the one the sweep was enqueued with`;
  return undefined;
}

/** Starts a worker on the queue at `opts.target`. */
export function startQueueWorker(opts: QueueWorkerOptions): QueueWorker {
  const running = new Map<string, { job: Job<QueueJobData, string>; token: string | undefined }>();
  // Aborted on release: the running threads stop, their jobs already back in the queue.
  const released = new AbortController();
  const work = async (job: Job<QueueJobData, string>, token?: string): Promise<string> => {
    const data = job.data;
    const id = job.id ?? '?';
    const attempt = `attempt ${job.attemptsMade + 1}/${job.opts.attempts ?? 1}`;
    if (data.version !== opts.version) {
      opts.log(`job ${id} refused: kancil ${data.version} job, this worker runs ${opts.version}`);
      throw new UnrecoverableError(`kancil version mismatch: the sweep was enqueued by kancil ${data.version}, worker ${os.hostname()} runs kancil ${opts.version}; run workers of the enqueuing version`);
    }
    const problem = machineProblem(data);
    if (problem !== undefined) {
      opts.log(`job ${id} failed (${attempt}): ${problem}`);
      throw new Error(problem);
    }
    opts.log(`job ${id} started (${attempt}): ${data.label}`);
    const t0 = Date.now();
    running.set(id, { job, token });
    try {
      const [answer] = await runJobs([data.job], 1, undefined, released.signal);
      if (released.signal.aborted) throw new Error('released to the queue');
      if (answer === undefined || !answer.ok) {
        const error = answer === undefined ? 'no answer from the worker thread' : answer.error;
        opts.log(`job ${id} failed (${attempt}) after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${error}`);
        throw new Error(error);
      }
      opts.log(`job ${id} completed in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${data.label}`);
      return answer.result;
    } finally {
      running.delete(id);
    }
  };
  const worker = new Worker<QueueJobData, string>(QUEUE_NAME, work, {
    connection: redisOptions(opts.target),
    prefix: QUEUE_PREFIX,
    concurrency: opts.concurrency,
    lockDuration: opts.lockMs,
    stalledInterval: opts.stalledMs,
    // A job whose worker died twice is failed, not retried forever (it may be what kills them).
    maxStalledCount: 2,
    removeOnComplete: { age: KEEP_SECONDS },
    removeOnFail: { age: KEEP_SECONDS },
  });
  let lastError = '';
  worker.on('error', (err) => {
    const msg = redactRedisUrls(err.message);
    if (msg !== lastError) opts.log(`queue ${opts.target.display}: ${msg}`);
    lastError = msg;
  });
  opts.log(`worker on ${opts.target.display} (${os.hostname()}, kancil ${opts.version}, ${opts.concurrency} at once, lock ${opts.lockMs} ms, stalled check every ${opts.stalledMs} ms)`);
  return {
    close: () => worker.close(),
    release: async () => {
      for (const [id, r] of running) {
        try {
          await r.job.moveToWait(r.token);
          opts.log(`job ${id} released to the queue`);
        } catch (err) {
          opts.log(`job ${id} could not be released (${(err as Error).message}); it is retried when its lock expires`);
        }
      }
      released.abort();
      await worker.close(true);
    },
  };
}
