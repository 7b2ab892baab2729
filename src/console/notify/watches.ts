/**
 * The notifier's small detectors: a count within a sliding window (reconnect storms, rejection
 * bursts) and the outage watch (connections not up for longer than a threshold, and their return).
 */

/** A count within a sliding window. */
export interface BurstRule {
  readonly count: number;
  readonly windowSec: number;
}

/** Counts items in a sliding window; fires at most once per window. */
export class BurstWatch<T> {
  readonly #items: { t: number; x: T }[] = [];
  #quietUntil = 0;

  constructor(readonly rule: BurstRule) {}

  /** Adds one item at `t`; returns the items in the window when they make a burst (then quiet for a window). */
  add(t: number, x: T): readonly T[] | undefined {
    const w = this.#items;
    w.push({ t, x });
    const from = t - this.rule.windowSec * 1000;
    while (w.length > 0 && (w[0] as { t: number }).t <= from) w.shift();
    if (w.length < this.rule.count || t < this.#quietUntil) return undefined;
    this.#quietUntil = t + this.rule.windowSec * 1000;
    return w.map((i) => i.x);
  }
}

/** What the outage watch reports. */
export type OutageReport = { readonly type: 'down'; readonly connections: readonly { readonly name: string; readonly status: string; readonly reason: string | undefined }[]; readonly forMs: number } | { readonly type: 'up'; readonly afterMs: number };

/**
 * Connections that are not up. Once one has been down (or resyncing) for `afterMs` an outage is
 * reported, once; when every connection is up again after a reported outage, its end is reported
 * with its length. Short drops that heal within `afterMs` report nothing (the reconnect storm rule
 * covers many of them).
 */
export class OutageWatch {
  readonly #down = new Map<string, { since: number; status: string; reason: string | undefined }>();
  #reportedAt: number | undefined;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly afterMs: number,
    readonly now: () => number,
    readonly report: (r: OutageReport) => void,
  ) {}

  /** One connection status change. */
  onStatus(name: string, status: string, reason: string | undefined): void {
    const now = this.now();
    if (status === 'up') {
      if (!this.#down.delete(name)) return;
      if (this.#down.size > 0 || this.#reportedAt === undefined) {
        if (this.#down.size === 0) this.#clear();
        return;
      }
      const afterMs = now - this.#since;
      this.#reportedAt = undefined;
      this.#clear();
      this.report({ type: 'up', afterMs });
      return;
    }
    const known = this.#down.get(name);
    if (known !== undefined) {
      known.status = status;
      known.reason = reason ?? known.reason;
      return;
    }
    if (this.#down.size === 0 && this.#reportedAt === undefined) this.#since = now;
    this.#down.set(name, { since: now, status, reason });
    if (this.#timer === undefined && this.#reportedAt === undefined) {
      this.#timer = setTimeout(() => this.#fire(), this.afterMs);
      this.#timer.unref();
    }
  }

  /** Stops the timer. */
  stop(): void {
    this.#clear();
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#down.size === 0 || this.#reportedAt !== undefined) return;
    const now = this.now();
    this.#reportedAt = now;
    this.report({ type: 'down', forMs: now - this.#since, connections: [...this.#down].map(([name, d]) => ({ name, status: d.status, reason: d.reason })) });
  }

  #clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
