/**
 * The working side of a queue sweep: takes jobs from the queue and runs each on a worker thread
 * (the embedded pool's code, so the result is the same, and this thread stays free to renew its
 * job locks), kept warm from job to job. Before a run it checks the job against this machine: the same engine (kancil's code,
 * engineHash.ts), and the same data, latency and strategy files. A job it cannot run is handed
 * back, not failed: it goes back to the queue a second later for another worker, uses none of its
 * attempts, and the reason is said once per kind in this worker's log and recorded in the job's
 * log for the enqueuing side; the refusing worker then takes no job for a while (1 s, doubling
 * with each refusal in a row, at most 30 s). A worker that
 * dies holds its job only until its lock expires: a live worker's stalled check then puts it back.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import { SweepThreads } from '../sweepThreads.js';
import { KEEP_SECONDS, QUEUE_NAME, QUEUE_PREFIX, ranByText, redisOptions, type QueueJobData, type QueueJobResult, type RanBy } from './connection.js';
import { engineText, type EngineId } from './engineHash.js';
import { fileIdentity } from './jobKey.js';
import { sourceHash } from './sourceHash.js';
import { redactRedisUrls, type RedisTarget } from './redisUrl.js';

/** How a queue worker runs. */
export interface QueueWorkerOptions {
  readonly target: RedisTarget;
  /** This process's engine: a job of another engine is handed back. */
  readonly engine: EngineId;
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

/** Why this worker cannot run a job: `kind` groups reasons that are said once (an engine, a file). */
interface Refusal {
  readonly kind: string;
  readonly reason: string;
}

/** Why this machine cannot run `data`, or undefined when it can. */
function refusalOf(data: QueueJobData, engine: EngineId): Refusal | undefined {
  const host = os.hostname();
  if (data.engine.hash !== engine.hash) return { kind: `engine ${data.engine.hash}`, reason: `the sweep was enqueued by ${engineText(data.engine)}, worker ${host} runs ${engineText(engine)}` };
  for (const f of data.files) {
    if (!existsSync(f.path)) return { kind: `file ${f.path}`, reason: `data file ${f.path} is missing on worker ${host}` };
    const mine = fileIdentity(f.path);
    if (mine.sha256 !== f.sha256) return { kind: `file ${f.path}`, reason: `data file ${f.path} on worker ${host} differs from the one the sweep was enqueued with (${mine.bytes} bytes here, ${f.bytes} there${mine.bytes === f.bytes ? ', other content' : ''})` };
  }
  if (!existsSync(data.plugin.path)) return { kind: `file ${data.plugin.path}`, reason: `strategy ${data.plugin.path} is missing on worker ${host}` };
  if (sourceHash(data.plugin.path) !== data.plugin.hash) return { kind: `file ${data.plugin.path}`, reason: `strategy ${data.plugin.path} (or a module it imports) on worker ${host} differs from the one the sweep was enqueued with` };
  return undefined;
}

/** How long a handed-back job waits before it is offered again (to any worker). */
const HAND_BACK_MS = 1000;

/** How long a worker takes no job after refusing `inRow` + 1 in a row: 1 s, doubling, at most 30 s. */
export function handBackDelayMs(inRow: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(5, Math.max(0, inRow)));
}

/** Starts a worker on the queue at `opts.target`. */
export function startQueueWorker(opts: QueueWorkerOptions): QueueWorker {
  const running = new Map<string, { job: Job<QueueJobData, QueueJobResult>; token: string | undefined }>();
  const me: RanBy = { host: os.hostname(), pid: process.pid, engine: opts.engine.hash };
  // Kinds of refusal already logged: a wrong engine is one line, not one per job.
  const said = new Set<string>();
  // A worker that refuses jobs takes none for a while (this worker only: BullMQ's pause is local), so
  // the workers that can run them get them, rather than racing this one for every job handed back.
  let refusedInRow = 0;
  let resumeTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  const backOff = (): void => {
    if (resumeTimer !== undefined || stopping) return;
    void worker.pause(true).catch(() => undefined);
    resumeTimer = setTimeout(() => {
      resumeTimer = undefined;
      if (!stopping) worker.resume();
    }, handBackDelayMs(refusedInRow - 1));
  };
  const stop = (): void => {
    stopping = true;
    clearTimeout(resumeTimer);
    resumeTimer = undefined;
  };
  // One warm thread per concurrent job, kept across jobs; terminated on release (the jobs already back in the queue) or close.
  const threads = new SweepThreads(opts.concurrency);
  let released = false;
  const work = async (job: Job<QueueJobData, QueueJobResult>, token?: string): Promise<QueueJobResult> => {
    const data = job.data;
    const id = job.id ?? '?';
    const attempt = `attempt ${job.attemptsMade + 1}/${job.opts.attempts ?? 1}`;
    const refusal = refusalOf(data, opts.engine);
    if (refusal !== undefined) {
      refusedInRow++;
      if (!said.has(refusal.kind)) {
        said.add(refusal.kind);
        opts.log(`handing back jobs this worker cannot run (said once; the next ones of this kind are handed back quietly): job ${id}: ${refusal.reason}`);
      }
      // The enqueuing side reads this when nothing finishes, to say why.
      await job.log(`handed back by ${ranByText(me)}: ${refusal.reason}`);
      await job.moveToDelayed(Date.now() + HAND_BACK_MS, token);
      backOff();
      throw new DelayedError();
    }
    refusedInRow = 0;
    opts.log(`job ${id} started (${attempt}): ${data.label}`);
    const t0 = Date.now();
    running.set(id, { job, token });
    try {
      const answer = await threads.run(data.job);
      if (released) throw new Error('released to the queue');
      if (!answer.ok) {
        const error = answer.error;
        opts.log(`job ${id} failed (${attempt}) after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${error}`);
        throw new Error(error);
      }
      opts.log(`job ${id} completed in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${data.label}`);
      return { result: answer.result, ranBy: me };
    } finally {
      running.delete(id);
    }
  };
  const worker = new Worker<QueueJobData, QueueJobResult>(QUEUE_NAME, work, {
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
  opts.log(`worker on ${opts.target.display} (${os.hostname()} pid ${process.pid}, ${engineText(opts.engine)}, ${opts.concurrency} at once, lock ${opts.lockMs} ms, stalled check every ${opts.stalledMs} ms)`);
  return {
    close: async () => {
      stop();
      await worker.close();
      await threads.terminate();
    },
    release: async () => {
      for (const [id, r] of running) {
        try {
          await r.job.moveToWait(r.token);
          opts.log(`job ${id} released to the queue`);
        } catch (err) {
          opts.log(`job ${id} could not be released (${(err as Error).message}); it is retried when its lock expires`);
        }
      }
      released = true;
      stop();
      await threads.terminate();
      await worker.close(true);
    },
  };
}
