/**
 * Prometheus metrics of a running bot at /metrics, with prom-client (the maintained Node client:
 * exposition format, histograms). Counters are kept from bus events as they pass (a few map
 * lookups each); gauges (metricGauges.ts) and the running totals the run keeps itself are read
 * when Prometheus scrapes. The process's own metrics keep prom-client's standard names
 * (`process_cpu_seconds_total`, `nodejs_eventloop_lag_seconds`, ...) so the usual Node.js
 * dashboards find them. Values are binary floats: they are for watching, never for deciding an order.
 *
 * Order round trip: from the order's first PENDING update (journalled, about to be sent) to its
 * first update in any other state (the venue's answer, or UNKNOWN when none came), on this
 * process's clock.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';
import { assertNever } from '../bus/events.js';
import type { BusEvent } from '../bus/events.js';
import { runGauges, type StreamClock } from './metricGauges.js';
import type { LaneCounts } from './notify/lane.js';
import type { ConsoleRun } from './source.js';

/** Options of the metrics. */
export interface RunMetricsOptions {
  readonly now?: () => number;
  /** prom-client's default process metrics (default true). */
  readonly processMetrics?: boolean;
  /** kancil's version, for kancil_build_info. */
  readonly version?: string;
  /** Notification delivery counts by channel and priority. */
  readonly notifications?: () => readonly LaneCounts[];
  /** Wall clock in ms for ages and timestamps (default Date.now). */
  readonly wallNow?: () => number;
}

/** How often the stamp of stream messages is read from the wall clock. */
const STAMP_MS = 500;

/** Longest an order is remembered while waiting for its first answer (a lost one must not leak). */
const PENDING_LIMIT = 10_000;

/** The metrics of one run. */
export class RunMetrics {
  readonly registry = new Registry();
  readonly #run: ConsoleRun;
  readonly #now: () => number;
  readonly #sent = new Map<string, number>();
  readonly #down = new Set<string>();
  #sub: Subscription | undefined;
  /** Labelled children by their label values (prom-client hashes a label object on every inc). */
  readonly #children = new Map<string, { inc(): void }>();
  readonly #latencyByType = new Map<string, { observe(v: number): void }>();
  readonly #orders: Counter<'strategy' | 'symbol' | 'side' | 'type'>;
  readonly #states: Counter<'state'>;
  readonly #fills: Counter<'strategy' | 'symbol' | 'side' | 'role'>;
  readonly #rejections: Counter<'strategy' | 'reason'>;
  readonly #latency: Histogram<'type'>;
  readonly #reconnects: Counter<'connection'>;
  readonly #disconnects: Counter<'connection' | 'status'>;
  readonly #resyncs: Counter<'symbol'>;
  readonly #unknown: Counter;
  readonly #wall: () => number;
  /**
   * Wall clock for stamping stream messages, read every {@link STAMP_MS} rather than per event (a
   * clock read per depth diff tripled the metrics' cost of one): ages are to the half second.
   */
  #stamp: number;
  #stampTimer: NodeJS.Timeout | undefined;
  readonly #coarse: boolean;
  readonly #streams: StreamClock = { market: new Map(), user: undefined, connections: new Map(), lastFill: undefined };

