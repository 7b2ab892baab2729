/**
 * Request-weight and order-count accounting as the spec describes it: weight per IP per
 * fixed interval (reported in X-MBX-USED-WEIGHT-<n><letter>), order count per account
 * (X-MBX-ORDER-COUNT-<n><letter>), 429 with Retry-After when a limit is broken, and a
 * 418 ban with Retry-After when the client keeps sending while it was told to wait.
 *
 * Numeric limits are "not shown" in the spec, so they come from the config. Windows are
 * fixed and aligned to the interval (like the real exchange's counters), so a client that
 * waits for Retry-After always finds a fresh window.
 */
import type { Clock } from '../core/index.js';

/** One limiter: a limit per fixed interval. */
export interface IntervalLimit {
  /** Interval length, e.g. 1 with letter 'M' = one minute. */
  readonly intervalNum: number;
  readonly intervalLetter: 'S' | 'M' | 'H' | 'D';
  readonly limit: number;
}

const LETTER_MS = { S: 1000, M: 60_000, H: 3_600_000, D: 86_400_000 } as const;

/** Interval length in ms. */
export function intervalMs(l: IntervalLimit): number {
  return l.intervalNum * LETTER_MS[l.intervalLetter];
}

/** Header suffix such as `1M`. */
export function intervalTag(l: IntervalLimit): string {
  return `${l.intervalNum}${l.intervalLetter}`;
}

class FixedWindowCounter {
  #windowStart = -1;
  #used = 0;
  constructor(readonly spec: IntervalLimit) {}
  used(now: number): number {
    this.#roll(now);
    return this.#used;
  }
  add(now: number, n: number): number {
    this.#roll(now);
    this.#used += n;
    return this.#used;
  }
  /** ms until the current window ends. */
  remaining(now: number): number {
    return this.#windowStart + intervalMs(this.spec) - now;
  }
  #roll(now: number): void {
    const len = intervalMs(this.spec);
    const start = now - (now % len);
    if (start !== this.#windowStart) {
      this.#windowStart = start;
      this.#used = 0;
    }
  }
}

/** Statuses the limiter can force: 429 and 418 (rate limits) and 403 (the web application firewall). */
export type ForcedStatus = 429 | 418 | 403;

/** Verdict for one request. `retryAfterSec` is sent as Retry-After only with 429 and 418, as the spec says. */
export type LimitVerdict =
  | { readonly ok: true; readonly headers: Record<string, string> }
  | { readonly ok: false; readonly status: ForcedStatus; readonly retryAfterSec: number; readonly headers: Record<string, string> };

interface IpState {
  readonly counters: FixedWindowCounter[];
  /** While set, the IP is over a limit and must wait until this time. */
  blockedUntil: number;
  /** When the IP was first answered 429 for the current block (0: not yet told). */
  toldAt: number;
  bannedUntil: number;
  banCount: number;
  /** While set, the web application firewall refuses the IP with 403 (fault injection only). */
  firewallUntil: number;
}

/** Settings of the IP weight limiter. */
export interface WeightLimiterOptions {
  readonly weightLimits: readonly IntervalLimit[];
  /** First ban length; doubles for repeat offenders up to 3 days, as the spec's scale says. */
  readonly banBaseSec: number;
  /**
   * Requests arriving this long after the first 429 of a block still get 429, not a ban: they were
   * on the wire when it was sent and no client can recall them (default 1000 ms).
   */
  readonly banGraceMs?: number;
}

const MAX_BAN_SEC = 3 * 86_400;

/** Per-IP request weight limiter with 429 then 418 escalation. */
export class WeightLimiter {
  readonly #ips = new Map<string, IpState>();
  constructor(
    readonly options: WeightLimiterOptions,
    readonly clock: Clock,
  ) {}

