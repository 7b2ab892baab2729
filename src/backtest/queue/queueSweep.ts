/**
 * The gathering side of a queue sweep: enqueues each job of a sweep under its idempotent id (one
 * already there is found, not added again; a failed one is retried), waits for the workers, and
 * answers the sweep with the results they stored, so the report is written exactly as for the
 * embedded pool. With `gatherOnly` nothing is enqueued: the answers are what the queue holds.
 */
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { NetworkError } from '../../core/errors.js';
import type { BacktestConfig } from '../config.js';
import type { JobRunner } from '../sweepJob.js';
import { KEEP_SECONDS, QUEUE_NAME, QUEUE_PREFIX, redisOptions, type QueueJobData, type QueueJobResult } from './connection.js';
import { engineId, type EngineId } from './engineHash.js';
import { FinishedJobs } from './finishedJobs.js';
import { inspectJobs, type QueueAction } from './queueInspect.js';
import { passwordWarning, redactRedisUrls, type RedisTarget } from './redisUrl.js';
import { sweepJobIds } from './sweepJobIds.js';
import { SweepRun, type SweepQueue } from './sweepRun.js';

/** How a queue sweep runs. */
export interface QueueSweepOptions {
  readonly target: RedisTarget;
  /** The engine: part of every job id, and checked by each worker. Default: this process's (engineId()). */
  readonly engine?: EngineId;
  /** Only collect what the queue holds; a job that is not there is answered as missing. */
  readonly gatherOnly?: boolean;
  /** Only say what the queue holds of the sweep (`status`), or also remove its jobs not started (`cancel`); enqueue and wait for nothing. */
  readonly action?: QueueAction;
  /** Attempts of a job that fails (a worker that dies does not use one: its job is retried as stalled). Default 3. */
  readonly attempts?: number;
  /**
   * While no job of the sweep finishes, how often the states of its unfinished jobs are read all
   * the same (ms): an event missed over a reconnect, a job removed by hand. Default 10000.
   */
  readonly scanMs?: number;
  /** How long Redis may leave a request unanswered (down, unreachable) before the sweep gives up (ms). Default 60000. */
  readonly redisTimeoutMs?: number;
  /** Status lines (what was enqueued, what the workers are doing while nothing finishes). */
  readonly log: (line: string) => void;
}

/** A queue sweep's runner and its end. */
export interface QueueSweep {
  readonly runner: JobRunner;
  /** Jobs found finished in the queue rather than run now (a re-gather finds all of them). */
  readonly reused: () => number;
  /** With `action`: what the queue holds of the sweep, and what a cancel removed. */
  readonly status: () => string;
  close(): Promise<void>;
}

/** Job states asked for at once. */
const STATE_BATCH = 500;
/** BullMQ's lowest priority (the largest number it takes). */
const LOWEST_PRIORITY = 2_097_152;

/**
 * The priority of a sweep's k-th job when the next job the workers will take has priority `base`.
 * Jobs of equal priority are taken in the order they were added, so a sweep enqueued while another
 * runs takes turns with it, job for job, instead of waiting for all of it (one FIFO for every
 * sweep let one large sweep hold the machines for hours).
 */
export function fairPriority(base: number, k: number): number {
  return Math.min(LOWEST_PRIORITY, Math.max(1, base) + k);
}

/**
 * Redis requests with a deadline: ioredis holds requests while it reconnects; a Redis that stays
 * away ends the wait with a sentence. Once `closing` rejects (the queue is closed while a wait is
 * under way, as a Ctrl-C does), every request ends with it rather than at its deadline.
 */
function requestsOf(queue: Queue<QueueJobData, QueueJobResult>, opts: QueueSweepOptions, lastError: () => string, closing: Promise<never>): Pick<SweepQueue, 'deadline' | 'statesOf'> {
  const deadline = async <T>(p: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const ms = opts.redisTimeoutMs ?? 60_000;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NetworkError(opts.target.display, `no answer from Redis for ${ms / 1000} s${lastError() === '' ? '' : ` (${lastError()})`}; enqueued jobs stay in the queue: run the same command again to gather them`)), ms);
    });
    try {
      return await Promise.race([p, late, closing]);
    } finally {
      clearTimeout(timer);
    }
  };
  // Many requests in flight at once share one connection's pipeline: a poll of thousands of jobs is a few round trips.
  const statesOf = async (ids: readonly string[]): Promise<[string, string][]> => {
    const out: [string, string][] = [];
    for (let i = 0; i < ids.length; i += STATE_BATCH) {
      const batch = ids.slice(i, i + STATE_BATCH);
      const states = await deadline(Promise.all(batch.map((id) => queue.getJobState(id))));
      batch.forEach((id, k) => out.push([id, states[k] as string]));
    }
    return out;
  };
  return { deadline, statesOf };
}