  constructor(run: ConsoleRun, o: RunMetricsOptions = {}) {
    this.#run = run;
    this.#now = o.now ?? (() => performance.now());
    this.#wall = o.wallNow ?? Date.now;
    this.#coarse = o.wallNow === undefined;
    this.#stamp = this.#wall();
    const registers = [this.registry];
    const labels = { name: run.name, mode: run.mode };
    this.registry.setDefaultLabels(labels);
    if (o.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.#orders = new Counter({ name: 'kancil_orders_total', help: 'Orders journalled and sent (each clientId once)', labelNames: ['strategy', 'symbol', 'side', 'type'], registers });
    this.#states = new Counter({ name: 'kancil_order_states_total', help: 'Order state changes, by the state reached', labelNames: ['state'], registers });
    this.#fills = new Counter({ name: 'kancil_fills_total', help: 'Fills of the run\'s orders', labelNames: ['strategy', 'symbol', 'side', 'role'], registers });
    this.#rejections = new Counter({ name: 'kancil_rejections_total', help: 'Intents refused by the risk checker (or the venue), by reason', labelNames: ['strategy', 'reason'], registers });
    this.#latency = new Histogram({ name: 'kancil_order_roundtrip_seconds', help: 'From an order journalled (PENDING) to its first answer', labelNames: ['type'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.#reconnects = new Counter({ name: 'kancil_reconnects_total', help: 'Stream connections up again after being down or resyncing', labelNames: ['connection'], registers });
    this.#disconnects = new Counter({ name: 'kancil_disconnects_total', help: 'Stream connections going down or resyncing', labelNames: ['connection', 'status'], registers });
    this.#resyncs = new Counter({ name: 'kancil_book_resyncs_total', help: 'Local books found wrong (gap, stale, reconnect) and rebuilt', labelNames: ['symbol'], registers });
    this.#unknown = new Counter({ name: 'kancil_unknown_outcome_orders_total', help: 'Orders whose placement outcome became unknown (timeout, 5XX), reconciled by clientId', registers });
    for (const f of run.recentFills(1)) this.#streams.lastFill = f.time;
    this.#totals(registers, o);
    runGauges(run, registers, { streams: this.#streams, now: this.#wall, version: o.version ?? 'unknown' });
  }

  /** Starts counting bus events. */
  start(): void {
    if (this.#coarse) {
      this.#stampTimer = setInterval(() => (this.#stamp = this.#wall()), STAMP_MS);
      this.#stampTimer.unref();
    }
    this.#sub = this.#run.events$.subscribe((e) => {
      try {
        this.#onEvent(e);
      } catch {
        // Metrics never throw into bus delivery.
      }
    });
  }

  /** Stops counting. */
  stop(): void {
    clearInterval(this.#stampTimer);
    this.#sub?.unsubscribe();
  }

  /** Prometheus exposition content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  #onEvent(e: BusEvent): void {
    const wall = this.#coarse ? this.#stamp : this.#wall();
    switch (e.type) {
      case 'orderUpdate': {
        this.#child(this.#states, 's', e.state).inc();
        if (e.state === 'PENDING') {
          if (!this.#sent.has(e.clientId)) {
            this.#child(this.#orders, 'o', e.strategy, e.symbol, e.side, e.orderType).inc();
            if (this.#sent.size >= PENDING_LIMIT) this.#sent.clear();
            this.#sent.set(e.clientId, this.#now());
          }
          return;
        }
        const t = this.#sent.get(e.clientId);
        if (t !== undefined) {
          this.#sent.delete(e.clientId);
          let h = this.#latencyByType.get(e.orderType);
          if (h === undefined) this.#latencyByType.set(e.orderType, (h = this.#latency.labels(e.orderType)));
          h.observe((this.#now() - t) / 1000);
        }
        if (e.state === 'UNKNOWN') this.#unknown.inc();
        return;
      }
      case 'fill':
        this.#child(this.#fills, 'f', e.strategy, e.symbol, e.side, e.isMaker ? 'maker' : 'taker').inc();
        this.#streams.lastFill = wall;
        return;
      case 'intentRejected':
        this.#child(this.#rejections, 'r', e.strategy, String(e.reason)).inc();
        return;
      case 'connection':
        this.#streams.connections.set(e.connection, e.status);
        if (e.status === 'up') {
          if (this.#down.delete(e.connection)) this.#reconnects.inc({ connection: e.connection });
        } else if (!this.#down.has(e.connection)) {
          this.#down.add(e.connection);
          this.#disconnects.inc({ connection: e.connection, status: e.status });
        }
        return;
      case 'bookStatus':
        if (!e.ready) this.#resyncs.inc({ symbol: e.symbol });
        return;
      case 'trade':
      case 'aggTrade':
      case 'kline':
      case 'miniTicker':
      case 'depthDiff':
      case 'partialDepth':
      case 'bookTicker':
        this.#streams.market.set(e.symbol, wall);
        return;
      case 'executionReport':
      case 'accountPosition':
      case 'streamTerminated':
        this.#streams.user = wall;
        return;
      case 'reconcileNeeded':
      case 'timer':
      case 'tradingState':
        return;
      default:
        assertNever(e);
    }
  }

  /** Running totals the run and the notifier keep themselves, exposed as counters. */
  #totals(registers: Registry[], o: RunMetricsOptions): void {
    const run = this.#run;
    new Counter({
      name: 'kancil_intents_total',
      help: 'Intents seen by the risk gate since start, by verdict (intents: all of them)',
      labelNames: ['verdict'],
      registers,
      collect() {
        this.reset();
        for (const [k, v] of Object.entries(run.intentStats())) this.inc({ verdict: k }, v);
      },
    });
    const notifications = o.notifications;
    if (notifications === undefined) return;
    const byLane = (name: string, help: string, pick: (c: LaneCounts) => number): void =>
      void new Counter({
        name,
        help,
        labelNames: ['channel', 'priority'],
        registers,
        collect() {
          this.reset();
          for (const c of notifications()) this.inc({ channel: c.channel, priority: c.priority }, pick(c));
        },
      });
    byLane('kancil_notifications_sent_total', 'Alerts delivered, by channel and priority (a coalesced message counts each alert)', (c) => c.sent);
    byLane('kancil_notifications_dropped_total', 'Alerts not delivered: info over its budget or failed (critical ones are retried, never dropped)', (c) => c.dropped);
    byLane('kancil_notification_failures_total', 'Delivery attempts that failed', (c) => c.failed);
  }

  /** The child of `counter` with these label values (in its labelNames order), made once. */
  #child(counter: Counter<string>, tag: string, ...values: string[]): { inc(): void } {
    const key = `${tag}\u0000${values.join('\u0000')}`;
    let c = this.#children.get(key);
    if (c === undefined) this.#children.set(key, (c = counter.labels(...values)));
    return c;
  }
}
