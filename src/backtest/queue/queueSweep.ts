/**
 * The gathering side of a queue sweep: enqueues each job of a sweep under its idempotent id (one
 * already there is found, not added again; a failed one is retried), waits for the workers, and
 * answers the sweep with the results they stored, so the report is written exactly as for the
 * embedded pool. With `gatherOnly` nothing is enqueued: the answers are what the queue holds.
 */
import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { NetworkError } from '../../core/errors.js';
import { readConfigText } from '../../config/yamlFile.js';
import { resolvePlugin } from '../../strategy/loader.js';
import type { BacktestConfig } from '../config.js';
import { recordingFiles, type JobRunner, type SweepAnswer } from '../sweepJob.js';
import { inputPaths } from '../provenance.js';
import { jobLabel, KEEP_SECONDS, QUEUE_NAME, QUEUE_PREFIX, ranByText, redisOptions, type QueueJobData, type QueueJobResult } from './connection.js';
import { engineId, type EngineId } from './engineHash.js';
import { fileIdentity, queueJobId, type FileIdentity } from './jobKey.js';
import { FinishedJobs } from './finishedJobs.js';
import { inspectJobs, type QueueAction } from './queueInspect.js';
import { sourceHash } from './sourceHash.js';
import { passwordWarning, redactRedisUrls, type RedisTarget } from './redisUrl.js';

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
/** Silence after which the gathering side says what the queue is doing. */
const QUIET_MS = 30_000;

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

