/**
 * Notifications of a running bot to webhook and Telegram channels, by priority (see alerts.ts).
 *
 * Critical, always sent: start and stop, trading-state changes with their reason, strategy
 * failures, an outage (streams not up for `outageAfterSec`) and its end, orders of unknown outcome
 * and how they were settled, the daily loss limit reached, reconciliation problems. Info, within
 * `maxPerMinute` per channel: fills, reconnect storms, rejection bursts, the daily summary.
 *
 * Never in the way of trading: the feed hands each item over synchronously and this only decides
 * and enqueues; each channel delivers on its own loop (lane.ts).
 */
import { assertNever, type TradingStateName } from '../../bus/events.js';
import { ZERO, type Decimal } from '../../core/decimal.js';
import { ORDER_LOST } from '../../execution/lostOrders.js';
import type { FeedMessage, LogLine, RunFeed } from '../feed.js';
import type { ConsoleLogger } from '../server.js';
import type { ConsoleRun } from '../source.js';
import type { OrderJson } from '../views.js';
import { pnlByQuote } from '../views.js';
import { CRITICAL_LOG_MESSAGES, type AlertKind, type Notification, type PriorityName } from './alerts.js';
import type { Channel } from './channels.js';
import { Lane, type LaneCounts } from './lane.js';
import { BurstWatch, OutageWatch, type BurstRule, type OutageReport } from './watches.js';
import { counted } from '../../core/plural.js';

export type { BurstRule } from './watches.js';

/** Info notifications that can be switched on or off (critical ones always go out). */
export const NotifyEvent = { fill: 'fill', failure: 'failure', state: 'state', reconnects: 'reconnects', rejections: 'rejections', daily: 'daily' } as const;
/** A name in the `events` setting. */
export type NotifyEventName = keyof typeof NotifyEvent;

/** Options of a notifier. */
export interface NotifierOptions {
  readonly run: ConsoleRun;
  readonly feed: RunFeed;
  readonly channels: readonly Channel[];
  /** Info kinds wanted (`failure` and `state` are critical and always sent). */
  readonly events: readonly NotifyEventName[];
  /** Info messages per minute per channel. */
  readonly maxPerMinute: number;
  readonly reconnectStorm: BurstRule;
  readonly rejectionBurst: BurstRule;
  readonly log: ConsoleLogger;
  /** Seconds a stream may be down or resyncing before an outage alert (default 10). */
  readonly outageAfterSec?: number;
  /** Critical messages per minute per channel before they wait and coalesce (default 20). */
  readonly criticalPerMinute?: number;
  /** First retry wait of a failed critical send (default 1000 ms). */
  readonly retryBaseMs?: number;
  /** Shortest time between "suppressed" lines (default 60 s). */
  readonly summaryEveryMs?: number;
  readonly now?: () => number;
  /** How often the daily summary's day change is looked for (default 60 s). */
  readonly dailyCheckMs?: number;
}

const DAY_MS = 86_400_000;
const LOG_SEVERE: ReadonlySet<string> = new Set(['warn', 'error', 'fatal']);

