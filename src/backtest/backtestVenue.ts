/**
 * What a backtest trades on and with: the strategies its config names (plugins loaded), the
 * simulated venue (SimVenue over the matching engine for recordings, the candle venue for kline
 * files) and the risk inputs that venue answers. The rest of a run is the composition root's
 * (src/run/assemble.ts).
 */
import type { Bus } from '../bus/Bus.js';
import { Decimal } from '../core/decimal.js';
import { parseExchangeFilters, parseSymbolFilters, type ExchangeFilters, type WireFilter } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import type { RiskInputs } from '../run/assemble.js';
import { MatchingEngine } from '../sim/engine.js';
import { loadPlugin, plainErrorAt, resolvePlugin } from '../strategy/loader.js';
import type { StrategySpec } from '../strategy/StrategyRunner.js';
import type { StrategyPlugin } from '../strategy/types.js';
import { CandleVenue, bpsToRate } from '../venue/CandleVenue.js';
import { latencyModel } from '../venue/latency.js';
import type { VirtualScheduler } from '../venue/Scheduler.js';
import { ShownOwnOrders } from '../venue/ShownOwnOrders.js';
import { SimVenue } from '../venue/SimVenue.js';
import type { BacktestConfig } from './config.js';

/** Ended orders (and own trades) the matching engine keeps per symbol in a backtest. */
const ENGINE_HISTORY_LIMIT = 1000;

/** Engine account id of backtests. */
export const BACKTEST_ACCOUNT = 'backtest';

/** SymbolInfo of a configured symbol (spot, every order type, STP EXPIRE_MAKER default). */
export function symbolInfoOf(symbol: string, filters: readonly WireFilter[]): SymbolInfo {
  const u = symbol.indexOf('_');
  return {
    type: 1,
    symbol,
    baseAsset: symbol.slice(0, u),
    quoteAsset: symbol.slice(u + 1),
    basePrecision: 8,
    quotePrecision: 8,
    filters: parseSymbolFilters(filters, `symbols.${symbol}.filters`),
    orderTypes: ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT', 'LIMIT_MAKER'],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'],
    icebergEnable: true,
    ocoEnable: true,
    spotTradingEnable: true,
    marginTradingEnable: false,
  };
}

/** The symbols a run trades: the candle files' in candle mode, else the config's. */
export function runSymbols(cfg: BacktestConfig): SymbolInfo[] {
  const bt = cfg.backtest;
  return bt.candles.length > 0
    ? bt.candles.map((c) => symbolInfoOf(c.symbol, (cfg.symbols[c.symbol]?.filters ?? []) as WireFilter[]))
    : Object.entries(cfg.symbols).map(([sym, v]) => symbolInfoOf(sym, v.filters as WireFilter[]));
}

/** The config's strategies with their plugins, and the module file of each plugin loaded from disk (an input of the run). */
export async function loadStrategies(
  cfg: BacktestConfig,
  opts: { readonly plugins?: Readonly<Record<string, StrategyPlugin>>; readonly paramOverrides?: Readonly<Record<string, Readonly<Record<string, unknown>>>> },
): Promise<{ strategies: StrategySpec[]; pluginFiles: Map<string, string> }> {
  const errorAt = plainErrorAt(cfg.file);
  const strategies: StrategySpec[] = [];
  const pluginFiles = new Map<string, string>();
  for (const [i, s] of cfg.strategies.entries()) {
    const given = opts.plugins?.[s.plugin];
    if (given === undefined) pluginFiles.set(s.name, resolvePlugin(s.plugin, cfg.dir));
    const plugin = given ?? (await loadPlugin(s.plugin, cfg.dir, errorAt, ['strategies', i]));
    const budget: Record<string, Decimal> = {};
    for (const [a, v] of Object.entries(s.budget)) budget[a] = new Decimal(v);
    strategies.push({ name: s.name, plugin, params: { ...s.params, ...(opts.paramOverrides?.[s.name] ?? {}) }, symbols: s.symbols, budget });
  }
  return { strategies, pluginFiles };
}

