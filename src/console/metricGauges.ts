/**
 * The run's gauges, read when Prometheus scrapes: positions and PnL (total, realized,
 * unrealized, as the run splits it), balances and equity, open orders and the oldest one's age, streams (state, seconds
 * since the last message), clock offset, request weight against its limit, trading state, daily
 * loss headroom, the last fill, build info.
 * Equity is the run's own figure (ConsoleRun.equity): one quote asset, the run's marks, an asset
 * without a price listed in kancil_equity_unvalued_assets rather than guessed.
 */
import { Gauge, type Registry } from 'prom-client';
import type { TradingStateName } from '../bus/events.js';
import { splitSymbol } from '../core/symbols.js';
import type { ConsoleRun } from './source.js';
import { positionJson, positionPnl } from './views.js';

const STATE_VALUE: Readonly<Record<TradingStateName, number>> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };
const STREAM_VALUE: Readonly<Record<string, number>> = { up: 0, resyncing: 1, down: 2 };

/** What the bus taught the metrics about streams and fills (wall-clock ms). */
export interface StreamClock {
  /** Last market-data message per symbol. */
  readonly market: Map<string, number>;
  /** Last user-data message. */
  user: number | undefined;
  /** Latest status per connection. */
  readonly connections: Map<string, string>;
  lastFill: number | undefined;
}

/** What the gauges read besides the run. */
export interface GaugeSources {
  readonly streams: StreamClock;
  readonly now: () => number;
  readonly version: string;
}

type Collect = (g: Gauge<string>) => void;

/** Registers the run's gauges. */
export function runGauges(run: ConsoleRun, registers: Registry[], src: GaugeSources): void {
  const gauge = (name: string, help: string, labelNames: readonly string[], collect: Collect): void =>
    void new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        collect(this);
      },
    });
  pnlGauges(run, gauge);
  accountGauges(run, gauge, src);
  healthGauges(run, gauge, src);
}

type GaugeMaker = (name: string, help: string, labelNames: readonly string[], collect: Collect) => void;

function pnlGauges(run: ConsoleRun, gauge: GaugeMaker): void {
  gauge('kancil_position', 'Net base-asset position per strategy and symbol', ['strategy', 'symbol'], (g) => {
    for (const p of run.positions()) g.set({ strategy: p.strategy, symbol: p.symbol }, p.position.toNumber());
  });
  gauge('kancil_pnl', 'PnL per strategy and symbol in the quote asset (cash flow plus the position at the mark); realized + unrealized', ['strategy', 'symbol', 'quote'], (g) => {
    for (const p of run.positions()) g.set({ strategy: p.strategy, symbol: p.symbol, quote: splitSymbol(p.symbol).quote }, positionPnl(p).toNumber());
  });
  // The run's own split (positionJson: realized = cash + basis, unrealized = position x mark - basis).
  const split = (pick: 'realized' | 'unrealized'): Collect => (g) => {
    for (const p of run.positions()) {
      const v = positionJson(p)[pick];
      if (v !== undefined) g.set({ strategy: p.strategy, symbol: p.symbol, quote: splitSymbol(p.symbol).quote }, Number(v));
    }
  };
  gauge('kancil_pnl_realized', "Realized PnL: cash flow plus the open position's average cost (absent while the run keeps no cost)", ['strategy', 'symbol', 'quote'], split('realized'));
  gauge('kancil_pnl_unrealized', 'Unrealized PnL: the position at the mark less its average cost', ['strategy', 'symbol', 'quote'], split('unrealized'));
  gauge('kancil_daily_pnl', "A strategy's PnL of the current UTC day, marked to market (what its daily loss limit is held to)", ['strategy'], (g) => {
    for (const d of run.dailyLoss?.() ?? []) g.set({ strategy: d.strategy }, d.pnl.toNumber());
  });
  gauge('kancil_daily_loss_headroom', 'Loss still allowed today before the daily loss limit (limit + daily PnL; at or below 0 only reducing orders pass)', ['strategy'], (g) => {
    for (const d of run.dailyLoss?.() ?? []) g.set({ strategy: d.strategy }, d.limit.plus(d.pnl).toNumber());
  });
}