/** Sends notifications of one run. */
export class Notifier {
  readonly #o: NotifierOptions;
  readonly #now: () => number;
  readonly #lanes: Lane[];
  readonly #wanted: ReadonlySet<NotifyEventName>;
  readonly #storm: BurstWatch<string>;
  readonly #burst: BurstWatch<string>;
  readonly #outage: OutageWatch;
  /** Orders reported as of unknown outcome, until they settle. */
  readonly #unknown = new Set<string>();
  /** Strategies whose daily loss limit was reported today. */
  readonly #lossReported = new Set<string>();
  #day: number;
  #dayFills = 0;
  #dayStartPnl: Record<string, string> = {};
  #off: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: NotifierOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#lanes = o.channels.map((c) => new Lane(c, { infoPerMinute: o.maxPerMinute, criticalPerMinute: o.criticalPerMinute, retryBaseMs: o.retryBaseMs, summaryEveryMs: o.summaryEveryMs, now: this.#now, run: o.run.name, log: o.log }));
    this.#wanted = new Set(o.events);
    this.#storm = new BurstWatch(o.reconnectStorm);
    this.#burst = new BurstWatch(o.rejectionBurst);
    this.#outage = new OutageWatch((o.outageAfterSec ?? 10) * 1000, this.#now, (r) => this.#onOutage(r));
    this.#day = Math.floor(this.#now() / DAY_MS);
  }

  /** Starts listening to the feed and watching for the day's end; says the run started. */
  start(): void {
    const run = this.#o.run;
    this.#dayStartPnl = pnlByQuote(run.positions());
    this.#off = this.#o.feed.listen((m) => this.#onMessage(m));
    this.#timer = setInterval(() => this.checkDay(), this.#o.dailyCheckMs ?? 60_000);
    this.#timer.unref();
    const strategies = run.strategies().map((s) => `${s.name} (${s.symbols.join(', ')})`);
    const ts = run.tradingState();
    this.notify({ kind: 'started', t: this.#now(), text: `started: ${run.mode} run, strategies ${strategies.join('; ')}; trading ${stateText(ts.state, ts.reason)}`, data: { mode: run.mode, strategies: run.strategies().map((s) => s.name), state: ts.state } });
  }

  /** Says the run stopped and why, with what it left: open orders and PnL. */
  stopped(reason: string): void {
    const run = this.#o.run;
    const open = run.openOrders().length;
    const pnl = pnlByQuote(run.positions());
    const pnlText = Object.entries(pnl).map(([q, v]) => `${q} ${signed(ZERO.plus(v))}`);
    this.notify({ kind: 'stopped', t: this.#now(), text: `stopped: ${reason}; ${counted(open, 'open order')} left; PnL ${pnlText.join(', ') || '0'}`, data: { reason, openOrders: open, pnl } });
  }

  /** Stops listening; waits (at most `waitMs`) until every queued critical alert is delivered. */
  async stop(waitMs = 5000): Promise<void> {
    this.#off?.();
    this.#off = undefined;
    clearInterval(this.#timer);
    this.#outage.stop();
    for (const l of this.#lanes) l.finish();
    // Wall-clock deadline (the injected clock may be a test's); delivery is event-driven, only the
    // stop polls, for at most waitMs, once a run is ending.
    const deadline = Date.now() + waitMs;
    while (this.#lanes.some((l) => l.pendingCritical > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    for (const l of this.#lanes) l.stop();
    await Promise.race([Promise.all(this.#lanes.map((l) => l.idle())), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
  }

  /** Delivery counts by channel and priority. */
  counts(): readonly LaneCounts[] {
    return this.#lanes.flatMap((l) => [l.counts.critical, l.counts.info]);
  }

  /** Totals over channels (tests, status). */
  totals(priority?: PriorityName): { sent: number; dropped: number; failed: number } {
    const t = { sent: 0, dropped: 0, failed: 0 };
    for (const c of this.counts()) {
      if (priority !== undefined && c.priority !== priority) continue;
      t.sent += c.sent;
      t.dropped += c.dropped;
      t.failed += c.failed;
    }
    return t;
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
    this.#lossReported.clear();
    if (this.#wanted.has('daily')) this.notify({ kind: 'daily', t: this.#now(), text: `daily summary ${ended} (UTC): ${counted(this.#dayFills, 'fill')}, PnL ${change.join(', ') || '0'}; ${counted(open, 'open order')}; trading ${this.#o.run.tradingState().state}`, data: { day: ended, fills: this.#dayFills, pnl, openOrders: open } });
    this.#dayFills = 0;
    this.#dayStartPnl = pnl;
  }

  /** Hands a notification to every channel; never waits. */
  notify(n: Notification): void {
    for (const lane of this.#lanes) lane.push(n);
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
        this.notify({ kind: 'failure', t, text: `strategy ${m.strategy} FAILED and was stopped: ${m.error}`, data: { strategy: m.strategy, error: m.error } });
        return;
      case 'state':
        this.notify({ kind: 'state', t, text: `${m.strategy === undefined ? 'run' : `strategy ${m.strategy}`} trading state ${stateText(m.state, m.reason)}`, data: { strategy: m.strategy, state: m.state, reason: m.reason } });
        return;
      case 'connection':
        this.#outage.onStatus(m.connection, m.status, m.reason);
        if (m.status !== 'up') this.#onDisconnect(t, m.connection);
        return;
      case 'rejection':
        this.#onRejection(t, m.rejection.strategy, m.rejection.reason, m.rejection.message);
        return;
      case 'order':
        this.#onOrder(t, m.order);
        return;
      case 'log':
        this.#onLog(m.line);
        return;
      case 'book':
      case 'tick':
        return;
      default:
        assertNever(m);
    }
  }

  #onOrder(t: number, o: OrderJson): void {
    const what = `${o.strategy} ${o.side} ${o.quantity ?? '?'} ${o.symbol}${o.price !== undefined ? ` @ ${o.price}` : ''} (${o.clientId})`;
    if (o.state === 'UNKNOWN') {
      if (this.#unknown.has(o.clientId)) return;
      this.#unknown.add(o.clientId);
      this.notify({ kind: 'unknownOrder', t, text: `order of unknown outcome: ${what}${o.reason ? `: ${o.reason}` : ''}; reconciled by its clientId before anything else is sent for it`, data: o });
      return;
    }
    if (o.state === 'EXPIRED' && o.reason?.startsWith(ORDER_LOST) === true) {
      this.#unknown.delete(o.clientId);
      this.notify({ kind: 'orderResolved', t, text: `order ${what} is unknown to the exchange and was closed EXPIRED: ${o.reason}; executed ${o.executed}`, data: o });
      return;
    }
    if (!this.#unknown.delete(o.clientId)) return;
    if (o.state === 'PENDING') {
      this.notify({ kind: 'orderResolved', t, text: `order ${what} was proven not placed; sent again`, data: o });
      return;
    }
    this.notify({ kind: 'orderResolved', t, text: `order ${what} settled as ${o.state}${o.reason ? ` (${o.reason})` : ''}, executed ${o.executed}`, data: o });
  }

  #onLog(line: LogLine): void {
    if (!LOG_SEVERE.has(line.level)) return;
    const kind: AlertKind | undefined = CRITICAL_LOG_MESSAGES[line.msg];
    if (kind === undefined) return;
    this.notify({ kind, t: line.t, text: `${line.msg}${line.detail ? ` ${line.detail.slice(0, 300)}` : ''}`, data: { level: line.level, msg: line.msg } });
  }

  #onOutage(r: OutageReport): void {
    const t = this.#now();
    switch (r.type) {
      case 'down': {
        const list = r.connections.map((c) => `${c.name} ${c.status}${c.reason ? ` (${c.reason})` : ''}`);
        this.notify({ kind: 'unreachable', t, text: `exchange unreachable for ${Math.round(r.forMs / 1000)} s: ${list.join(', ')}`, data: r });
        return;
      }
      case 'up':
        this.notify({ kind: 'unreachable', t, text: `exchange reachable again: every stream up after ${Math.round(r.afterMs / 1000)} s`, data: r });
        return;
      default:
        assertNever(r);
    }
  }

  #onDisconnect(t: number, connection: string): void {
    const w = this.#storm.add(t, connection);
    if (w === undefined || !this.#wanted.has('reconnects')) return;
    const rule = this.#storm.rule;
    this.notify({ kind: 'reconnects', t, text: `reconnect storm: ${w.length} stream disconnects in ${rule.windowSec} s (latest: ${connection}); orders halt while user data resyncs`, data: { count: w.length, windowSec: rule.windowSec, connection } });
  }

  #onRejection(t: number, strategy: string, reason: string, message: string): void {
    if (reason === 'DAILY_LOSS_LIMIT' && !this.#lossReported.has(strategy)) {
      this.#lossReported.add(strategy);
      this.notify({ kind: 'dailyLoss', t, text: `strategy ${strategy} reached its daily loss limit: ${message}`, data: { strategy, message } });
    }
    const w = this.#burst.add(t, reason);
    if (w === undefined || !this.#wanted.has('rejections')) return;
    const rule = this.#burst.rule;
    const by = new Map<string, number>();
    for (const r of w) by.set(r, (by.get(r) ?? 0) + 1);
    const top = [...by].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
    this.notify({ kind: 'rejections', t, text: `rejection burst: ${w.length} intents refused in ${rule.windowSec} s (${top.join(', ')})`, data: { count: w.length, windowSec: rule.windowSec, reasons: Object.fromEntries(by) } });
  }
}

function stateText(state: TradingStateName, reason: string): string {
  return `${state} (${reason})`;
}

function decimalDiff(a: string | undefined, b: string | undefined): Decimal {
  return ZERO.plus(a ?? '0').minus(b ?? '0');
}

function signed(d: Decimal): string {
  return d.isNegative() ? d.toFixed() : `+${d.toFixed()}`;
}
