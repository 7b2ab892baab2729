/**
 * Delivery to one channel, one request at a time, critical first.
 *
 * Critical alerts are never dropped: they wait in order; whatever waits when the channel is free
 * goes out as one message (up to the channel's size), so a burst of state changes arrives as one
 * message in order rather than being cut. A failed critical send is retried with backoff (doubling
 * up to a minute) and keeps its place at the head; a channel's 429 retry-after is obeyed before
 * anything else is sent. Critical messages have their own budget per minute: beyond it they wait
 * (and coalesce), never drop.
 *
 * Info has a token bucket of `infoPerMinute`: what exceeds it, or fails once, is dropped and
 * counted; one "N suppressed" line goes out at most once a minute.
 */
import { DeliveryError } from '../../core/errors.js';
import type { Channel } from './channels.js';
import { priorityOf, type Notification, type PriorityName } from './alerts.js';

/** Delivery counts of one channel and priority. */
export interface LaneCounts {
  readonly channel: string;
  readonly priority: PriorityName;
  /** Messages delivered (a coalesced message counts its alerts). */
  sent: number;
  /** Alerts not delivered: over the budget, or failed (info only; critical ones are retried). */
  dropped: number;
  /** Send attempts that failed. */
  failed: number;
}

/** Timing of a lane. */
export interface LaneOptions {
  readonly infoPerMinute: number;
  /** Critical messages a minute before they wait and coalesce (default 20, Telegram's group limit). */
  readonly criticalPerMinute?: number;
  /** First retry wait of a failed critical send (default 1000 ms); doubles up to {@link MAX_BACKOFF_MS}. */
  readonly retryBaseMs?: number;
  /** Shortest time between two "suppressed" lines (default 60 s). */
  readonly summaryEveryMs?: number;
  readonly now: () => number;
  readonly run: string;
  readonly log: { warn(o: object, msg: string): void };
}

/** Longest wait between retries of a critical send. */
export const MAX_BACKOFF_MS = 60_000;

/** Most characters in one coalesced message (Telegram's limit is 4096). */
const MAX_TEXT = 3500;

/** A token bucket refilled continuously. */
class Bucket {
  tokens: number;
  #at: number;
  constructor(
    readonly perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.#at = now;
  }
  refill(now: number): void {
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.#at) * this.perMinute) / 60_000);
    this.#at = now;
  }
  /** Milliseconds until one token is there. */
  waitMs(): number {
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 60_000) / this.perMinute);
  }
}

/** One channel's queues, budgets and delivery loop. */
export class Lane {
  readonly critical: Notification[] = [];
  readonly info: Notification[] = [];
  readonly counts: { readonly critical: LaneCounts; readonly info: LaneCounts };
  readonly #o: LaneOptions;
  readonly #infoBucket: Bucket;
  readonly #critBucket: Bucket;
  #pausedUntil = 0;
  #backoff = 0;
  #suppressed = 0;
  #lastSummary = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  #stopped = false;
  #finishing = false;
  #idle: Promise<void> = Promise.resolve();

  constructor(
    readonly channel: Channel,
    o: LaneOptions,
  ) {
    this.#o = o;
    const now = o.now();
    this.#infoBucket = new Bucket(o.infoPerMinute, now);
    this.#critBucket = new Bucket(o.criticalPerMinute ?? 20, now);
    this.counts = { critical: { channel: channel.name, priority: 'critical', sent: 0, dropped: 0, failed: 0 }, info: { channel: channel.name, priority: 'info', sent: 0, dropped: 0, failed: 0 } };
  }

  /** Takes one notification: critical always queues; info queues within its budget. */
  push(n: Notification): void {
    if (priorityOf(n.kind) === 'critical') {
      this.critical.push(n);
    } else {
      this.#infoBucket.refill(this.#o.now());
      if (this.#infoBucket.tokens < 1 || this.info.length >= this.#infoBucket.perMinute) {
        this.#suppressed++;
        this.counts.info.dropped++;
      } else {
        this.#infoBucket.tokens -= 1;
        this.info.push(n);
      }
    }
    // A waiting timer is re-armed by the loop for what it now holds (a pause is kept: it is a time).
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#kick();
  }

  /** Critical alerts not yet delivered. */
  get pendingCritical(): number {
    return this.critical.length;
  }

  /** Resolves when nothing is being sent. */
  idle(): Promise<void> {
    return this.#idle;
  }