  #state(ip: string): IpState {
    let s = this.#ips.get(ip);
    if (!s) {
      s = { counters: this.options.weightLimits.map((l) => new FixedWindowCounter(l)), blockedUntil: 0, toldAt: 0, bannedUntil: 0, banCount: 0, firewallUntil: 0 };
      this.#ips.set(ip, s);
    }
    return s;
  }

  #headers(s: IpState, now: number): Record<string, string> {
    const h: Record<string, string> = {};
    for (const c of s.counters) h[`X-MBX-USED-WEIGHT-${intervalTag(c.spec)}`] = String(c.used(now));
    return h;
  }

  /** Accounts one request of `weight` from `ip` and says whether it may proceed. */
  take(ip: string, weight: number): LimitVerdict {
    const now = this.clock.now();
    const s = this.#state(ip);
    // The firewall sits in front of the rate limiter: a 403 neither counts weight nor escalates to a ban.
    if (now < s.firewallUntil) return { ok: false, status: 403, retryAfterSec: Math.ceil((s.firewallUntil - now) / 1000), headers: this.#headers(s, now) };
    if (now < s.bannedUntil) return { ok: false, status: 418, retryAfterSec: Math.ceil((s.bannedUntil - now) / 1000), headers: this.#headers(s, now) };
    if (now < s.blockedUntil) {
      if (s.toldAt === 0 || now - s.toldAt < (this.options.banGraceMs ?? 1000)) {
        if (s.toldAt === 0) s.toldAt = now;
        return { ok: false, status: 429, retryAfterSec: Math.max(1, Math.ceil((s.blockedUntil - now) / 1000)), headers: this.#headers(s, now) };
      }
      // Kept going after a 429: ban, growing for repeat offenders.
      const banSec = Math.min(MAX_BAN_SEC, this.options.banBaseSec * 2 ** s.banCount);
      s.banCount++;
      s.bannedUntil = now + banSec * 1000;
      s.blockedUntil = 0;
      return { ok: false, status: 418, retryAfterSec: banSec, headers: this.#headers(s, now) };
    }
    let worst = 0;
    for (const c of s.counters) {
      const used = c.add(now, weight);
      if (used > c.spec.limit) worst = Math.max(worst, c.remaining(now));
    }
    if (worst > 0) {
      s.blockedUntil = now + worst;
      s.toldAt = now;
      return { ok: false, status: 429, retryAfterSec: Math.max(1, Math.ceil(worst / 1000)), headers: this.#headers(s, now) };
    }
    return { ok: true, headers: this.#headers(s, now) };
  }

  /**
   * Forces a block on `ip` for `seconds`; used by fault injection. 429: the next request is
   * answered 429 with Retry-After (the rest of the block), and only a client that keeps sending
   * past the grace is banned (418), as with a limit broken for real. 418: banned at once. 403:
   * the firewall refuses every request.
   */
  force(ip: string, status: ForcedStatus, seconds: number): void {
    const s = this.#state(ip);
    const until = this.clock.now() + seconds * 1000;
    if (status === 418) s.bannedUntil = until;
    else if (status === 403) s.firewallUntil = until;
    else {
      s.blockedUntil = until;
      s.toldAt = 0;
    }
  }

  /** Forces the state on every IP seen so far and on IPs seen later (the sandbox serves loopback only). */
  forceAll(status: ForcedStatus, seconds: number): void {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', ...this.#ips.keys()]) this.force(ip, status, seconds);
  }

  /** The X-MBX-USED-WEIGHT-* headers of `ip` as they stand, counting nothing (for answers given before routing). */
  headersOf(ip: string): Record<string, string> {
    return this.#headers(this.#state(ip), this.clock.now());
  }

  /** Current used weight of `ip` per limiter, for inspection in tests. */
  usedWeight(ip: string): Record<string, number> {
    const s = this.#state(ip);
    const now = this.clock.now();
    return Object.fromEntries(s.counters.map((c) => [intervalTag(c.spec), c.used(now)]));
  }

  /** Forgets every IP's state (admin reset). */
  reset(): void {
    this.#ips.clear();
  }
}

/** Per-account order counters for the X-MBX-ORDER-COUNT-* headers and order-rate limits. */
export class OrderCounter {
  readonly #accounts = new Map<string, FixedWindowCounter[]>();
  constructor(
    readonly limits: readonly IntervalLimit[],
    readonly clock: Clock,
  ) {}

  #counters(account: string): FixedWindowCounter[] {
    let c = this.#accounts.get(account);
    if (!c) {
      c = this.limits.map((l) => new FixedWindowCounter(l));
      this.#accounts.set(account, c);
    }
    return c;
  }

  /** Would one more order break a limit? Returns seconds until the earliest window frees, or 0. */
  wouldExceed(account: string): number {
    const now = this.clock.now();
    let worst = 0;
    for (const c of this.#counters(account)) if (c.used(now) + 1 > c.spec.limit) worst = Math.max(worst, c.remaining(now));
    return worst > 0 ? Math.max(1, Math.ceil(worst / 1000)) : 0;
  }

  /** Counts one order and returns the headers to send with the successful response. */
  count(account: string): Record<string, string> {
    const now = this.clock.now();
    const h: Record<string, string> = {};
    for (const c of this.#counters(account)) h[`X-MBX-ORDER-COUNT-${intervalTag(c.spec)}`] = String(c.add(now, 1));
    return h;
  }
}

/** Legacy /v1 limiter: requests per IP per endpoint per fixed minute. */
export class LegacyLimiter {
  readonly #counters = new Map<string, FixedWindowCounter>();
  constructor(
    readonly perMinute: number,
    readonly clock: Clock,
  ) {}

  /** Counts a request; false when it is over the limit. */
  take(ip: string, endpoint: string): boolean {
    const key = `${ip} ${endpoint}`;
    let c = this.#counters.get(key);
    if (!c) {
      c = new FixedWindowCounter({ intervalNum: 1, intervalLetter: 'M', limit: this.perMinute });
      this.#counters.set(key, c);
    }
    return c.add(this.clock.now(), 1) <= this.perMinute;
  }

  /** Seconds until the current minute ends (for an informative Retry-After). */
  retryAfterSec(): number {
    const now = this.clock.now();
    return Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000));
  }
}
