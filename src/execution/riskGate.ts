/**
 * The risk gate of every run (live, paper, backtest): the pure risk checker (src/risk) over a
 * context built from the strategy runner's view of each strategy (budget, positions, own open
 * orders, placement times), the account-wide open orders, the local books and the trading-state
 * machine. The strategy view and the limits are declared here structurally, so execution does not
 * import the strategy runner or the config schema (DESIGN.md: execution imports exchange, risk, store).
 */
import type { BookView } from '../core/bookView.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { ALGO_ORDER_TYPES } from '../core/enums.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { PriceRangeRule, SymbolInfo } from '../core/types.js';
import type { Intent } from '../bus/intents.js';
import type { OrderRecord } from '../store/records.js';
import { checkIntent } from '../risk/checkIntent.js';
import { compileRiskRules } from '../risk/rules.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import type { OpenOrderCounts, RiskContext, RiskMarketView, UserLimits } from '../risk/types.js';
import type { IntentDecision } from '../bus/decision.js';

/** What the account-wide order counts read of a live order (a tracker's OrderRecord has it). */
export interface LiveOrderView {
  readonly symbol: OrderRecord['symbol'];
  readonly orderType: OrderRecord['orderType'];
  readonly icebergQty?: OrderRecord['icebergQty'];
}

/** What the gate reads of the strategy that sent an intent (the strategy runner's per-strategy state). */
export interface RiskGateStrategy {
  readonly name: string;
  free(asset: string): Decimal;
  position(asset: string): Decimal;
  openOrders(): readonly { readonly symbol: string; readonly side: string; readonly quantity: Decimal | undefined; readonly cumQty: Decimal }[];
  placementsSince(t: number): number;
  /**
   * Unfilled quantity of its open orders on a symbol side, when the strategy keeps it: the value
   * of the sum over openOrders() (which answers when this is absent), without the loop.
   */
  openQty?(symbol: string, side: 'BUY' | 'SELL'): Decimal;
  /** Number of its open orders, when the strategy counts them: openOrders().length without the array. */
  openCount?(): number;
  /**
   * floor(free(asset) x 10^scale), when the strategy keeps its balances in integers: exact,
   * +Infinity from 2^52 on, NaN when it cannot say (the checker then reads free()).
   */
  freeUnits?(asset: string, scale: number): number;
}

/** User limits as the configuration gives them (decimals as strings); src/config's `risk` section. */
export interface RiskGateLimits {
  readonly mode: 'reject' | 'adjust';
  readonly maxOrderNotional?: string | undefined;
  readonly maxOpenOrders?: number | undefined;
  readonly maxOrderRate?: { readonly count: number; readonly windowMs: number } | undefined;
  readonly dailyLossLimit?: string | undefined;
  readonly maxPosition?: Readonly<Record<string, string>> | undefined;
}

/** What the gate reads besides the strategy's own state. */
export interface RiskGateDeps {
  readonly symbols: readonly SymbolInfo[];
  readonly config: RiskGateLimits;
  readonly states: TradingStateMachine;
  readonly now: () => number;
  readonly book: (symbol: string) => BookView | undefined;
  /** Last trade price; stands for the average when `avgPrice` is not given (a backtest's replay). */
  readonly lastPrice: (symbol: string) => Decimal | undefined;
  /**
   * Weighted average price over `mins` minutes (0: last price) for PERCENT_PRICE and
   * NOTIONAL(applyToMarket); undefined while unknown (the checker then leaves the filter to the exchange).
   */
  readonly avgPrice?: (symbol: string, mins: number) => Decimal | undefined;
  /** PRICE_RANGE reference price: null when the exchange has none, undefined when unknown or stale. */
  readonly referencePrice?: (symbol: string) => Decimal | null | undefined;
  /** PRICE_RANGE execution rules of the symbols (type 1 only; others are ignored by the checker). */
  readonly priceRanges?: readonly PriceRangeRule[];
  /** EXCHANGE_MAX_NUM_ORDERS / EXCHANGE_MAX_NUM_ALGO_ORDERS, counted over `liveOrders` (the whole account this run knows). */
  readonly exchangeFilters?: ExchangeFilters;
  /** Every live order of the account that this run knows (tracker records, or a simulator's open orders). */
  readonly liveOrders: () => readonly LiveOrderView[];
  /**
   * The counts of `liveOrders` (of one symbol, or all when `symbol` is undefined), when the caller
   * keeps them as orders come and go: the same numbers without building and walking the list per
   * check (a simulator's venue keeps them).
   */
  readonly liveOrderCounts?: (symbol: string | undefined) => OpenOrderCounts;
  /** Profit and loss of a strategy's trades of the current UTC day, marked to market (quote terms). */
  readonly dailyPnl: (strategy: string) => Decimal;
  /** A strategy's own mode and limits (`strategies[i].risk`); each one set replaces the run-wide one. */
  readonly strategyConfig?: (strategy: string) => Partial<RiskGateLimits> | undefined;
}

