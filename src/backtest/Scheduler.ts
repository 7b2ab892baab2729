/**
 * Scheduling of delayed work (order-entry latency, acknowledgements, timers) on an injectable
 * clock. Backtests use {@link VirtualScheduler}: a deterministic queue ordered by (time, insertion
 * order) that the replay drains up to each event's time, so nothing fires "in the future". Paper
 * mode uses {@link WallScheduler} over setTimeout with the same interface.
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
  /** Cancels a scheduled callback; unknown or already-run ids are ignored. */
  cancel(id: ScheduledId): void;
}

interface Entry {
  at: number;
  seq: number;
  fn: (() => void) | undefined;
}

/**
 * Deterministic scheduler on a {@link VirtualClock}. Ties at the same time run in the order they
 * were scheduled, which keeps byte-identical results for the same inputs.
 */
export class VirtualScheduler implements Scheduler {
  readonly clock: VirtualClock;
  readonly #heap: Entry[] = [];
  /** Callbacks waiting (cancelled ones stay in the heap, without a function, until they surface). */
  #live = 0;
  #seq = 0;

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
    return this.#heap[0]?.at;
  }

  schedule(delayMs: number, fn: () => void): ScheduledId {
    const e: Entry = { at: this.clock.now() + Math.max(0, delayMs), seq: ++this.#seq, fn };
    this.#push(e);
    this.#live++;
    return e.seq;
  }

  /**
   * Cancelling is rare (a replay's timer at the end), scheduling is per order and report: a scan
   * of the waiting entries here rather than an id map kept up to date on every schedule and run.
   */
  cancel(id: ScheduledId): void {
    for (const e of this.#heap) {
      if (e.seq === id && e.fn !== undefined) {
        e.fn = undefined;
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
    const first = this.#heap[0];
    if (first === undefined || (first.at > t && first.fn !== undefined)) {
      this.clock.advanceTo(t);
      return;
    }
    for (;;) {
      this.#dropCancelledTop();
      const top = this.#heap[0];
      if (top === undefined || top.at > t) break;
      this.#pop();
      const fn = top.fn;
      this.#live--;
      top.fn = undefined;
      this.clock.advanceTo(top.at);
      fn?.();
    }
    this.clock.advanceTo(t);
  }

  /** Runs everything still scheduled (end of a replay), in time order. */
  drain(maxSteps = 1_000_000): void {
    let steps = 0;
    for (let at = this.nextAt(); at !== undefined && steps < maxSteps; at = this.nextAt(), steps++) this.runUntil(at);
  }

  #dropCancelledTop(): void {
    while (this.#heap.length > 0 && this.#heap[0]?.fn === undefined) this.#pop();
  }

  #less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(e: Entry): void {
    const h = this.#heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pe = h[p] as Entry;
      if (!this.#less(e, pe)) break;
      h[i] = pe;
      i = p;
    }
    h[i] = e;
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.#less(h[r] as Entry, h[l] as Entry) ? r : l;
      const ce = h[c] as Entry;
      if (!this.#less(ce, last)) break;
      h[i] = ce;
      i = c;
    }
    h[i] = last;
  }
}

/** Wall-clock scheduler for paper mode: the same interface over setTimeout. */
export class WallScheduler implements Scheduler {
  readonly clock: Clock;
  readonly #timers = new Map<number, NodeJS.Timeout>();
  #seq = 0;

  constructor(clock: Clock = { now: () => Date.now() }) {
    this.clock = clock;
  }

  schedule(delayMs: number, fn: () => void): ScheduledId {
    const id = ++this.#seq;
    const t = setTimeout(() => {
      this.#timers.delete(id);
      fn();
    }, Math.max(0, delayMs));
    this.#timers.set(id, t);
    return id;
  }

  cancel(id: ScheduledId): void {
    const t = this.#timers.get(id);
    if (t !== undefined) {
      clearTimeout(t);
      this.#timers.delete(id);
    }
  }

  /** Cancels everything (shutdown), so no timer keeps the process alive. */
  cancelAll(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }
}
