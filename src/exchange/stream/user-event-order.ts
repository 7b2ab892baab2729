/**
 * Delivers user data events as they arrive while they come in order, and orders them by event
 * time E only when they do not: the spec warns they "may arrive out of order under heavy load;
 * order them by E". Exact duplicates are dropped; they appear while two listen-token
 * subscriptions overlap during renewal.
 *
 * An event passes straight through when its E is not below the last delivered one's and, for an
 * executionReport, its order's earlier reports have all been delivered (./order-report-chain.ts).
 * Otherwise it is held, with everything after it, until the missing report arrives (then all go
 * at once, sorted by E) or for at most the window, after which the gap is reported through
 * `onGap` (an event may be lost: the router reconciles). An event whose E is below one already
 * delivered shows that the stream is reordering: for `cautionMs` after that every event waits the
 * window and leaves sorted by E, the spec's rule, since reordering comes in spells of load.
 */
import type { ExecutionReportEvent, UserDataEvent } from '../../core/marketEvents.js';
import type { AccountPositionEventFull } from './parse-user.js';
import type { TimerHandle, Timers } from './timing.js';
import type { Clock } from '../../core/clock.js';
import { OrderReportChain } from './order-report-chain.js';
import { RecentKeys } from './recent-keys.js';

/** Identity of an event for duplicate detection. */
export function userEventKey(ev: UserDataEvent): string {
  switch (ev.type) {
    case 'executionReport': {
      const r: ExecutionReportEvent = ev;
      // Hashed and dropped by the orderer (recent-keys.ts): one string, built once.
      return ['er', r.orderId, r.clientId, r.executionType, r.status, String(r.tradeId), r.cumQty.toFixed(), r.E].join('|');
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
  /** Longest hold of an event (ms) when a gap or reordering is seen; 0 passes everything straight through (still deduplicated). */
  readonly windowMs: number;
  /** How long (ms) after a reordering every event is held for the window (default 20 windows). */
  readonly cautionMs?: number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly emit: (ev: UserDataEvent) => void;
  /** Told when a held gap was not filled within the window: a report may have been lost. */
  readonly onGap?: (reason: string) => void;
  /** How many recent keys are remembered for duplicate detection (default 20,000). */
  readonly dedupeSize?: number;
}

/** Delivers in-order events at once; orders by E (within a window) only after a gap or reordering. */
export class UserEventOrderer {
  #held: Held[] = [];
  #seq = 0;
  #timer: TimerHandle | undefined;
  readonly #seen: RecentKeys;
  readonly #chain = new OrderReportChain();
  #lastEmittedE = -Infinity;
  #cautiousUntil = -Infinity;
  /** Events delivered after a later-E event had already been delivered. */
  late = 0;
  /** Duplicates dropped. */
  duplicates = 0;
  /** Events held because of a gap or reordering. */
  held = 0;
  /** Gaps still open when the window ran out. */
  gaps = 0;

  constructor(private readonly opts: UserEventOrdererOptions) {
    this.#seen = new RecentKeys(opts.dedupeSize ?? 20_000);
  }

  /** Accepts one event. */
  push(ev: UserDataEvent): void {
    if (!this.#seen.add(userEventKey(ev))) {
      this.duplicates++;
      return;
    }
    if (this.opts.windowMs <= 0) {
      this.#out(ev);
      return;
    }
    const now = this.opts.clock.now();
    if (ev.E < this.#lastEmittedE) this.#cautiousUntil = now + (this.opts.cautionMs ?? 20 * this.opts.windowMs);
    if (this.#held.length === 0 && now >= this.#cautiousUntil && ev.E >= this.#lastEmittedE && !this.#gap(ev)) {
      this.#out(ev);
      return;
    }
    this.held++;
    this.#held.push({ ev, due: now + this.opts.windowMs, seq: this.#seq++ });
    this.#held.sort(byE);
    this.#drain();
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

  #gap(ev: UserDataEvent): boolean {
    return ev.type === 'executionReport' && this.#chain.gap(ev);
  }

  /** Outside a cautious spell, delivers held events from the front while no gap blocks them. */
  #drain(): void {
    if (this.opts.clock.now() < this.#cautiousUntil) return;
    for (;;) {
      const i = this.#next(this.#held);
      if (i < 0) return;
      const [h] = this.#held.splice(i, 1);
      this.#out((h as Held).ev);
    }
  }

  /**
   * Index in `list` (sorted by E) of the event to deliver next: the first of the front's E whose
   * order has no report missing; -1 when each of them waits for one. E is in ms, so two reports of
   * one order can share it; arriving reversed, the later sorts first by arrival, and must not
   * keep the earlier one (the very report it waits for) behind it.
   */
  #next(list: readonly Held[]): number {
    const front = list[0];
    if (front === undefined) return -1;
    for (let i = 0; i < list.length && (list[i] as Held).ev.E === front.ev.E; i++) if (!this.#gap((list[i] as Held).ev)) return i;
    return -1;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#held.length === 0) return;
    const next = Math.min(...this.#held.map((h) => h.due));
    this.#timer = this.opts.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#release(this.opts.clock.now());
      this.#drain();
      this.#arm();
    }, Math.max(0, next - this.opts.clock.now()));
  }

  /** Emits every due event and every held event with an E not above the latest due one, in E order. */
  #release(now: number): void {
    let maxDueE = -Infinity;
    for (const h of this.#held) if (h.due <= now && h.ev.E > maxDueE) maxDueE = h.ev.E;
    if (maxDueE === -Infinity) return;
    const out = this.#held.filter((h) => h.ev.E <= maxDueE);
    this.#held = this.#held.filter((h) => h.ev.E > maxDueE);
    while (out.length > 0) {
      const [h] = out.splice(Math.max(0, this.#next(out)), 1) as [Held];
      if (now !== Infinity && this.#gap(h.ev)) {
        this.gaps++;
        const er = h.ev as ExecutionReportEvent;
        this.opts.onGap?.(`executionReport of order ${er.orderId} (${er.executionType}, cumQty ${er.cumQty.toFixed()}) arrived without its predecessor`);
      }
      this.#out(h.ev);
    }
  }

  #out(ev: UserDataEvent): void {
    if (ev.E < this.#lastEmittedE) this.late++;
    else this.#lastEmittedE = ev.E;
    if (ev.type === 'executionReport') this.#chain.delivered(ev);
    this.opts.emit(ev);
  }
}

function byE(a: Held, b: Held): number {
  return a.ev.E - b.ev.E || a.seq - b.seq;
}
