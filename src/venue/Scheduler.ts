/**
 * Scheduling of delayed work (order-entry latency, acknowledgements, timers) on an injectable
 * clock. Backtests use {@link VirtualScheduler}: a deterministic queue ordered by (time, insertion
 * order) that the replay drains up to each event's time, so nothing fires "in the future". Paper
 * mode uses {@link WallScheduler} over setTimeout (setImmediate for no delay) with the same interface.
 */
import type { Clock } from '../core/clock.js';
import { VirtualClock } from '../core/clock.js';

/** A handle returned by `schedule`, used to cancel. */
export type ScheduledId = number;

/** Runs callbacks after a delay measured on the scheduler's clock. */
export interface Scheduler {
  readonly clock: Clock;
  /** Runs `fn` at `clock.now() + delayMs` (delay 0: after the current event, never synchronously). */
  schedule(delayMs: number, fn: () => void): ScheduledId;
  /**
   * Runs `fn(arg)` at `clock.now() + delayMs`: a caller with one function made once and the varying
   * part as `arg` (a venue publishing each report) allocates no closure per call.
   */
  schedule<A>(delayMs: number, fn: (arg: A) => void, arg: A): ScheduledId;
  /** Cancels a scheduled callback; unknown or already-run ids are ignored. */
  cancel(id: ScheduledId): void;
}

/**
 * Deterministic scheduler on a {@link VirtualClock}. Ties at the same time run in the order they
 * were scheduled, which keeps byte-identical results for the same inputs.
 *
 * The queue is a binary heap kept in parallel arrays (time, sequence, callback, argument) rather
 * than an entry object per callback: a backtest schedules one per order entry, cancel and report
 * (~6,900 in the bench's with-orders run), and the heap moves numbers instead of pointers to
 * objects that would each be allocated, compared through a property load and collected.
 */
export class VirtualScheduler implements Scheduler {
  readonly clock: VirtualClock;
  /** Heap order by (#at, #seq); slots at and past #n are free (their callback cleared). */
  readonly #at: number[] = [];
  readonly #seq: number[] = [];
  /** Callbacks; undefined for a cancelled one, which stays in the heap until it surfaces. */
  readonly #fn: (((arg: unknown) => void) | undefined)[] = [];
  /** Each callback's argument (undefined for the no-argument form). */
  readonly #arg: unknown[] = [];
  #n = 0;
  /** Callbacks waiting (not cancelled). */
  #live = 0;
  #lastSeq = 0;

  constructor(clock: VirtualClock = new VirtualClock()) {
    this.clock = clock;
  }

  /** Number of callbacks waiting. */
  get pending(): number {
    return this.#live;
  }

  /** Time of the earliest waiting callback, or undefined. */
  nextAt(): number | undefined {
    this.#dropCancelledTop();
    return this.#n > 0 ? this.#at[0] : undefined;
  }