function accountGauges(run: ConsoleRun, gauge: GaugeMaker, src: GaugeSources): void {
  gauge('kancil_balance', 'Account balance per asset, free and locked (live: the exchange; paper: the engine)', ['asset', 'state'], (g) => {
    for (const b of run.balances()) {
      g.set({ asset: b.asset, state: 'free' }, b.free.toNumber());
      g.set({ asset: b.asset, state: 'locked' }, b.locked.toNumber());
    }
  });
  gauge('kancil_equity', "The account's equity: balances (free + locked) in one quote asset at the run's marks", ['quote'], (g) => {
    const e = run.equity?.();
    if (e !== undefined) g.set({ quote: e.quote }, e.value.toNumber());
  });
  gauge('kancil_equity_unvalued_assets', 'Assets held with no price in the equity quote asset (left out of kancil_equity)', ['asset'], (g) => {
    for (const a of run.equity?.()?.unvalued ?? []) g.set({ asset: a }, 1);
  });
  gauge('kancil_open_orders', 'Live orders per strategy and state (PENDING, NEW, PARTIALLY_FILLED, UNKNOWN)', ['strategy', 'state'], (g) => {
    const n = new Map<string, { strategy: string; state: string; count: number }>();
    for (const o of run.openOrders()) {
      const k = `${o.strategy} ${o.state}`;
      const c = n.get(k) ?? { strategy: o.strategy, state: o.state, count: 0 };
      c.count++;
      n.set(k, c);
    }
    for (const c of n.values()) g.set({ strategy: c.strategy, state: c.state }, c.count);
  });
  gauge('kancil_oldest_open_order_age_seconds', 'Age of the oldest live order (0 when none)', [], (g) => {
    let oldest: number | undefined;
    for (const o of run.openOrders()) oldest = oldest === undefined ? o.createdAt : Math.min(oldest, o.createdAt);
    g.set(oldest === undefined ? 0 : Math.max(0, (src.now() - oldest) / 1000));
  });
  gauge('kancil_last_fill_timestamp_seconds', 'When the last fill of this run arrived (Unix seconds; 0 before the first)', [], (g) => {
    g.set(src.streams.lastFill === undefined ? 0 : src.streams.lastFill / 1000);
  });
}

function healthGauges(run: ConsoleRun, gauge: GaugeMaker, src: GaugeSources): void {
  gauge('kancil_stream_state', 'Stream connection state: 0 up, 1 resyncing, 2 down', ['connection'], (g) => {
    for (const [c, s] of src.streams.connections) g.set({ connection: c }, STREAM_VALUE[s] ?? 2);
  });
  gauge('kancil_stream_last_message_age_seconds', 'Seconds since the last message of a stream (market data per symbol, user data)', ['stream'], (g) => {
    const now = src.now();
    for (const [symbol, t] of src.streams.market) g.set({ stream: `market:${symbol}` }, (now - t) / 1000);
    if (src.streams.user !== undefined) g.set({ stream: 'user' }, (now - src.streams.user) / 1000);
  });
  gauge('kancil_clock_offset_seconds', 'Exchange server time minus local time, as last measured (live only)', [], (g) => {
    const ms = run.clockOffsetMs?.();
    if (ms !== undefined) g.set(ms / 1000);
  });
  gauge('kancil_request_weight_used', 'Request weight used as the exchange last reported it (X-MBX-USED-WEIGHT), per host and interval', ['host', 'interval'], (g) => {
    for (const w of run.weights()) g.set({ host: w.host, interval: w.interval }, w.used);
  });
  gauge('kancil_request_weight_limit', 'Request weight limit per host and interval, when known (configured or learned from a 429)', ['host', 'interval'], (g) => {
    for (const w of run.weights()) if (w.limit !== undefined) g.set({ host: w.host, interval: w.interval }, w.limit);
  });
  gauge('kancil_trading_state', "Trading state: 0 ACTIVE, 1 REDUCING, 2 HALTED (scope: run, or a strategy's operator floor)", ['scope'], (g) => {
    g.set({ scope: 'run' }, STATE_VALUE[run.tradingState().state]);
    for (const s of run.strategies()) g.set({ scope: s.name }, STATE_VALUE[s.state]);
  });
  gauge('kancil_strategy_failed', '1 when the strategy threw and was stopped', ['strategy'], (g) => {
    for (const s of run.strategies()) g.set({ strategy: s.name }, s.failure ? 1 : 0);
  });
  gauge('kancil_build_info', 'Always 1; the labels say what runs', ['version', 'node'], (g) => {
    g.set({ version: src.version, node: process.version }, 1);
  });
  gauge('kancil_start_time_seconds', 'When the run started (Unix seconds)', [], (g) => {
    g.set(run.startedAt / 1000);
  });
}
