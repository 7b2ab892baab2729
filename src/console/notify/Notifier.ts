/**
 * Notifications of a running bot: fills, strategy failures, trading-state changes, reconnect
 * storms, rejection bursts and a daily summary, to webhook and Telegram channels.
 *
 * Never in the way of trading: the feed hands each item over synchronously and this only decides
 * and enqueues; delivery runs on its own promise chain per channel, one request at a time. Each
 * channel has a token bucket of `maxPerMinute`; what exceeds it is counted, not queued, and one
 * line says how many were suppressed once the bucket refills. A channel that answers 429 is left
 * alone for as long as it asks. A failed delivery is logged (channel and status only) and dropped.
 */
import { assertNever } from '../../bus/events.js';
import { ZERO, type Decimal } from '../../core/decimal.js';
import type { FeedMessage, RunFeed } from '../feed.js';
import type { ConsoleLogger } from '../server.js';
import type { ConsoleRun } from '../source.js';
import { pnlByQuote } from '../views.js';
import { ChannelError, type Channel, type Notification } from './channels.js';

/** What can be notified. */
export const NotifyEvent = { fill: 'fill', failure: 'failure', state: 'state', reconnects: 'reconnects', rejections: 'rejections', daily: 'daily' } as const;
/** A notification kind. */
export type NotifyEventName = keyof typeof NotifyEvent;

/** A count within a sliding window. */
export interface BurstRule {
  readonly count: number;
  readonly windowSec: number;
}

/** Options of a notifier. */
export interface NotifierOptions {
  readonly run: ConsoleRun;
  readonly feed: RunFeed;
  readonly channels: readonly Channel[];
  readonly events: readonly NotifyEventName[];
  readonly maxPerMinute: number;
  readonly reconnectStorm: BurstRule;
  readonly rejectionBurst: BurstRule;
  readonly log: ConsoleLogger;
  readonly now?: () => number;
  /** How often the daily summary's day change is looked for (default 60 s). */
  readonly dailyCheckMs?: number;
}

const DAY_MS = 86_400_000;

/** One channel's bucket and queue. */
class Lane {
  readonly queue: Notification[] = [];
  tokens: number;
  refilledAt: number;
  pausedUntil = 0;
  suppressed = 0;
  busy = false;
  idle: Promise<void> = Promise.resolve();
  wake: NodeJS.Timeout | undefined;

  constructor(
    readonly channel: Channel,
    readonly perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.refilledAt = now;
  }

  refill(now: number): void {
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.refilledAt) * this.perMinute) / 60_000);
    this.refilledAt = now;
  }
}

