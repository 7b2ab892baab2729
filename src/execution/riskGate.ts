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
import type { SymbolInfo } from '../core/types.js';
import type { Intent } from '../bus/intents.js';
import type { OrderRecord } from '../store/records.js';
import { checkIntent } from '../risk/checkIntent.js';
import { compileRiskRules } from '../risk/rules.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import type { RiskContext, RiskMarketView, UserLimits } from '../risk/types.js';
import type { PipelineDecision } from './pipeline.js';

/** What the gate reads of the strategy that sent an intent (the strategy runner's per-strategy state). */
export interface RiskGateStrategy {
  readonly name: string;
  free(asset: string): Decimal;
  position(asset: string): Decimal;
  openOrders(): readonly { readonly symbol: string; readonly side: string; readonly quantity: Decimal | undefined; readonly cumQty: Decimal }[];
  placementsSince(t: number): number;
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
  readonly lastPrice: (symbol: string) => Decimal | undefined;
  /** Every live order of the account that this run knows (tracker). */
  readonly liveOrders: () => readonly OrderRecord[];
  /** Profit and loss of a strategy's trades of the current UTC day, marked to market (quote terms). */
  readonly dailyPnl: (strategy: string) => Decimal;
}

/** Builds the gate function the pipeline calls with the host's strategy state. */
export function riskGate(d: RiskGateDeps): (intent: Intent, s: RiskGateStrategy) => PipelineDecision {
  const rules = compileRiskRules(d.symbols);
  const limits: UserLimits = {
    ...(d.config.maxOrderNotional !== undefined ? { maxOrderNotional: new Decimal(d.config.maxOrderNotional) } : {}),
    ...(d.config.maxOpenOrders !== undefined ? { maxOpenOrders: d.config.maxOpenOrders } : {}),
    ...(d.config.maxOrderRate !== undefined ? { maxOrderRate: d.config.maxOrderRate } : {}),
    ...(d.config.dailyLossLimit !== undefined ? { dailyLossLimit: new Decimal(d.config.dailyLossLimit) } : {}),
    ...(d.config.maxPosition !== undefined
      ? { maxPosition: Object.fromEntries(Object.entries(d.config.maxPosition).map(([k, v]) => [k, new Decimal(v)])) }
      : {}),
  };
  const market: RiskMarketView = {
    // A live run keeps no trade window: the last trade price stands for the average (avgPriceMins 0 semantics).
    avgPrice: (symbol) => d.lastPrice(symbol),
    referencePrice: () => undefined,
    book: d.book,
  };
  let current: RiskGateStrategy | undefined;
  const ctx: RiskContext = {
    get now() {
      return d.now();
    },
    stateFor: (symbol) => d.states.stateFor(symbol),
    mode: d.config.mode,
    rules,
    limits,
    market,
    account: {
      free: (asset) => current?.free(asset) ?? ZERO,
      position: (asset) => current?.position(asset) ?? ZERO,
      openQty: (symbol, side) => {
        let q = ZERO;
        for (const o of current?.openOrders() ?? []) if (o.symbol === symbol && o.side === side && o.quantity) q = q.plus(o.quantity.minus(o.cumQty));
        return q;
      },
      symbolOpenOrders: (symbol) => counts(d.liveOrders().filter((o) => o.symbol === symbol)),
      exchangeOpenOrders: () => {
        const c = counts(d.liveOrders());
        return { total: c.total, algo: c.algo };
      },
      strategyOpenOrders: () => current?.openOrders().length ?? 0,
      placementsSince: (t) => current?.placementsSince(t) ?? 0,
      dailyPnl: () => (current ? d.dailyPnl(current.name) : ZERO),
    },
  };
  return (intent, s) => {
    current = s;
    return checkIntent(intent, ctx);
  };
}

function counts(orders: readonly OrderRecord[]): { total: number; algo: number; iceberg: number } {
  let algo = 0;
  let iceberg = 0;
  for (const o of orders) {
    if (ALGO_ORDER_TYPES.has(o.orderType)) algo++;
    if (o.icebergQty?.gt(0)) iceberg++;
  }
  return { total: orders.length, algo, iceberg };
}
