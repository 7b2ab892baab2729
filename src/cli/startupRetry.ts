/**
 * Start-up reads of a live run (server time, symbols, reference prices) asked again while the
 * exchange is briefly unable to answer: a 418/429/403 is waited out for its Retry-After, a 5XX
 * (maintenance), a lost connection, a spoiled body or a refusal of a signed request's timestamp
 * (never processed, by the spec; a loaded machine or a clock step, which the client measures again)
 * is retried with a growing delay. All within a
 * bound: past it the error stands and the run exits non-zero for its supervisor, rather than
 * exiting at the first transient refusal or waiting for ever.
 */
import { ExchangeError, NetworkError, ParseError, RateLimitedError } from '../core/errors.js';
import { isTimestampRefusal } from '../exchange/open/OpenProfile.js';
import { backoffDelay } from '../exchange/stream/timing.js';

/** Settings of {@link retryStartup}. */
export interface StartupRetryOptions {
  /** Longest total wait before giving up (default 90 s). */
  readonly boundMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly onRetry?: (what: string, err: Error, waitMs: number) => void;
  /** Jitter source for the growing delay (default Math.random). */
  readonly random?: () => number;
  /**
   * A stop asked for while the exchange is waited out (SIGINT/SIGTERM): the wait ends at once with
   * {@link StartupStopped} instead of lasting up to the bound (run.startupWaitSec, 300 s by default,
   * longer than a supervisor waits before it kills). An attempt under way is let finish (its
   * request is bounded by the client's timeout), so nothing is abandoned half-done.
   */
  readonly signal?: AbortSignal;
}

// Many bots restarted by one supervisor after one outage should not knock again in step.
const STARTUP_BACKOFF = { initialMs: 500, maxMs: 8_000 } as const;

/** A start-up given up because a stop was asked for while it waited for the exchange. */
export class StartupStopped extends Error {
  constructor(
    /** The step that was waiting (server time, symbols, start-up reconciliation...). */
    readonly step: string,
    /** Why the stop was asked for (signal SIGINT, ...). */
    readonly reason: string,
    /** Orders of the bot the ledger holds as live: earlier runs' orders start-up could not reconcile (live mode). */
    readonly ordersLeft = 0,
    /** True when the step was not failing but still waited for (the order books' first snapshots). */
    readonly waiting = false,
  ) {
    super(`stopped during start-up (${reason}) ${waiting ? `while waiting for ${step}` : `while ${step} was failing`}`);
    this.name = 'StartupStopped';
  }

  /** Where start-up was when it stopped, as a phrase ("while symbols was failing"). */
  get during(): string {
    return this.waiting ? `while waiting for ${this.step}` : `while ${this.step} was failing`;
  }
}

/** The wait before trying again after `err`, or undefined when it is not a transient failure. */
export function transientWaitMs(err: unknown, attempt: number, random: () => number = Math.random): number | undefined {
  if (err instanceof RateLimitedError) return Math.max(err.retryAfterMs, 100);
  const backoff = backoffDelay(attempt, STARTUP_BACKOFF, random);
  if (err instanceof ExchangeError) return err.httpStatus >= 500 || isTimestampRefusal(err) ? backoff : undefined;
  if (err instanceof NetworkError || err instanceof ParseError) return backoff;
  return undefined;
}

/** A timer of `ms` that ends early, and is cleared, when `signal` aborts (the caller checks it). */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs `fn` until it succeeds, a non-transient error, or the bound (then the last error is thrown). */
export async function retryStartup<T>(what: string, fn: () => Promise<T>, o: StartupRetryOptions = {}): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => abortableSleep(ms, o.signal));
  const deadline = now() + (o.boundMs ?? 90_000);
  const stopped = (): StartupStopped => new StartupStopped(what, String(o.signal?.reason ?? 'stop requested'));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = transientWaitMs(err, attempt, o.random);
      if (wait === undefined || now() + wait > deadline) throw err;
      // Only a wait ends at a stop: a step that does not fail runs on, and the run then stops once started.
      if (o.signal?.aborted) throw stopped();
      o.onRetry?.(what, err as Error, wait);
      await sleep(wait);
      if (o.signal?.aborted) throw stopped();
    }
  }
}
