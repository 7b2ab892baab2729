/**
 * Queryable rate-limit state of the open API, per host: the used weight and order count the
 * server reported in `X-MBX-USED-WEIGHT-<n><S|M|H|D>` / `X-MBX-ORDER-COUNT-<n><S|M|H|D>`
 * headers, and until when the host must not be called after a 429 or 418.
 */
import type { Clock } from '../../core/index.js';
import { systemClock } from '../../core/index.js';

/** Everything known about one host's limits. Interval keys look like `1M`, `10S`, `1D`. */
export interface HostRateLimit {
  readonly host: string;
  /** Latest used weight per interval, from the last response that carried it. */
  readonly usedWeight: Readonly<Record<string, number>>;
  /** Latest order count per interval (sent only on successful order responses). */
  readonly orderCount: Readonly<Record<string, number>>;
  /** Epoch ms before which no request may be sent to this host; undefined when free. */
  readonly blockedUntil: number | undefined;
  /** Status that caused the block: 429 (rate limit), 418 (IP ban) or 403 (firewall limit). */
  readonly blockedBy: BlockStatus | undefined;
  /** Epoch ms of the last header update. */
  readonly updatedAt: number | undefined;
}

interface MutableHost {
  usedWeight: Record<string, number>;
  orderCount: Record<string, number>;
  blockedUntil: number | undefined;
  blockedBy: BlockStatus | undefined;
  updatedAt: number | undefined;
}

/** HTTP statuses that block a host: rate limit, IP ban, web application firewall limit. */
export type BlockStatus = 429 | 418 | 403;

const HEADER_RE = /^x-mbx-(used-weight|order-count)-(\d+)([smhd])$/i;

/** Shared, queryable rate-limit state; pass one instance to several clients to share it. */
export class RateLimitState {
  readonly #hosts = new Map<string, MutableHost>();
  readonly #clock: Clock;

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  /** Reads the weight and order-count headers of a response from `host`. */
  recordHeaders(host: string, headers: Readonly<Record<string, string>>): void {
    let touched = false;
    const h = this.#host(host);
    for (const [name, value] of Object.entries(headers)) {
      const m = HEADER_RE.exec(name);
      if (!m) continue;
      const n = Number(value);
      // A malformed header value is ignored rather than failing a request that succeeded.
      if (!Number.isFinite(n)) continue;
      const key = `${m[2]}${(m[3] ?? '').toUpperCase()}`;
      if (m[1]?.toLowerCase() === 'used-weight') h.usedWeight[key] = n;
      else h.orderCount[key] = n;
      touched = true;
    }
    if (touched) h.updatedAt = this.#clock.now();
  }

  /** Refuses `host` until `untilMs` (a later block never shortens an earlier one). */
  block(host: string, untilMs: number, status: BlockStatus): void {
    const h = this.#host(host);
    if (h.blockedUntil === undefined || untilMs > h.blockedUntil) {
      h.blockedUntil = untilMs;
      h.blockedBy = status;
    } else if (status === 418) {
      h.blockedBy = 418;
    }
  }

  /** The active block of `host`, or undefined once it has passed. */
  activeBlock(host: string): { until: number; status: BlockStatus } | undefined {
    const h = this.#hosts.get(host);
    if (!h || h.blockedUntil === undefined || h.blockedBy === undefined) return undefined;
    if (this.#clock.now() >= h.blockedUntil) {
      h.blockedUntil = undefined;
      h.blockedBy = undefined;
      return undefined;
    }
    return { until: h.blockedUntil, status: h.blockedBy };
  }

  /** Epoch ms until which `host` is refused, or undefined. */
  bannedUntil(host: string): number | undefined {
    return this.activeBlock(host)?.until;
  }

  /** Latest used weight of `host` for an interval key such as `1M`. */
  usedWeight(host: string, interval: string): number | undefined {
    return this.#hosts.get(host)?.usedWeight[interval.toUpperCase()];
  }

  /** Latest order count of `host` for an interval key such as `10S`. */
  orderCount(host: string, interval: string): number | undefined {
    return this.#hosts.get(host)?.orderCount[interval.toUpperCase()];
  }

  /** A copy of the state of every host seen so far (expired blocks shown as undefined). */
  snapshot(): HostRateLimit[] {
    return [...this.#hosts.keys()].map((host) => this.host(host));
  }

  /** A copy of one host's state. */
  host(host: string): HostRateLimit {
    const block = this.activeBlock(host);
    const h = this.#hosts.get(host);
    return {
      host,
      usedWeight: { ...h?.usedWeight },
      orderCount: { ...h?.orderCount },
      blockedUntil: block?.until,
      blockedBy: block?.status,
      updatedAt: h?.updatedAt,
    };
  }

  #host(host: string): MutableHost {
    let h = this.#hosts.get(host);
    if (!h) {
      h = { usedWeight: {}, orderCount: {}, blockedUntil: undefined, blockedBy: undefined, updatedAt: undefined };
      this.#hosts.set(host, h);
    }
    return h;
  }
}

/**
 * Parses `Retry-After` (delta seconds or an HTTP date) into ms. Missing or unreadable values
 * fall back to `fallbackMs`: guessing short would hammer a host into a longer ban.
 */
export function parseRetryAfterMs(value: string | undefined, now: number, fallbackMs: number): number {
  if (value === undefined || value.trim() === '') return fallbackMs;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return fallbackMs;
}
