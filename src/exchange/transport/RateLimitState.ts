/**
 * The request budget of one IP address across every host of the open API. The spec limits "per IP
 * address, not per API key": the used weight reported by any host (`X-MBX-USED-WEIGHT-<n><S|M|H|D>`)
 * is the IP's, and a 429, 418 or 403 from any host stops the IP. Pass one instance to every client
 * that shares an IP.
 *
 * Three things decide whether a request may go now:
 * - an IP block after 429/418/403, until its Retry-After (every request);
 * - an order-count block after a 429 for the account's order rate (new orders only: cancels and
 *   reads cost no order count, so such a limit never stands between the bot and a cancel);
 * - the weight budget: with a known limit per interval (configured, or learned from a 429), normal
 *   requests stop at {@link RESERVED_SHARE} short of it, so the last part is kept for cancels and
 *   reconciliation reads, and nothing is sent that would break the limit and risk a ban.
 */
import type { Clock } from '../../core/index.js';
import { systemClock } from '../../core/index.js';

/** Everything known about the IP's limits. Interval keys look like `1M`, `10S`, `1D`. */
export interface HostRateLimit {
  /** Latest used weight per interval, from the last response that carried it. */
  readonly usedWeight: Readonly<Record<string, number>>;
  /** Latest order count per interval (sent only on successful order responses). */
  readonly orderCount: Readonly<Record<string, number>>;
  /** Weight limits per interval, configured or learned from a 429. */
  readonly weightLimits: Readonly<Record<string, number>>;
  /** Epoch ms before which no request may be sent; undefined when free. */
  readonly blockedUntil: number | undefined;
  /** Status that caused the block: 429 (rate limit), 418 (IP ban) or 403 (firewall limit). */
  readonly blockedBy: BlockStatus | undefined;
  /** Epoch ms before which no new order may be sent (order-count limit); undefined when free. */
  readonly ordersBlockedUntil: number | undefined;
  /** Epoch ms of the last header update. */
  readonly updatedAt: number | undefined;
}

/** HTTP statuses that block the IP: rate limit, IP ban, web application firewall limit. */
export type BlockStatus = 429 | 418 | 403;

/** How a request uses the budget: a new order, a request that must get through (cancel, reconciliation read), or any other. */
export type RequestClass = 'order' | 'critical' | 'normal';

/** Why a request may not go now, and for how long. */
export interface Refusal {
  readonly waitMs: number;
  /** The block's end when it is a 418 ban. */
  readonly bannedUntil: number | undefined;
  readonly reason: string;
}

/** Share of a known weight limit kept for cancels and reconciliation reads. */
export const RESERVED_SHARE = 0.1;

const HEADER_RE = /^x-mbx-(used-weight|order-count)-(\d+)([smhd])$/i;
const LETTER_MS: Readonly<Record<string, number>> = { S: 1_000, M: 60_000, H: 3_600_000, D: 86_400_000 };

/** Length in ms of an interval key such as `1M`; undefined when unreadable. */
export function intervalKeyMs(key: string): number | undefined {
  const m = /^(\d+)([SMHD])$/.exec(key);
  return m ? Number(m[1]) * (LETTER_MS[m[2] as string] as number) : undefined;
}

/** Shared, queryable rate-limit state of one IP. */
export class RateLimitState {
  readonly #clock: Clock;
  readonly #usedWeight: Record<string, number> = {};
  readonly #orderCount: Record<string, number> = {};
  readonly #limits: Record<string, number>;
  /** Requests admitted since the last weight header: not counted by the server's figure yet. */
  #unreported = 0;
  #updatedAt: number | undefined;
  #blockedUntil: number | undefined;
  #blockedBy: BlockStatus | undefined;
  #ordersBlockedUntil: number | undefined;

  /** `weightLimits`: known request-weight limits per interval key (`{ '1M': 6000 }`); the spec does not show them. */
  constructor(clock: Clock = systemClock, weightLimits: Readonly<Record<string, number>> = {}) {
    this.#clock = clock;
    this.#limits = Object.fromEntries(Object.entries(weightLimits).map(([k, v]) => [k.toUpperCase(), v]));
  }

  /** Reads the weight and order-count headers of a response from any host. */
  recordHeaders(headers: Readonly<Record<string, string>>): void {
    let touched = false;
    for (const name of Object.keys(headers)) {
      // Most of a response's headers are not these: a look at "x-" first, no match array for them.
      if ((name.charCodeAt(0) | 32) !== 120 || name.charCodeAt(1) !== 45) continue;
      const value = headers[name] as string;
      const m = HEADER_RE.exec(name);
      if (!m) continue;
      const n = Number(value);
      // A malformed header value is ignored rather than failing a request that succeeded.
      if (!Number.isFinite(n)) continue;
      const key = `${m[2]}${(m[3] ?? '').toUpperCase()}`;
      if (m[1]?.toLowerCase() === 'used-weight') {
        this.#usedWeight[key] = n;
        this.#unreported = 0;
      } else this.#orderCount[key] = n;
      touched = true;
    }
    if (touched) this.#updatedAt = this.#clock.now();
  }

