/**
 * Timers for delays a user chooses. Node's setTimeout and setInterval take at most 2^31-1 ms
 * (about 24.8 days): a longer delay is replaced by 1 ms with only a warning, so a run asked to
 * last 30 days stopped at once. A long timeout here is a chain of timers of at most that length;
 * an interval a config gives is bounded by the schema (`MAX_TIMER_MS`) instead, where a period of
 * weeks is surely a typo.
 */
import { ValidationError } from './errors.js';

/** The longest delay one Node timer takes, in ms (2^31-1, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending {@link setLongTimeout}. */
export interface LongTimer {
  /** Cancels it; a no-op once it fired. */
  clear(): void;
  /** Lets the process exit while only this timer is pending (as Node's `unref`). */
  unref(): LongTimer;
}

/**
 * Calls `fn` once after `ms` milliseconds, any finite non-negative length, through as many chained
 * timers of at most {@link MAX_TIMER_MS} as it takes. The hops count down the remaining length, not
 * the wall clock, so a fake clock advances it exactly.
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimer {
  if (!Number.isFinite(ms) || ms < 0) throw new ValidationError('timeout', String(ms), 'must be a finite number of ms >= 0');
  let remaining = ms;
  let refed = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    const hop = Math.min(remaining, MAX_TIMER_MS);
    timer = setTimeout(() => {
      remaining -= hop;
      if (remaining > 0) arm();
      else {
        timer = undefined;
        fn();
      }
    }, hop);
    if (!refed) timer.unref();
  };
  arm();
  const handle: LongTimer = {
    clear: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    unref: () => {
      refed = false;
      timer?.unref();
      return handle;
    },
  };
  return handle;
}