/** Sends notifications of one run. */
export class Notifier {
  /** Delivery counts (for tests and the status). */
  readonly stats = { sent: 0, failed: 0, suppressed: 0 };
  readonly #o: NotifierOptions;
  readonly #now: () => number;
  readonly #lanes: Lane[];
  readonly #wanted: ReadonlySet<NotifyEventName>;
  readonly #disconnects: number[] = [];
  readonly #rejects: { t: number; reason: string }[] = [];
  #stormUntil = 0;
  #burstUntil = 0;
  #day: number;
  #dayFills = 0;
  #dayStartPnl: Record<string, string> = {};
  #off: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: NotifierOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#lanes = o.channels.map((c) => new Lane(c, o.maxPerMinute, this.#now()));
    this.#wanted = new Set(o.events);
    this.#day = Math.floor(this.#now() / DAY_MS);
  }

  /** Starts listening to the feed and watching for the day's end. */
  start(): void {
    this.#dayStartPnl = pnlByQuote(this.#o.run.positions());
    this.#off = this.#o.feed.listen((m) => this.#onMessage(m));
    this.#timer = setInterval(() => this.checkDay(), this.#o.dailyCheckMs ?? 60_000);
    this.#timer.unref();
  }

  /** Stops listening; waits (at most `waitMs`) for deliveries under way. */
  async stop(waitMs = 2000): Promise<void> {
    this.#off?.();
    clearInterval(this.#timer);
    for (const l of this.#lanes) clearTimeout(l.wake);
    await Promise.race([Promise.all(this.#lanes.map((l) => l.idle)), new Promise((r) => setTimeout(r, waitMs).unref())]);
  }

  /** Sends the summary of the UTC day that ended, when it has (called every minute; tests call it). */
  checkDay(): void {
    const day = Math.floor(this.#now() / DAY_MS);
    if (day <= this.#day) return;
    const ended = new Date(this.#day * DAY_MS).toISOString().slice(0, 10);
    const pnl = pnlByQuote(this.#o.run.positions());
    const change = Object.keys(pnl).map((q) => `${q} ${signed(decimalDiff(pnl[q], this.#dayStartPnl[q]))}`);
    const open = this.#o.run.openOrders().length;
    this.#day = day;
    if (this.#wanted.has('daily')) this.notify({ kind: 'daily', t: this.#now(), text: `daily summary ${ended} (UTC): ${this.#dayFills} fills, PnL ${change.join(', ') || '0'}; ${open} open orders; trading ${this.#o.run.tradingState().state}`, data: { day: ended, fills: this.#dayFills, pnl, openOrders: open } });
    this.#dayFills = 0;
    this.#dayStartPnl = pnl;
  }

  /** Enqueues a notification on every channel (rate-limited); never waits. */
  notify(n: Notification): void {
    const now = this.#now();
    for (const lane of this.#lanes) {
      lane.refill(now);
      if (lane.tokens < 1 || lane.queue.length >= lane.perMinute) {
        lane.suppressed++;
        this.stats.suppressed++;
        this.#scheduleWake(lane, now);
        continue;
      }
      lane.tokens -= 1;
      lane.queue.push(n);
      this.#pump(lane);
    }
  }

  #onMessage(m: FeedMessage): void {
    const t = this.#now();
    switch (m.type) {
      case 'fill': {
        this.#dayFills++;
        if (!this.#wanted.has('fill')) return;
        const f = m.fill;
        this.notify({ kind: 'fill', t, text: `${f.strategy} ${f.side} ${f.qty} ${f.symbol} @ ${f.price} (${f.maker ? 'maker' : 'taker'}, fee ${f.commission}${f.commissionAsset ? ` ${f.commissionAsset}` : ''})`, data: f });
        return;
      }
      case 'failure':
        if (this.#wanted.has('failure')) this.notify({ kind: 'failure', t, text: `strategy ${m.strategy} FAILED and was stopped: ${m.error}`, data: { strategy: m.strategy, error: m.error } });
        return;
      case 'state':
        if (this.#wanted.has('state')) this.notify({ kind: 'state', t, text: `${m.strategy === undefined ? 'run' : `strategy ${m.strategy}`} trading state ${m.state} (${m.reason})`, data: { strategy: m.strategy, state: m.state, reason: m.reason } });
        return;
      case 'connection':
        if (m.status !== 'up') this.#onDisconnect(t, m.connection);
        return;
      case 'rejection':
        this.#onRejection(t, m.rejection.reason);
        return;
      case 'order':
      case 'book':
      case 'log':
      case 'tick':
        return;
      default:
        assertNever(m);
    }
  }

  #onDisconnect(t: number, connection: string): void {
    const rule = this.#o.reconnectStorm;
    const w = this.#disconnects;
    w.push(t);
    while (w.length > 0 && (w[0] as number) <= t - rule.windowSec * 1000) w.shift();
    if (w.length < rule.count || t < this.#stormUntil || !this.#wanted.has('reconnects')) return;
    this.#stormUntil = t + rule.windowSec * 1000;
    this.notify({ kind: 'reconnects', t, text: `reconnect storm: ${w.length} stream disconnects in ${rule.windowSec} s (latest: ${connection}); orders halt while user data resyncs`, data: { count: w.length, windowSec: rule.windowSec, connection } });
  }

  #onRejection(t: number, reason: string): void {
    const rule = this.#o.rejectionBurst;
    const w = this.#rejects;
    w.push({ t, reason });
    while (w.length > 0 && (w[0] as { t: number }).t <= t - rule.windowSec * 1000) w.shift();
    if (w.length < rule.count || t < this.#burstUntil || !this.#wanted.has('rejections')) return;
    this.#burstUntil = t + rule.windowSec * 1000;
    const by = new Map<string, number>();
    for (const r of w) by.set(r.reason, (by.get(r.reason) ?? 0) + 1);
    const top = [...by].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
    this.notify({ kind: 'rejections', t, text: `rejection burst: ${w.length} intents refused in ${rule.windowSec} s (${top.join(', ')})`, data: { count: w.length, windowSec: rule.windowSec, reasons: Object.fromEntries(by) } });
  }

  /** When the bucket has a token again, says how many were suppressed. */
  #scheduleWake(lane: Lane, now: number): void {
    if (lane.wake !== undefined) return;
    const wait = Math.max(lane.pausedUntil - now, Math.ceil(((1 - lane.tokens) * 60_000) / lane.perMinute), 0);
    lane.wake = setTimeout(() => {
      lane.wake = undefined;
      const n = lane.suppressed;
      if (n === 0) return;
      lane.suppressed = 0;
      lane.refill(this.#now());
      lane.tokens = Math.max(0, lane.tokens - 1);
      lane.queue.push({ kind: 'suppressed', t: this.#now(), text: `${n} notifications suppressed (more than ${lane.perMinute} a minute); see the dashboard or kancil status` });
      this.#pump(lane);
    }, wait);
    lane.wake.unref();
  }

  #pump(lane: Lane): void {
    if (lane.busy) return;
    lane.busy = true;
    lane.idle = this.#drain(lane).finally(() => {
      lane.busy = false;
    });
  }

  async #drain(lane: Lane): Promise<void> {
    for (let n = lane.queue.shift(); n !== undefined; n = lane.queue.shift()) {
      const pause = lane.pausedUntil - this.#now();
      if (pause > 0) await new Promise((r) => setTimeout(r, pause).unref());
      try {
        await lane.channel.send(n, this.#o.run.name);
        this.stats.sent++;
      } catch (err) {
        this.stats.failed++;
        const e = err instanceof ChannelError ? err : new ChannelError(`${lane.channel.name}: ${err instanceof Error ? err.name : 'error'}`);
        if (e.retryAfterMs !== undefined) lane.pausedUntil = this.#now() + e.retryAfterMs;
        this.#o.log.warn({ channel: lane.channel.name, kind: n.kind, err: e.message }, 'notification not delivered');
      }
    }
  }
}

function decimalDiff(a: string | undefined, b: string | undefined): Decimal {
  return ZERO.plus(a ?? '0').minus(b ?? '0');
}

function signed(d: Decimal): string {
  return d.isNegative() ? d.toFixed() : `+${d.toFixed()}`;
}