  /**
   * The run is ending: what critical is queued goes out now, past the per-minute budget (the
   * operator's last word on a run must not wait for a window the process will not live to see);
   * a channel's 429 and a failing channel's back-off are still obeyed.
   */
  finish(): void {
    this.#finishing = true;
    if (this.#busy) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#kick();
  }

  /** Stops the timers; what is queued stays unsent. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Starts the delivery loop unless it runs or waits for a timer. */
  #kick(): void {
    if (this.#busy || this.#timer !== undefined || this.#stopped) return;
    this.#busy = true;
    this.#idle = this.#drain();
  }

  #wakeIn(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick();
    }, ms);
    this.#timer.unref();
  }

  /**
   * Sends while something can go now; otherwise sets a timer for when it can. `busy` is cleared
   * in the same turn as the last decision, so a push right after always finds a loop or a timer.
   */
  async #drain(): Promise<void> {
    for (;;) {
      const now = this.#o.now();
      const next = this.#stopped ? undefined : this.#pausedUntil > now ? this.#pausedUntil - now : this.#next(now);
      if (next === undefined || typeof next === 'number') {
        this.#busy = false;
        if (next !== undefined) this.#wakeIn(next);
        return;
      }
      try {
        await this.#send(next.n, next.priority);
      } catch {
        // Only a throwing logger gets here; delivery goes on.
      }
    }
  }

  /** What to send now, or how long to wait; undefined when there is nothing. */
  #next(now: number): { n: Notification; priority: PriorityName } | number | undefined {
    if (this.critical.length > 0) {
      this.#critBucket.refill(now);
      const wait = this.#finishing ? 0 : this.#critBucket.waitMs();
      if (wait > 0) return wait;
      return { n: this.#coalesce(), priority: 'critical' };
    }
    const n = this.info.shift();
    if (n !== undefined) return { n, priority: 'info' };
    if (this.#suppressed === 0) return undefined;
    // After what was queued, at most once per summaryEveryMs.
    const wait = this.#lastSummary + (this.#o.summaryEveryMs ?? 60_000) - now;
    if (wait > 0) return wait;
    const count = this.#suppressed;
    this.#suppressed = 0;
    this.#lastSummary = now;
    return { n: { kind: 'suppressed', t: now, text: `${count} notifications suppressed (more than ${this.#infoBucket.perMinute} a minute); see the dashboard or kancil status`, data: { count } }, priority: 'info' };
  }

  /** The head of the critical queue, merged with those behind it while the text fits (they stay queued until sent). */
  #coalesce(): Notification {
    const first = this.critical[0] as Notification;
    let k = 1;
    let size = first.text.length;
    while (k < this.critical.length && size + 1 + (this.critical[k] as Notification).text.length <= MAX_TEXT) size += 1 + (this.critical[k++] as Notification).text.length;
    if (k === 1) return first;
    const parts = this.critical.slice(0, k);
    return { kind: first.kind, t: first.t, text: parts.map((p) => p.text).join('\n'), parts };
  }

  async #send(n: Notification, priority: PriorityName): Promise<void> {
    const c = this.counts[priority];
    const alerts = n.parts?.length ?? 1;
    try {
      await this.channel.send(n, this.#o.run);
      c.sent += alerts;
      if (priority === 'critical') {
        this.critical.splice(0, alerts);
        this.#critBucket.tokens -= 1;
        this.#backoff = 0;
      }
    } catch (err) {
      c.failed++;
      const e = err instanceof DeliveryError ? err : new DeliveryError(`${this.channel.name}: ${err instanceof Error ? err.name : 'error'}`);
      const now = this.#o.now();
      if (priority === 'critical') {
        // Kept at the head; the next attempt (after the backoff) may carry more alerts with it.
        this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff === 0 ? (this.#o.retryBaseMs ?? 1000) : this.#backoff * 2);
        this.#pausedUntil = Math.max(this.#pausedUntil, now + this.#backoff);
      } else {
        c.dropped += alerts;
      }
      if (e.retryAfterMs !== undefined) this.#pausedUntil = Math.max(this.#pausedUntil, now + e.retryAfterMs);
      this.#o.log.warn({ channel: this.channel.name, kind: n.kind, priority, alerts, err: e.message, ...(priority === 'critical' ? { retryInMs: this.#pausedUntil - now } : {}) }, priority === 'critical' ? 'critical notification not delivered; will retry' : 'notification not delivered');
    }
  }
}
