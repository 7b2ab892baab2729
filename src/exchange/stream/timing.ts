/**
 * Time sources the stream code depends on, injectable so tests can drive reconnects and
 * renewals deterministically.
 */
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';

/** A timer handle. */
export type TimerHandle = unknown;

/** setTimeout/clearTimeout as an interface. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(h: TimerHandle): void;
}

/** Real timers; unref'd so a forgotten timer never keeps a process alive. */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Exponential backoff parameters. */
export interface BackoffOptions {
  /** First delay cap (default 500 ms). */
  readonly initialMs?: number;
  /** Largest delay cap (default 30 s). */
  readonly maxMs?: number;
  /** Growth per attempt (default 2). */
  readonly factor?: number;
}

/**
 * Delay before reconnect attempt `attempt` (0-based): "equal jitter", half the capped
 * exponential delay plus a random half, so clients spread out but never retry instantly.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = opts.initialMs ?? 500;
  const cap = Math.min(opts.maxMs ?? 30_000, initial * (opts.factor ?? 2) ** attempt);
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** Shared timing dependencies. */
export interface TimingDeps {
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly random?: () => number;
}

/** Fills defaults. */
export function timing(d: TimingDeps): Required<TimingDeps> {
  return { clock: d.clock ?? systemClock, timers: d.timers ?? realTimers, random: d.random ?? Math.random };
}