  schedule(delayMs: number, fn: () => void): ScheduledId;
  schedule<A>(delayMs: number, fn: (arg: A) => void, arg: A): ScheduledId;
  schedule(delayMs: number, fn: (arg: unknown) => void, arg?: unknown): ScheduledId {
    const at = this.clock.now() + Math.max(0, delayMs);
    const seq = ++this.#lastSeq;
    const A = this.#at;
    const S = this.#seq;
    const F = this.#fn;
    const X = this.#arg;
    // Sift up from the new last slot.
    let i = this.#n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pa = A[p] as number;
      if (pa < at || (pa === at && (S[p] as number) < seq)) break;
      A[i] = pa;
      S[i] = S[p] as number;
      F[i] = F[p];
      X[i] = X[p];
      i = p;
    }
    A[i] = at;
    S[i] = seq;
    F[i] = fn;
    X[i] = arg;
    this.#live++;
    return seq;
  }

  /**
   * Cancelling is rare (a replay's timer at the end), scheduling is per order and report: a scan
   * of the waiting entries here rather than an id map kept up to date on every schedule and run.
   */
  cancel(id: ScheduledId): void {
    for (let i = 0; i < this.#n; i++) {
      if (this.#seq[i] === id && this.#fn[i] !== undefined) {
        this.#fn[i] = undefined;
        this.#arg[i] = undefined;
        this.#live--;
        return;
      }
    }
  }

  /**
   * Runs every callback due at or before `t`, advancing the clock to each callback's time first,
   * then advances the clock to `t`. Callbacks may schedule more work; work due by `t` also runs.
   */
  runUntil(t: number): void {
    // Most calls (two per replayed event) find nothing queued or nothing due yet: no loop. A top
    // without a function (cancelled) takes the loop, which drops it.
    if (this.#n === 0 || ((this.#at[0] as number) > t && this.#fn[0] !== undefined)) {
      this.clock.advanceTo(t);
      return;
    }
    for (;;) {
      this.#dropCancelledTop();
      if (this.#n === 0) break;
      const at = this.#at[0] as number;
      if (at > t) break;
      const fn = this.#fn[0];
      const arg = this.#arg[0];
      this.#pop();
      this.#live--;
      this.clock.advanceTo(at);
      fn?.(arg);
    }
    this.clock.advanceTo(t);
  }

  /** Runs everything still scheduled (end of a replay), in time order. */
  drain(maxSteps = 1_000_000): void {
    let steps = 0;
    for (let at = this.nextAt(); at !== undefined && steps < maxSteps; at = this.nextAt(), steps++) this.runUntil(at);
  }

  #dropCancelledTop(): void {
    while (this.#n > 0 && this.#fn[0] === undefined) this.#pop();
  }

  /** Removes the top: the last slot sifts down from the root. */
  #pop(): void {
    const A = this.#at;
    const S = this.#seq;
    const F = this.#fn;
    const X = this.#arg;
    const n = --this.#n;
    const la = A[n] as number;
    const ls = S[n] as number;
    const lf = F[n];
    const lx = X[n];
    // The vacated slot keeps no callback or argument alive.
    F[n] = undefined;
    X[n] = undefined;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const ra = A[r] as number;
        const lla = A[l] as number;
        if (ra < lla || (ra === lla && (S[r] as number) < (S[l] as number))) c = r;
      }
      const ca = A[c] as number;
      if (!(ca < la || (ca === la && (S[c] as number) < ls))) break;
      A[i] = ca;
      S[i] = S[c] as number;
      F[i] = F[c];
      X[i] = X[c];
      i = c;
    }
    A[i] = la;
    S[i] = ls;
    F[i] = lf;
    X[i] = lx;
  }
}

/**
 * Wall-clock scheduler for paper mode: the same interface over setTimeout, and over setImmediate
 * for a delay of 0. setTimeout's floor is 1 ms and it waits for the loop's timers phase, so a paper
 * run with latency 0 held every acknowledgement and fill report 1-4 ms; an immediate runs once the
 * I/O in hand is done, still never synchronously.
 */
export class WallScheduler implements Scheduler {
  readonly clock: Clock;
  readonly #timers = new Map<number, NodeJS.Timeout>();
  readonly #immediates = new Map<number, NodeJS.Immediate>();
  #seq = 0;

  constructor(clock: Clock = { now: () => Date.now() }) {
    this.clock = clock;
  }

  schedule(delayMs: number, fn: () => void): ScheduledId;
  schedule<A>(delayMs: number, fn: (arg: A) => void, arg: A): ScheduledId;
  schedule(delayMs: number, fn: (arg: unknown) => void, arg?: unknown): ScheduledId {
    const id = ++this.#seq;
    if (delayMs <= 0) {
      this.#immediates.set(
        id,
        setImmediate(() => {
          this.#immediates.delete(id);
          fn(arg);
        }),
      );
      return id;
    }
    const t = setTimeout(() => {
      this.#timers.delete(id);
      fn(arg);
    }, delayMs);
    this.#timers.set(id, t);
    return id;
  }

  cancel(id: ScheduledId): void {
    const t = this.#timers.get(id);
    if (t !== undefined) {
      clearTimeout(t);
      this.#timers.delete(id);
    }
    const i = this.#immediates.get(id);
    if (i !== undefined) {
      clearImmediate(i);
      this.#immediates.delete(id);
    }
  }

  /** Cancels everything (shutdown), so no timer keeps the process alive. */
  cancelAll(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    for (const i of this.#immediates.values()) clearImmediate(i);
    this.#timers.clear();
    this.#immediates.clear();
  }
}
