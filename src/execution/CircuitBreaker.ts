/**
 * Circuit breaker in front of the open API. It opens at once on a maintenance answer (HTTP 503)
 * and after `failureThreshold` consecutive server failures (5XX, timeouts, broken connections);
 * while open, eligible orders go to the legacy /v1 interface. After `openMs` it turns half-open:
 * the router sends one cheap probe and closes the breaker when it succeeds, or reopens it with a
 * doubled wait (capped) when it fails, so a long maintenance is not hammered.
 */
import type { Clock } from '../core/clock.js';

/** Breaker states. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** Tuning of the breaker. */
export interface BreakerOptions {
  /** Consecutive failures that open the breaker (default 3). */
  readonly failureThreshold?: number;
  /** First wait before a half-open probe (default 5000 ms). */
  readonly openMs?: number;
  /** Longest wait between probes (default 60000 ms). */
  readonly maxOpenMs?: number;
}

/** How a call to the open API failed, as far as the breaker cares. */
export type BreakerFailure = 'maintenance' | 'server' | 'timeout' | 'network';

/** The breaker; time comes from the run's clock so tests and backtests control it. */
export class CircuitBreaker {
  readonly #clock: Clock;
  readonly #threshold: number;
  readonly #baseOpenMs: number;
  readonly #maxOpenMs: number;
  #state: BreakerState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #openMs: number;
  #onChange: ((s: BreakerState, why: string) => void) | undefined;

  constructor(clock: Clock, opts: BreakerOptions = {}, onChange?: (s: BreakerState, why: string) => void) {
    this.#clock = clock;
    this.#threshold = opts.failureThreshold ?? 3;
    this.#baseOpenMs = opts.openMs ?? 5000;
    this.#maxOpenMs = opts.maxOpenMs ?? 60_000;
    this.#openMs = this.#baseOpenMs;
    this.#onChange = onChange;
  }

  /** Current state; an open breaker whose wait has passed reports halfOpen. */
  get state(): BreakerState {
    if (this.#state === 'open' && this.#clock.now() - this.#openedAt >= this.#openMs) this.#set('halfOpen', 'wait elapsed');
    return this.#state;
  }

  /** True when orders may go to the open API (closed). Half-open admits only the probe. */
  get closed(): boolean {
    return this.state === 'closed';
  }

  /** A call succeeded (any answer from a healthy server, including a 4XX refusal). */
  recordSuccess(): void {
    this.#failures = 0;
    this.#openMs = this.#baseOpenMs;
    if (this.#state !== 'closed') this.#set('closed', 'call succeeded');
  }

  /** A call failed on the server side. */
  recordFailure(kind: BreakerFailure): void {
    this.#failures++;
    if (this.#state === 'halfOpen') {
      this.#openMs = Math.min(this.#openMs * 2, this.#maxOpenMs);
      this.#trip(`probe failed (${kind})`);
    } else if (kind === 'maintenance' || this.#failures >= this.#threshold) {
      if (this.#state === 'closed') this.#trip(kind === 'maintenance' ? 'maintenance (503)' : `${this.#failures} consecutive failures (${kind})`);
      else this.#openedAt = this.#clock.now();
    }
  }

  #trip(why: string): void {
    this.#openedAt = this.#clock.now();
    this.#set('open', why);
  }

  #set(s: BreakerState, why: string): void {
    if (this.#state === s) return;
    this.#state = s;
    this.#onChange?.(s, why);
  }
}
