/**
 * Prometheus metrics of a running bot at /metrics, with prom-client (the maintained Node client:
 * exposition format, histograms, the process's own CPU, memory and event-loop lag). Counters are
 * kept from bus events as they pass (a few map lookups each); gauges of positions, PnL, open
 * orders, request weight and trading state are read from the run when Prometheus scrapes.
 * Gauge values are binary floats: they are for watching, never for deciding an order.
 *
 * Order round trip: from the order's first PENDING update (journalled, about to be sent) to its
 * first update in any other state (the venue's answer, or UNKNOWN when none came), on this
 * process's clock.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { ConsoleRun } from './source.js';
import { positionPnl } from './views.js';
import { splitSymbol } from '../core/symbols.js';

const STATE_VALUE: Readonly<Record<TradingStateName, number>> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

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

  constructor(run: ConsoleRun, o: { now?: () => number; processMetrics?: boolean } = {}) {
    this.#run = run;
    this.#now = o.now ?? (() => performance.now());
    const registers = [this.registry];
    const labels = { name: run.name, mode: run.mode };
    this.registry.setDefaultLabels(labels);
    if (o.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'kancil_' });
    this.#orders = new Counter({ name: 'kancil_orders_total', help: 'Orders journalled and sent (each clientId once)', labelNames: ['strategy', 'symbol', 'side', 'type'], registers });
    this.#states = new Counter({ name: 'kancil_order_states_total', help: 'Order state changes, by the state reached', labelNames: ['state'], registers });
    this.#fills = new Counter({ name: 'kancil_fills_total', help: 'Fills of the run\'s orders', labelNames: ['strategy', 'symbol', 'side', 'role'], registers });
    this.#rejections = new Counter({ name: 'kancil_rejections_total', help: 'Intents refused by the risk checker (or the venue), by reason', labelNames: ['strategy', 'reason'], registers });
    this.#latency = new Histogram({ name: 'kancil_order_roundtrip_seconds', help: 'From an order journalled (PENDING) to its first answer', labelNames: ['type'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.#reconnects = new Counter({ name: 'kancil_reconnects_total', help: 'Stream connections up again after being down or resyncing', labelNames: ['connection'], registers });
    this.#disconnects = new Counter({ name: 'kancil_disconnects_total', help: 'Stream connections going down or resyncing', labelNames: ['connection', 'status'], registers });
    this.#resyncs = new Counter({ name: 'kancil_book_resyncs_total', help: 'Local books found wrong (gap, stale, reconnect) and rebuilt', labelNames: ['symbol'], registers });
    this.#unknown = new Counter({ name: 'kancil_unknown_outcome_orders_total', help: 'Orders whose placement outcome became unknown (timeout, 5XX), reconciled by clientId', registers });
    this.#gauges(registers);
  }

  /** Starts counting bus events. */
  start(): void {
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
        return;
      case 'intentRejected':
        this.#child(this.#rejections, 'r', e.strategy, String(e.reason)).inc();
        return;
      case 'connection':
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
      default:
        return;
    }
  }

  /** The child of `counter` with these label values (in its labelNames order), made once. */
  #child(counter: Counter<string>, tag: string, ...values: string[]): { inc(): void } {
    const key = `${tag}\u0000${values.join('\u0000')}`;
    let c = this.#children.get(key);
    if (c === undefined) this.#children.set(key, (c = counter.labels(...values)));
    return c;
  }

  /** Gauges read from the run at scrape time. */
  #gauges(registers: Registry[]): void {
    const run = this.#run;
    new Gauge({
      name: 'kancil_position',
      help: 'Net base-asset position per strategy and symbol',
      labelNames: ['strategy', 'symbol'],
      registers,
      collect() {
        this.reset();
        for (const p of run.positions()) this.set({ strategy: p.strategy, symbol: p.symbol }, p.position.toNumber());
      },
    });
    new Gauge({
      name: 'kancil_pnl',
      help: 'PnL per strategy and symbol in the quote asset (cash flow plus the position at the mark)',
      labelNames: ['strategy', 'symbol', 'quote'],
      registers,
      collect() {
        this.reset();
        for (const p of run.positions()) this.set({ strategy: p.strategy, symbol: p.symbol, quote: splitSymbol(p.symbol).quote }, positionPnl(p).toNumber());
      },
    });
    new Gauge({
      name: 'kancil_open_orders',
      help: 'Live orders per strategy and state (PENDING, NEW, PARTIALLY_FILLED, UNKNOWN)',
      labelNames: ['strategy', 'state'],
      registers,
      collect() {
        this.reset();
        const n = new Map<string, { strategy: string; state: string; count: number }>();
        for (const o of run.openOrders()) {
          const k = `${o.strategy} ${o.state}`;
          const c = n.get(k) ?? { strategy: o.strategy, state: o.state, count: 0 };
          c.count++;
          n.set(k, c);
        }
        for (const c of n.values()) this.set({ strategy: c.strategy, state: c.state }, c.count);
      },
    });
    new Gauge({
      name: 'kancil_request_weight_used',
      help: 'Request weight used as the exchange last reported it (X-MBX-USED-WEIGHT), per host and interval',
      labelNames: ['host', 'interval'],
      registers,
      collect() {
        this.reset();
        for (const w of run.weights()) this.set({ host: w.host, interval: w.interval }, w.used);
      },
    });
    new Gauge({
      name: 'kancil_trading_state',
      help: 'Trading state: 0 ACTIVE, 1 REDUCING, 2 HALTED (scope: run, or a strategy\'s operator floor)',
      labelNames: ['scope'],
      registers,
      collect() {
        this.reset();
        this.set({ scope: 'run' }, STATE_VALUE[run.tradingState().state]);
        for (const s of run.strategies()) this.set({ scope: s.name }, STATE_VALUE[s.state]);
      },
    });
    new Gauge({
      name: 'kancil_strategy_failed',
      help: '1 when the strategy threw and was stopped',
      labelNames: ['strategy'],
      registers,
      collect() {
        this.reset();
        for (const s of run.strategies()) this.set({ strategy: s.name }, s.failure ? 1 : 0);
      },
    });
    new Gauge({
      name: 'kancil_intents',
      help: 'Intents seen by the risk gate since start, by verdict',
      labelNames: ['verdict'],
      registers,
      collect() {
        this.reset();
        for (const [k, v] of Object.entries(run.intentStats())) this.set({ verdict: k }, v);
      },
    });
  }
}
