/**
 * Client-side sliding-window limiter: at most `limit` requests per key per `windowMs`.
 * The legacy /v1 interface allows 60 requests per endpoint per minute per IP; counting
 * on our side means we never learn the limit from an `err_str: limit exceeded` answer.
 */
import type { Clock } from '../../core/index.js';
import { systemClock } from '../../core/index.js';

/** Result of asking for a slot: granted, or the ms to wait before the next one frees up. */
export type WindowDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** Sliding-window request counter per key. */
export class EndpointWindowLimiter {
  readonly #sent = new Map<string, number[]>();
  readonly #blockedUntil = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Takes a slot for `key` when one is free; otherwise says how long to wait. Never sleeps. */
  tryAcquire(key: string): WindowDecision {
    const now = this.clock.now();
    const blocked = this.#blockedUntil.get(key);
    if (blocked !== undefined) {
      if (now < blocked) return { ok: false, retryAfterMs: blocked - now };
      this.#blockedUntil.delete(key);
    }
    const times = (this.#sent.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= this.limit) {
      this.#sent.set(key, times);
      return { ok: false, retryAfterMs: (times[0] ?? now) + this.windowMs - now };
    }
    times.push(now);
    this.#sent.set(key, times);
    return { ok: true };
  }

  /** Refuses `key` for `ms` (after the server itself said the limit was exceeded). */
  blockFor(key: string, ms: number): void {
    const until = this.clock.now() + ms;
    const prev = this.#blockedUntil.get(key);
    if (prev === undefined || until > prev) this.#blockedUntil.set(key, until);
  }

  /** Requests counted for `key` in the current window. */
  used(key: string): number {
    const now = this.clock.now();
    return (this.#sent.get(key) ?? []).filter((t) => t > now - this.windowMs).length;
  }
}