/** A runner that sends a sweep's jobs of `cfg` through the queue at `opts.target`. */
export function queueSweep(cfg: BacktestConfig, opts: QueueSweepOptions): QueueSweep {
  // Our own connection, so a close can always end it (BullMQ's own waits for a Redis that may be gone).
  const client = new Redis({ ...redisOptions(opts.target), maxRetriesPerRequest: null });
  const queue = new Queue<QueueJobData, QueueJobResult>(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
  const warning = passwordWarning(opts.target);
  if (warning !== undefined) opts.log(`warning: ${warning}`);
  // Finished jobs are announced on the queue's event stream; read from when this sweep starts.
  const events = new QueueEvents(QUEUE_NAME, { connection: redisOptions(opts.target), prefix: QUEUE_PREFIX });
  const finished = new FinishedJobs(events);
  let lastError = '';
  const onError = (err: Error): void => {
    const msg = redactRedisUrls(err.message);
    if (msg !== lastError) opts.log(`queue ${opts.target.display}: ${msg}`);
    lastError = msg;
  };
  queue.on('error', onError);
  events.on('error', onError);
  const engine = opts.engine ?? engineId();
  const recordings = recordingFiles(cfg);
  // Every file the config reads but the strategy's (hashed with its imports): recordings, candles, latency files.
  const inputs = inputPaths(cfg, new Map());
  const allFiles = inputs.map((i) => i.path);
  const otherFiles = inputs.filter((i) => i.role !== 'backtest.recordings').map((i) => i.path);
  // Read when the first jobs are sent: the sweep has checked the files exist by then.
  let read: { configText: string; identities: Map<string, FileIdentity> } | undefined;
  const files = (): { configText: string; identities: Map<string, FileIdentity> } => (read ??= { configText: readConfigText(cfg.file), identities: new Map(allFiles.map((f) => [f, fileIdentity(f)])) });
  const plugins = new Map<string, { path: string; hash: string }>();
  const pluginOf = (strategy: string): { path: string; hash: string } => {
    let p = plugins.get(strategy);
    if (p === undefined) {
      const spec = cfg.strategies.find((s) => s.name === strategy);
      if (spec === undefined) throw new RangeError(`strategy ${JSON.stringify(strategy)} is not in ${cfg.file}`);
      const file = resolvePlugin(spec.plugin, cfg.dir);
      p = { path: file, hash: sourceHash(file) };
      plugins.set(strategy, p);
    }
    return p;
  };
  // Ids of jobs a --cancel removed, so a command waiting for them stops rather than adding them again.
  const cancelledKey = `${QUEUE_PREFIX}:${QUEUE_NAME}:cancelled`;
  const markCancelled = async (ids: string[]): Promise<void> => {
    if (ids.length === 0) return;
    await client.sadd(cancelledKey, ...ids);
    await client.expire(cancelledKey, KEEP_SECONDS);
  };
  let reused = 0;
  // What --status and --cancel found and did, one entry per runner call (a walk-forward makes several).
  const said: string[] = [];
  const scanMs = opts.scanMs ?? 10_000;
  const keep = { age: KEEP_SECONDS };
  // A failed attempt is retried after a second. Every job has a priority (one without would go before all that have one: see fairPriority).
  const jobOpts = (jobId: string, priority: number) => ({ jobId, priority, attempts: opts.attempts ?? 3, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: keep, removeOnFail: keep, keepLogs: 20 });

  // ioredis holds requests while it reconnects; a Redis that stays away ends the wait with a sentence.
  const deadline = async <T>(p: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const ms = opts.redisTimeoutMs ?? 60_000;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NetworkError(opts.target.display, `no answer from Redis for ${ms / 1000} s${lastError === '' ? '' : ` (${lastError})`}; enqueued jobs stay in the queue: run the same command again to gather them`)), ms);
    });
    try {
      return await Promise.race([p, late]);
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

  const runner: JobRunner = async (jobs, onDone) => {
    const answers: (SweepAnswer | undefined)[] = jobs.map(() => undefined);
    // Equal jobs share one id (and one run); each answers every index it stands for.
    const byId = new Map<string, { data: QueueJobData; indexes: number[] }>();
    const { configText, identities } = files();
    jobs.forEach((job, i) => {
      const recording = job.recording === undefined ? undefined : recordings[job.recording]?.file;
      const files = (recording === undefined ? allFiles : [recording, ...otherFiles]).map((f) => identities.get(f) as FileIdentity);
      const plugin = pluginOf(job.strategy);
      const id = queueJobId(job, { config: cfg, plugin: plugin.hash, files, engine: engine.hash });
      const entry = byId.get(id) ?? { data: { job: { ...job, index: 0, configText }, engine, files, plugin, label: jobLabel(job, recording) }, indexes: [] };
      entry.indexes.push(i);
      byId.set(id, entry);
    });
    // Listening before the first state is read: a job that finishes in between is announced, not missed.
    await deadline(events.waitUntilReady());
    const pending = new Set(byId.keys());
    let done = 0;
    const settle = (id: string, answer: (index: number) => SweepAnswer): void => {
      pending.delete(id);
      for (const i of byId.get(id)?.indexes ?? []) {
        answers[i] = answer(i);
        onDone(++done, jobs.length);
      }
    };
    const collect = async (id: string, state: string): Promise<boolean> => {
      if (state !== 'completed' && state !== 'failed') return false;
      const job = await deadline(Job.fromId<QueueJobData, QueueJobResult>(queue, id));
      if (job === undefined) return false;
      if (state === 'completed') settle(id, (index) => ({ index, ok: true, result: job.returnvalue.result, ranBy: ranByText(job.returnvalue.ranBy) }));
      else settle(id, (index) => ({ index, ok: false, error: `${job.failedReason || 'failed'} (after ${job.attemptsMade} attempt${job.attemptsMade === 1 ? '' : 's'})` }));
      return true;
    };

    // What is already there: finished jobs are answers now; failed ones run again unless only gathering.
    let retried = 0;
    const initial = await statesOf([...byId.keys()]);
    if (opts.action !== undefined) {
      for (const [id, state] of initial) await collect(id, state);
      said.push(await deadline(inspectJobs(queue, initial, opts.action, opts.target.display, markCancelled)));
      return answers;
    }
    for (const [id, state] of initial) {
      if (state === 'completed') {
        if (await collect(id, state)) reused += byId.get(id)?.indexes.length ?? 0;
      } else if (state === 'failed') {
        if (opts.gatherOnly) await collect(id, state);
        else {
          await deadline((async () => (await Job.fromId(queue, id))?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }))());
          retried++;
        }
      } else if (state === 'unknown' && opts.gatherOnly) {
        settle(id, (index) => ({ index, ok: false, error: `not in the queue at ${opts.target.display}: never enqueued, or removed (finished jobs are kept ${KEEP_SECONDS / 86_400} days)` }));
      }
    }
    if (!opts.gatherOnly) {
      // Run again on purpose: a cancel of an earlier run no longer applies.
      if (pending.size > 0) await deadline(client.srem(cancelledKey, ...pending));
      // add() of an id that is already there (waiting, running) is a no-op in BullMQ: never a second run.
      const base = (await deadline(queue.getPrioritized(0, 0)))[0]?.priority ?? 1;
      await deadline(queue.addBulk([...pending].map((id, k) => ({ name: 'backtest', data: (byId.get(id) as { data: QueueJobData }).data, opts: jobOpts(id, fairPriority(base, k)) }))));
    }
    opts.log(`queue ${opts.target.display}: ${byId.size} job${byId.size === 1 ? '' : 's'}, ${byId.size - pending.size} finished already${retried > 0 ? `, ${retried} failed before and retried` : ''}${opts.gatherOnly || pending.size === 0 ? '' : `; waiting for workers (kancil worker --queue ${opts.target.display})`}`);

    let quietSince = Date.now();
    while (pending.size > 0) {
      const announced = (await finished.next(scanMs)).filter((id) => pending.has(id));
      const before = pending.size;
      // An announced job is read once; with none for scanMs, every unfinished one is (see scanMs).
      const states = announced.length > 0 ? await statesOf(announced) : await statesOf([...pending]);
      for (const [id, state] of states) {
        // A job removed meanwhile (by hand, or its keep time passed) is added again rather than waited for.
        if (state === 'unknown' && !opts.gatherOnly) {
          if ((await deadline(client.sismember(cancelledKey, id))) === 1) settle(id, (index) => ({ index, ok: false, error: 'cancelled (kancil backtest … --queue … --cancel)' }));
          else await deadline(queue.add('backtest', (byId.get(id) as { data: QueueJobData }).data, jobOpts(id, 1)));
        } else await collect(id, state);
      }
      if (pending.size < before) quietSince = Date.now();
      else if (Date.now() - quietSince >= QUIET_MS) {
        const counts = await deadline(queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed'));
        // A worker that cannot run a job says why in the job's log: the latest word of one unfinished job.
        const first = pending.values().next().value;
        const last = first === undefined ? undefined : (await deadline(queue.getJobLogs(first, 0, 0, false))).logs[0];
        opts.log(`queue ${opts.target.display}: ${pending.size} jobs of this sweep unfinished; queue has ${(counts.waiting ?? 0) + (counts.prioritized ?? 0)} waiting, ${counts.active ?? 0} running, ${counts.delayed ?? 0} waiting to retry${(counts.active ?? 0) === 0 ? ' (is a worker running?)' : ''}${last === undefined ? '' : `; last word on job ${first}: ${last}`}`);
        quietSince = Date.now();
      }
    }
    return answers;
  };
  return {
    runner,
    reused: () => reused,
    status: () => said.join('\n'),
    // A Redis that is gone would hold a graceful close as long as it holds requests.
    close: async () => {
      await Promise.race([Promise.all([queue.close().catch(() => undefined), events.close().catch(() => undefined)]), new Promise<void>((r) => setTimeout(r, 5000).unref())]);
      client.disconnect();
      await events.disconnect().catch(() => undefined);
    },
  };
}
