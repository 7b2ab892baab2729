/**
 * Worker threads kept warm across sweep jobs. Starting a thread (and, from the sources, compiling
 * the engine in it) costs more than a short backtest: a queue worker that started one per job ran
 * short jobs 3x slower than the embedded pool. Here each thread runs one job at a time, job after
 * job; a thread that dies fails only its job and is replaced on the next one.
 */
import { Worker } from 'node:worker_threads';
import type { SweepAnswer, SweepJob } from './sweepJob.js';

/**
 * A new sweep thread. Compiled (dist/): the worker's JavaScript. From the sources: `execArgv:
 * ['--import', 'tsx']` does not reach worker threads on Node 20, so the .mjs entry registers tsx itself.
 */
export function startSweepThread(): Worker {
  return new Worker(new URL(import.meta.url.endsWith('.js') ? './sweepWorker.js' : './sweepWorkerEntry.mjs', import.meta.url));
}

interface Slot {
  readonly thread: Worker;
  /** The answer of the job it runs, undefined while idle. */
  settle: ((a: SweepAnswer) => void) | undefined;
  index: number;
}

/** Up to `size` warm threads; jobs beyond that wait for one to be free. */
export class SweepThreads {
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly waiting: { job: SweepJob; settle: (a: SweepAnswer) => void }[] = [];
  private stopped = false;

  constructor(private readonly size: number) {}

  /** Runs `job` on a free thread; resolves with its answer (a failure is an answer, never a rejection). */
  run(job: SweepJob): Promise<SweepAnswer> {
    if (this.stopped) return Promise.resolve({ index: job.index, ok: false, error: 'stopped' });
    return new Promise((settle) => {
      this.waiting.push({ job, settle });
      this.feed();
    });
  }

  /** Threads alive now (warm or busy). */
  get threads(): number {
    return this.slots.size;
  }

  /** Stops every thread at once: running and waiting jobs answer as stopped. */
  async terminate(): Promise<void> {
    this.stopped = true;
    for (const w of this.waiting.splice(0)) w.settle({ index: w.job.index, ok: false, error: 'stopped' });
    await Promise.all([...this.slots].map((s) => s.thread.terminate()));
  }

  private feed(): void {
    while (this.waiting.length > 0 && !this.stopped) {
      const slot = this.idle.pop() ?? (this.slots.size < this.size ? this.spawn() : undefined);
      if (slot === undefined) return;
      const next = this.waiting.shift() as { job: SweepJob; settle: (a: SweepAnswer) => void };
      slot.settle = next.settle;
      slot.index = next.job.index;
      slot.thread.postMessage(next.job);
    }
  }

  private spawn(): Slot {
    const slot: Slot = { thread: startSweepThread(), settle: undefined, index: 0 };
    this.slots.add(slot);
    const answer = (a: SweepAnswer): void => {
      const settle = slot.settle;
      slot.settle = undefined;
      settle?.(a);
    };
    slot.thread.on('message', (a: SweepAnswer) => {
      answer(a);
      if (this.slots.has(slot)) this.idle.push(slot);
      this.feed();
    });
    // A thread that dies (an uncaught error, out of memory) fails its job and is dropped; the next job starts a new one.
    const drop = (why: string): void => {
      if (!this.slots.delete(slot)) return;
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      answer({ index: slot.index, ok: false, error: this.stopped ? 'stopped' : why });
      this.feed();
    };
    slot.thread.on('error', (err) => drop(`worker failed: ${err.message}`));
    slot.thread.on('exit', (code) => drop(`worker exited with code ${code}`));
    return slot;
  }
}