/** The checker's limits from configured ones (decimal strings parsed once). */
function userLimits(c: Partial<RiskGateLimits>): UserLimits {
  return {
    ...(c.maxOrderNotional !== undefined ? { maxOrderNotional: new Decimal(c.maxOrderNotional) } : {}),
    ...(c.maxOpenOrders !== undefined ? { maxOpenOrders: c.maxOpenOrders } : {}),
    ...(c.maxOrderRate !== undefined ? { maxOrderRate: c.maxOrderRate } : {}),
    ...(c.dailyLossLimit !== undefined ? { dailyLossLimit: new Decimal(c.dailyLossLimit) } : {}),
    ...(c.maxPosition !== undefined ? { maxPosition: Object.fromEntries(Object.entries(c.maxPosition).map(([k, v]) => [k, new Decimal(v)])) } : {}),
  };
}

/** Run-wide settings with a strategy's own on top (keys it leaves out keep the run-wide value). */
function merged(run: RiskGateLimits, own: Partial<RiskGateLimits> | undefined): RiskGateLimits {
  if (own === undefined) return run;
  const out: Record<string, unknown> = { ...run };
  for (const [k, v] of Object.entries(own)) if (v !== undefined) out[k] = v;
  return out as unknown as RiskGateLimits;
}

/** Builds the gate function the pipeline calls with the host's strategy state. */
export function riskGate(d: RiskGateDeps): (intent: Intent, s: RiskGateStrategy) => IntentDecision {
  const rules = compileRiskRules(d.symbols, d.exchangeFilters ?? {}, d.priceRanges ?? []);
  const avg = d.avgPrice;
  const ref = d.referencePrice;
  const market: RiskMarketView = {
    // Without a trade window (a backtest's replay) the last trade price stands for the average.
    avgPrice: avg ?? ((symbol) => d.lastPrice(symbol)),
    referencePrice: ref ?? (() => undefined),
    book: d.book,
  };
  let current: RiskGateStrategy | undefined;
  // The account's live orders as of the check in progress, read once per check (the order counts
  // ask for them twice, and nothing changes while a check runs).
  let live: readonly LiveOrderView[] | undefined;
  const liveNow = (): readonly LiveOrderView[] => (live ??= d.liveOrders());
  const kept = d.liveOrderCounts;
  const account: RiskContext['account'] = {
    free: (asset) => current?.free(asset) ?? ZERO,
    freeUnits: (asset, scale) => current?.freeUnits?.(asset, scale) ?? NaN,
    position: (asset) => current?.position(asset) ?? ZERO,
    openQty: (symbol, side) => {
      if (current?.openQty !== undefined) return current.openQty(symbol, side);
      let q = ZERO;
      for (const o of current?.openOrders() ?? []) if (o.symbol === symbol && o.side === side && o.quantity) q = q.plus(o.quantity.minus(o.cumQty));
      return q;
    },
    symbolOpenOrders: (symbol) => (kept !== undefined ? kept(symbol) : counts(liveNow(), symbol)),
    exchangeOpenOrders: () => {
      const c = kept !== undefined ? kept(undefined) : counts(liveNow(), undefined);
      return { total: c.total, algo: c.algo };
    },
    strategyOpenOrders: () => (current === undefined ? 0 : (current.openCount?.() ?? current.openOrders().length)),
    placementsSince: (t) => current?.placementsSince(t) ?? 0,
    dailyPnl: () => (current ? d.dailyPnl(current.name) : ZERO),
  };
  // One context per strategy (its mode and limits; the checker unpacks each limits object once).
  const contexts = new Map<string, RiskContext>();
  const contextOf = (strategy: string): RiskContext => {
    let ctx = contexts.get(strategy);
    if (ctx === undefined) {
      const c = merged(d.config, d.strategyConfig?.(strategy));
      ctx = {
        get now() {
          return d.now();
        },
        // The strategy's own operator floor (a per-strategy halt or reduce) joins the run's state.
        stateFor: (symbol) => d.states.stateFor(symbol, strategy),
        mode: c.mode,
        rules,
        limits: userLimits(c),
        market,
        account,
      };
      contexts.set(strategy, ctx);
    }
    return ctx;
  };
  return (intent, s) => {
    current = s;
    live = undefined;
    try {
      return checkIntent(intent, contextOf(s.name));
    } finally {
      live = undefined;
    }
  };
}

/** Open, algo and iceberg counts of the live orders (of one symbol, or all when `symbol` is undefined). */
function counts(orders: readonly LiveOrderView[], symbol: string | undefined): { total: number; algo: number; iceberg: number } {
  let total = 0;
  let algo = 0;
  let iceberg = 0;
  for (const o of orders) {
    if (symbol !== undefined && o.symbol !== symbol) continue;
    total++;
    if (ALGO_ORDER_TYPES.has(o.orderType)) algo++;
    if (o.icebergQty?.gt(0)) iceberg++;
  }
  return { total, algo, iceberg };
}
