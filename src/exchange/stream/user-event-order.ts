/**
 * Orders user data events by event time E within a small window (the spec warns they may arrive
 * out of order under load) and drops exact duplicates, which appear while two listen-token
 * subscriptions overlap during renewal.
 */
import type { ExecutionReportEvent, UserDataEvent } from '../../core/marketEvents.js';
import type { AccountPositionEventFull } from './parse-user.js';
import type { TimerHandle, Timers } from './timing.js';
import type { Clock } from '../../core/clock.js';

/** Identity of an event for duplicate detection. */
export function userEventKey(ev: UserDataEvent): string {
  switch (ev.type) {
    case 'executionReport': {
      const r: ExecutionReportEvent = ev;
      return `er|${r.orderId}|${r.clientId}|${r.executionType}|${r.status}|${r.tradeId}|${r.cumQty.toFixed()}|${r.E}`;
    }
    case 'accountPosition': {
      const a = ev as AccountPositionEventFull;
      return `ap|${a.E}|${a.lastUpdateTime}|${a.balances.map((b) => `${b.asset}:${b.free.toFixed()}:${b.locked.toFixed()}`).join(',')}`;
    }
    case 'streamTerminated':
      return `st|${ev.subscriptionId}|${ev.E}`;
    default: {
      const never: never = ev;
      throw new Error(`unknown user event ${JSON.stringify(never)}`);
    }
  }
}

interface Held {
  readonly ev: UserDataEvent;
  readonly due: number;
  readonly seq: number;
}

/** Options of the orderer. */
export interface UserEventOrdererOptions {
  /** Hold time per event (ms); 0 passes events straight through (still deduplicated). */
  readonly windowMs: number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly emit: (ev: UserDataEvent) => void;
  /** How many recent keys are remembered for duplicate detection (default 20,000). */
  readonly dedupeSize?: number;
}

/** Re-orders by E within a window and drops duplicates. */
export class UserEventOrderer {
  #held: Held[] = [];
  #seq = 0;
  #timer: TimerHandle | undefined;
  readonly #seen = new Set<string>();
  #lastEmittedE = -Infinity;
  /** Events that arrived after a later-E event had already been emitted (beyond the window). */
  late = 0;
  /** Duplicates dropped. */
  duplicates = 0;

  constructor(private readonly opts: UserEventOrdererOptions) {}

  /** Accepts one event. */
  push(ev: UserDataEvent): void {
    const key = userEventKey(ev);
    if (this.#seen.has(key)) {
      this.duplicates++;
      return;
    }
    this.#seen.add(key);
    if (this.#seen.size > (this.opts.dedupeSize ?? 20_000)) {
      // Sets iterate in insertion order: forget the oldest key.
      const oldest = this.#seen.values().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    if (this.opts.windowMs <= 0) {
      this.#out(ev);
      return;
    }
    this.#held.push({ ev, due: this.opts.clock.now() + this.opts.windowMs, seq: this.#seq++ });
    this.#arm();
  }

  /** Emits everything held, in E order (used at shutdown). */
  flush(): void {
    this.#release(Infinity);
  }

  /** Stops the timer (held events are flushed). */
  close(): void {
    if (this.#timer !== undefined) this.opts.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush();
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#held.length === 0) return;
    const next = Math.min(...this.#held.map((h) => h.due));
    this.#timer = this.opts.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#release(this.opts.clock.now());
      this.#arm();
    }, Math.max(0, next - this.opts.clock.now()));
  }

  /** Emits every due event and every held event with an E not above the latest due one. */
  #release(now: number): void {
    let maxDueE = -Infinity;
    for (const h of this.#held) if (h.due <= now && h.ev.E > maxDueE) maxDueE = h.ev.E;
    if (maxDueE === -Infinity) return;
    const out = this.#held.filter((h) => h.ev.E <= maxDueE);
    this.#held = this.#held.filter((h) => h.ev.E > maxDueE);
    out.sort((a, b) => a.ev.E - b.ev.E || a.seq - b.seq);
    for (const h of out) this.#out(h.ev);
  }

  #out(ev: UserDataEvent): void {
    if (ev.E < this.#lastEmittedE) this.late++;
    else this.#lastEmittedE = ev.E;
    this.opts.emit(ev);
  }
}