/** A backtest's venue: over the matching engine (recordings) or over bars (candles). */
export type BacktestVenue =
  | { readonly kind: 'tick'; readonly venue: SimVenue; readonly engine: MatchingEngine; readonly shown: ShownOwnOrders; readonly exchangeFilters: ExchangeFilters }
  | { readonly kind: 'candle'; readonly venue: CandleVenue; readonly exchangeFilters: ExchangeFilters };

/** Builds the venue of a run on its scheduler, publishing its reports on `bus`. */
export function backtestVenue(cfg: BacktestConfig, strategies: readonly StrategySpec[], scheduler: VirtualScheduler, bus: Bus): BacktestVenue {
  const bt = cfg.backtest;
  const makerFee = bpsToRate(bt.fees.makerBps);
  const takerFee = bpsToRate(bt.fees.takerBps);
  const exchangeFilters = parseExchangeFilters(cfg.exchangeFilters, 'exchangeFilters');
  if (bt.candles.length > 0) return { kind: 'candle', venue: new CandleVenue({ scheduler, publish: (e) => bus.publish(e), makerFee, takerFee }), exchangeFilters };
  // Our orders as the depth stream would show them (ShownOwnOrders.ts).
  const shown = new ShownOwnOrders(scheduler);
  const balances: Record<string, Decimal> = {};
  if (bt.balances) for (const [a, v] of Object.entries(bt.balances)) balances[a] = new Decimal(v);
  else for (const s of strategies) for (const [a, v] of Object.entries(s.budget)) balances[a] = (balances[a] ?? new Decimal(0)).plus(v);
  const engine = new MatchingEngine({
    symbols: Object.entries(cfg.symbols).map(([sym, v]) => ({ info: symbolInfoOf(sym, v.filters as WireFilter[]) })),
    accounts: [{ id: BACKTEST_ACCOUNT, makerCommission: makerFee, takerCommission: takerFee, balances }],
    exchangeFilters,
    bufferEvents: false,
    fillModel: bt.fillModel,
    queueModel: bt.queueModel,
    // Nothing in a backtest queries the engine's order history (the venue keeps its live orders
    // itself): a bound keeps a long run from holding every order it placed (~0.35 kB each). It
    // only needs to outlast a report in flight, which a thousand orders do.
    historyLimit: ENGINE_HISTORY_LIMIT,
  });
  const venue = new SimVenue({ engine, accountId: BACKTEST_ACCOUNT, scheduler, publish: (e) => bus.publish(e), latency: latencyModel(bt.latency), shown });
  return { kind: 'tick', venue, engine, shown, exchangeFilters };
}

/** What the risk gate reads of the venue: its open orders, and in tick mode the engine's average price. */
export function venueRiskInputs(cfg: BacktestConfig, v: BacktestVenue, now: () => number): RiskInputs {
  const base = {
    config: cfg.risk,
    exchangeFilters: v.exchangeFilters,
    strategyConfig: (name: string) => cfg.strategies.find((s) => s.name === name)?.risk,
  };
  if (v.kind === 'candle') return { ...base, liveOrders: () => v.venue.liveIntents() };
  const venue = v.venue;
  return { ...base, avgPrice: engineAverage(v.engine, now), liveOrders: () => venue.liveIntents(), liveOrderCounts: (s) => venue.openOrderCounts(s) };
}

/**
 * The risk gate's average price from the matching engine's own trade window, so the gate checks
 * PERCENT_PRICE and NOTIONAL(applyToMarket) against the price the simulated exchange enforces
 * (and the one a live run computes from the trade stream). The previous Decimal is handed out
 * again while the value is unchanged: the risk checker caches bounds by the Decimal's identity.
 */
function engineAverage(engine: MatchingEngine, now: () => number): (symbol: string, mins: number) => Decimal | undefined {
  const last = new Map<string, Decimal>();
  return (symbol, mins) => {
    const a = engine.averagePrice(symbol, mins, now());
    if (a === null) return undefined;
    const key = `${symbol}/${mins}`;
    const prev = last.get(key);
    if (prev !== undefined && prev.eq(a)) return prev;
    last.set(key, a);
    return a;
  };
}
