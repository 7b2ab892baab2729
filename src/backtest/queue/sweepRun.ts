/**
 * One call of a queue sweep's runner: answers the jobs the queue has finished, retries failed
 * ones, enqueues the rest with fair priorities, then waits for the workers, reading a job's state
 * when it is announced finished (or every unfinished one after a quiet while).
 */
import { Job, type JobsOptions, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SweepAnswer } from '../sweepJob.js';
import { KEEP_SECONDS, ranByText, type QueueJobData, type QueueJobResult } from './connection.js';
import type { FinishedJobs } from './finishedJobs.js';
import type { SweepEntry } from './sweepJobIds.js';

/** Silence after which the gathering side says what the queue is doing. */
const QUIET_MS = 30_000;

/** What every run of one sweep shares: the queue, its requests, and how the sweep runs. */
export interface SweepQueue {
  readonly queue: Queue<QueueJobData, QueueJobResult>;
  readonly client: Redis;
  readonly finished: FinishedJobs;
  /** The queue as the user named it (password redacted). */
  readonly display: string;
  readonly gatherOnly: boolean;
  readonly scanMs: number;
  /** The set of job ids a --cancel removed. */
  readonly cancelledKey: string;
  readonly log: (line: string) => void;
  /** Ends a request Redis leaves unanswered too long with a sentence. */
  deadline<T>(p: Promise<T>): Promise<T>;
  /** The states of these jobs, as [id, state]. */
  statesOf(ids: readonly string[]): Promise<[string, string][]>;
  /** The options of a job added with this id and priority. */
  jobOpts(jobId: string, priority: number): JobsOptions;
  /** The priority of the k-th job added when the next job taken has priority `base` (see fairPriority). */
  priority(base: number, k: number): number;
}

/** The answers of one runner call, filled in as jobs finish. */
export class SweepRun {
  readonly answers: (SweepAnswer | undefined)[];
  /** Ids not answered yet. */
  readonly pending: Set<string>;
  #done = 0;

  constructor(
    private readonly q: SweepQueue,
    private readonly byId: ReadonlyMap<string, SweepEntry>,
    total: number,
    private readonly onDone: (done: number, total: number) => void,
  ) {
    this.answers = Array.from({ length: total }, () => undefined);
    this.pending = new Set(byId.keys());
  }

  /** Answers every index a job stands for. */
  settle(id: string, answer: (index: number) => SweepAnswer): void {
    this.pending.delete(id);
    for (const i of this.byId.get(id)?.indexes ?? []) {
      this.answers[i] = answer(i);
      this.onDone(++this.#done, this.answers.length);
    }
  }

  /** Answers a finished job from what the queue stored; false when it is not finished (or gone). */
  async collect(id: string, state: string): Promise<boolean> {
    if (state !== 'completed' && state !== 'failed') return false;
    const job = await this.q.deadline(Job.fromId<QueueJobData, QueueJobResult>(this.q.queue, id));
    if (job === undefined) return false;
    if (state === 'completed') this.settle(id, (index) => ({ index, ok: true, result: job.returnvalue.result, ranBy: ranByText(job.returnvalue.ranBy) }));
    else this.settle(id, (index) => ({ index, ok: false, error: `${job.failedReason || 'failed'} (after ${job.attemptsMade} attempt${job.attemptsMade === 1 ? '' : 's'})` }));
    return true;
  }

  /**
   * What is already there: finished jobs are answers now; failed ones run again unless only
   * gathering, when a job the queue does not hold is answered as missing. Returns how many sweep
   * jobs were reused and how many queue jobs retried.
   */
  async takeFinished(initial: readonly [string, string][]): Promise<{ reused: number; retried: number }> {
    const { q } = this;
    let reused = 0;
    let retried = 0;
    for (const [id, state] of initial) {
      if (state === 'completed') {
        if (await this.collect(id, state)) reused += this.byId.get(id)?.indexes.length ?? 0;
      } else if (state === 'failed') {
        if (q.gatherOnly) await this.collect(id, state);
        else {
          await q.deadline((async () => (await Job.fromId(q.queue, id))?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }))());
          retried++;
        }
      } else if (state === 'unknown' && q.gatherOnly) {
        this.settle(id, (index) => ({ index, ok: false, error: `not in the queue at ${q.display}: never enqueued, or removed (finished jobs are kept ${KEEP_SECONDS / 86_400} days)` }));
      }
    }
    return { reused, retried };
  }

  /** Adds the unfinished jobs, taking turns with any sweep already queued. */
  async enqueuePending(): Promise<void> {
    const { q, pending } = this;
    // Run again on purpose: a cancel of an earlier run no longer applies.
    if (pending.size > 0) await q.deadline(q.client.srem(q.cancelledKey, ...pending));
    // add() of an id that is already there (waiting, running) is a no-op in BullMQ: never a second run.
    const base = (await q.deadline(q.queue.getPrioritized(0, 0)))[0]?.priority ?? 1;
    await q.deadline(q.queue.addBulk([...pending].map((id, k) => ({ name: 'backtest', data: this.#data(id), opts: q.jobOpts(id, q.priority(base, k)) }))));
  }

  /** Waits until every job is answered, saying what the queue does while none finishes. */
  async waitForWorkers(): Promise<void> {
    const { q, pending } = this;
    let quietSince = Date.now();
    while (pending.size > 0) {
      const announced = (await q.finished.next(q.scanMs)).filter((id) => pending.has(id));
      const before = pending.size;
      // An announced job is read once; with none for scanMs, every unfinished one is (see scanMs).
      const states = announced.length > 0 ? await q.statesOf(announced) : await q.statesOf([...pending]);
      for (const [id, state] of states) {
        // A job removed meanwhile (by hand, or its keep time passed) is added again rather than waited for.
        if (state === 'unknown' && !q.gatherOnly) {
          if ((await q.deadline(q.client.sismember(q.cancelledKey, id))) === 1) this.settle(id, (index) => ({ index, ok: false, error: 'cancelled (kancil backtest … --queue … --cancel)' }));
          else await q.deadline(q.queue.add('backtest', this.#data(id), q.jobOpts(id, 1)));
        } else await this.collect(id, state);
      }
      if (pending.size < before) quietSince = Date.now();
      else if (Date.now() - quietSince >= QUIET_MS) {
        await this.#sayWhatTheQueueDoes();
        quietSince = Date.now();
      }
    }
  }

  async #sayWhatTheQueueDoes(): Promise<void> {
    const { q, pending } = this;
    const counts = await q.deadline(q.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed'));
    // A worker that cannot run a job says why in the job's log: the latest word of one unfinished job.
    const first = pending.values().next().value;
    const last = first === undefined ? undefined : (await q.deadline(q.queue.getJobLogs(first, 0, 0, false))).logs[0];
    q.log(`queue ${q.display}: ${pending.size} jobs of this sweep unfinished; queue has ${(counts.waiting ?? 0) + (counts.prioritized ?? 0)} waiting, ${counts.active ?? 0} running, ${counts.delayed ?? 0} waiting to retry${(counts.active ?? 0) === 0 ? ' (is a worker running?)' : ''}${last === undefined ? '' : `; last word on job ${first}: ${last}`}`);
  }

  #data(id: string): QueueJobData {
    return (this.byId.get(id) as SweepEntry).data;
  }
}