  /**
   * After a weight 429 that reported exactly one interval's used weight, that interval's limit is
   * below the figure: remembered so the budget stops short of it next time.
   */
  learnLimit(headers: Readonly<Record<string, string>>): void {
    const used = Object.entries(headers).filter(([n]) => /^x-mbx-used-weight-/i.test(n));
    if (used.length !== 1) return;
    const [name, value] = used[0] as [string, string];
    const key = name.slice('x-mbx-used-weight-'.length).toUpperCase();
    const n = Number(value);
    if (!Number.isInteger(n) || n < 2) return;
    const known = this.#limits[key];
    if (known === undefined || n - 1 < known) this.#limits[key] = n - 1;
  }

  /** Refuses the IP until `untilMs` (a later block never shortens an earlier one). */
  block(untilMs: number, status: BlockStatus): void {
    if (this.#blockedUntil === undefined || untilMs > this.#blockedUntil) {
      this.#blockedUntil = untilMs;
      this.#blockedBy = status;
    } else if (status === 418) {
      this.#blockedBy = 418;
    }
  }

  /** Refuses new orders (not cancels, not reads) until `untilMs`: the account's order rate was broken. */
  blockOrders(untilMs: number): void {
    if (this.#ordersBlockedUntil === undefined || untilMs > this.#ordersBlockedUntil) this.#ordersBlockedUntil = untilMs;
  }

  /** The active IP block, or undefined once it has passed. */
  activeBlock(): { until: number; status: BlockStatus } | undefined {
    if (this.#blockedUntil === undefined || this.#blockedBy === undefined) return undefined;
    if (this.#clock.now() >= this.#blockedUntil) {
      this.#blockedUntil = undefined;
      this.#blockedBy = undefined;
      return undefined;
    }
    return { until: this.#blockedUntil, status: this.#blockedBy };
  }

  /** Epoch ms until which the IP is refused, or undefined. */
  bannedUntil(): number | undefined {
    return this.activeBlock()?.until;
  }

  /**
   * Whether a request of `cls` may go now; when it may, it is counted against the budget until the
   * next weight header. Never waits: the caller decides whether to wait or give up.
   */
  admit(cls: RequestClass): Refusal | undefined {
    const now = this.#clock.now();
    const block = this.activeBlock();
    if (block) return { waitMs: block.until - now, bannedUntil: block.status === 418 ? block.until : undefined, reason: `IP refused locally after HTTP ${block.status}` };
    if (cls === 'order' && this.#ordersBlockedUntil !== undefined) {
      if (now < this.#ordersBlockedUntil) return { waitMs: this.#ordersBlockedUntil - now, bannedUntil: undefined, reason: 'order-count limit: new orders wait (cancels and reads go on)' };
      this.#ordersBlockedUntil = undefined;
    }
    const share = cls === 'critical' ? 1 : 1 - RESERVED_SHARE;
    for (const [key, limit] of Object.entries(this.#limits)) {
      const len = intervalKeyMs(key);
      if (len === undefined) continue;
      const windowStart = now - (now % len);
      // The reported figure is of the window it was reported in; a new window starts from zero.
      const reported = this.#updatedAt !== undefined && this.#updatedAt >= windowStart ? (this.#usedWeight[key] ?? 0) : 0;
      if (reported + this.#unreported + 1 > Math.floor(limit * share)) {
        return { waitMs: windowStart + len - now, bannedUntil: undefined, reason: `weight ${reported + this.#unreported} of ${limit} per ${key} used${cls === 'critical' ? '' : `; the last ${RESERVED_SHARE * 100}% is kept for cancels and reconciliation`}` };
      }
    }
    this.#unreported++;
    return undefined;
  }

  /** Latest used weight for an interval key such as `1M`. */
  usedWeight(interval: string): number | undefined {
    return this.#usedWeight[interval.toUpperCase()];
  }

  /** Latest order count for an interval key such as `10S`. */
  orderCount(interval: string): number | undefined {
    return this.#orderCount[interval.toUpperCase()];
  }

  /** A copy of the state (expired blocks shown as undefined). */
  snapshot(): HostRateLimit {
    const block = this.activeBlock();
    const orders = this.#ordersBlockedUntil !== undefined && this.#clock.now() < this.#ordersBlockedUntil ? this.#ordersBlockedUntil : undefined;
    return {
      usedWeight: { ...this.#usedWeight },
      orderCount: { ...this.#orderCount },
      weightLimits: { ...this.#limits },
      blockedUntil: block?.until,
      blockedBy: block?.status,
      ordersBlockedUntil: orders,
      updatedAt: this.#updatedAt,
    };
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