/** A runner that sends a sweep's jobs of `cfg` through the queue at `opts.target`. */
export function queueSweep(cfg: BacktestConfig, opts: QueueSweepOptions): QueueSweep {
  // Our own connection, so a close can always end it (BullMQ's own waits for a Redis that may be gone).
  const client = new Redis({ ...redisOptions(opts.target), maxRetriesPerRequest: null });
  const queue = new Queue<QueueJobData, QueueJobResult>(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
  const warning = passwordWarning(opts.target);
  if (warning !== undefined) opts.log(`warning: ${warning}`);
  // Finished jobs are announced on the queue's event stream; read from when this sweep starts.
  const events = new QueueEvents(QUEUE_NAME, { connection: redisOptions(opts.target), prefix: QUEUE_PREFIX });
  let lastError = '';
  const onError = (err: Error): void => {
    const msg = redactRedisUrls(err.message);
    if (msg !== lastError) opts.log(`queue ${opts.target.display}: ${msg}`);
    lastError = msg;
  };
  queue.on('error', onError);
  events.on('error', onError);
  const engine = opts.engine ?? engineId();
  const jobIds = sweepJobIds(cfg, engine);
  const keep = { age: KEEP_SECONDS };
  let closeRequests: (err: Error) => void = () => undefined;
  const closing = new Promise<never>((_, reject) => (closeRequests = reject));
  closing.catch(() => undefined);
  const q: SweepQueue = {
    queue,
    client,
    finished: new FinishedJobs(events),
    display: opts.target.display,
    gatherOnly: opts.gatherOnly === true,
    scanMs: opts.scanMs ?? 10_000,
    // Ids of jobs a --cancel removed, so a command waiting for them stops rather than adding them again.
    cancelledKey: `${QUEUE_PREFIX}:${QUEUE_NAME}:cancelled`,
    log: opts.log,
    ...requestsOf(queue, opts, () => lastError, closing),
    // A failed attempt is retried after a second. Every job has a priority (one without would go before all that have one: see fairPriority).
    jobOpts: (jobId, priority) => ({ jobId, priority, attempts: opts.attempts ?? 3, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: keep, removeOnFail: keep, keepLogs: 20 }),
    priority: fairPriority,
  };
  const markCancelled = async (ids: string[]): Promise<void> => {
    if (ids.length === 0) return;
    await client.sadd(q.cancelledKey, ...ids);
    await client.expire(q.cancelledKey, KEEP_SECONDS);
  };
  let reused = 0;
  // What --status and --cancel found and did, one entry per runner call (a walk-forward makes several).
  const said: string[] = [];

  const runner: JobRunner = async (jobs, onDone) => {
    const byId = jobIds(jobs);
    // Listening before the first state is read: a job that finishes in between is announced, not missed.
    await q.deadline(events.waitUntilReady());
    const run = new SweepRun(q, byId, jobs.length, onDone);
    const initial = await q.statesOf([...byId.keys()]);
    if (opts.action !== undefined) {
      for (const [id, state] of initial) await run.collect(id, state);
      said.push(await q.deadline(inspectJobs(queue, initial, opts.action, opts.target.display, markCancelled)));
      return run.answers;
    }
    const found = await run.takeFinished(initial);
    reused += found.reused;
    if (!q.gatherOnly) await run.enqueuePending();
    const { pending } = run;
    opts.log(`queue ${opts.target.display}: ${byId.size} job${byId.size === 1 ? '' : 's'}, ${byId.size - pending.size} finished already${found.retried > 0 ? `, ${found.retried} failed before and retried` : ''}${q.gatherOnly || pending.size === 0 ? '' : `; waiting for workers (kancil worker --queue ${opts.target.display})`}`);
    await run.waitForWorkers();
    return run.answers;
  };
  return {
    runner,
    reused: () => reused,
    status: () => said.join('\n'),
    // A Redis that is gone would hold a graceful close as long as it holds requests.
    close: async () => {
      closeRequests(new Error(`queue ${opts.target.display}: closed`));
      q.finished.close();
      await Promise.race([Promise.all([queue.close().catch(() => undefined), events.close().catch(() => undefined)]), new Promise<void>((r) => setTimeout(r, 5000).unref())]);
      client.disconnect();
      await events.disconnect().catch(() => undefined);
    },
  };
}
