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
}

// Many bots restarted by one supervisor after one outage should not knock again in step.
const STARTUP_BACKOFF = { initialMs: 500, maxMs: 8_000 } as const;

/** The wait before trying again after `err`, or undefined when it is not a transient failure. */
export function transientWaitMs(err: unknown, attempt: number, random: () => number = Math.random): number | undefined {
  if (err instanceof RateLimitedError) return Math.max(err.retryAfterMs, 100);
  const backoff = backoffDelay(attempt, STARTUP_BACKOFF, random);
  if (err instanceof ExchangeError) return err.httpStatus >= 500 || isTimestampRefusal(err) ? backoff : undefined;
  if (err instanceof NetworkError || err instanceof ParseError) return backoff;
  return undefined;
}

/** Runs `fn` until it succeeds, a non-transient error, or the bound (then the last error is thrown). */
export async function retryStartup<T>(what: string, fn: () => Promise<T>, o: StartupRetryOptions = {}): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + (o.boundMs ?? 90_000);
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = transientWaitMs(err, attempt, o.random);
      if (wait === undefined || now() + wait > deadline) throw err;
      o.onRetry?.(what, err as Error, wait);
      await sleep(wait);
    }
  }
}
