/**
 * Pacing of the repeated lookups of one order whose outcome is unknown. Without it an order the
 * exchange would not show yet (or whose lookups kept failing) was looked up on every pass of the
 * background loop: every 500 ms, every 50 ms during shutdown, until the exchange banned the IP.
 * Each lookup that settles nothing doubles the wait before the next (bounded), with jitter so the
 * orders of one outage do not go out in step; a rate-limit refusal waits at least its Retry-After.
 */

import { backoffDelay } from '../exchange/stream/timing.js';

/** Tuning of the lookup backoff. */
export interface LookupBackoffOptions {
  /** Wait after the first lookup that settled nothing (default 250 ms). */
  readonly baseMs?: number;
  /** Longest wait between two lookups of one order (default 30000 ms). */
  readonly maxMs?: number;
  /** Uniform random source in [0, 1) for the jitter (tests pass a fixed one). */
  readonly random?: () => number;
}

interface Pace {
  attempts: number;
  nextAt: number;
}

/** Per-order lookup pacing: bounded exponential backoff with jitter. */
export class LookupBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  readonly #pace = new Map<string, Pace>();

  constructor(o: LookupBackoffOptions = {}) {
    this.#baseMs = o.baseMs ?? 250;
    this.#maxMs = Math.max(this.#baseMs, o.maxMs ?? 30_000);
    this.#random = o.random ?? Math.random;
  }

  /** True when the order may be looked up at `now`. */
  due(clientId: string, now: number): boolean {
    const p = this.#pace.get(clientId);
    return p === undefined || now >= p.nextAt;
  }

  /**
   * A lookup of the order settled nothing (not found yet, or it failed): the next waits
   * base * 2^(attempts-1), capped, jittered down to half, and never less than `atLeastMs`.
   */
  unsettled(clientId: string, now: number, atLeastMs = 0): number {
    const p = this.#pace.get(clientId) ?? { attempts: 0, nextAt: now };
    p.attempts++;
    const wait = Math.max(atLeastMs, backoffDelay(p.attempts - 1, { initialMs: this.#baseMs, maxMs: this.#maxMs }, this.#random));
    p.nextAt = now + wait;
    this.#pace.set(clientId, p);
    return wait;
  }

  /** The order settled (found, or closed): its next lookup, if any, is due at once. */
  settled(clientId: string): void {
    this.#pace.delete(clientId);
  }

  /** Forgets every order not in `live` (closed since). */
  keepOnly(live: ReadonlySet<string>): void {
    for (const id of this.#pace.keys()) if (!live.has(id)) this.#pace.delete(id);
  }

  /** How many orders are being paced (status, tests). */
  get size(): number {
    return this.#pace.size;
  }
}
