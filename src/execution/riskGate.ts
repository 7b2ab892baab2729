/**
 * The risk gate of a live or paper run: the pure risk checker (src/risk) over a context built
 * from the strategy host's view of each strategy (budget, positions, own open orders, placement
 * times), the tracker's account-wide open orders, the local books and the trading-state machine.
 */
import type { BookView } from '../core/bookView.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { ALGO_ORDER_TYPES } from '../core/enums.js';
import type { SymbolInfo } from '../core/types.js';
import type { Intent } from '../bus/intents.js';
import type { StrategyState } from '../backtest/StrategyHost.js';
import type { OrderRecord } from '../store/records.js';
import { checkIntent } from '../risk/checkIntent.js';
import { compileRiskRules } from '../risk/rules.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import type { RiskContext, RiskMarketView, UserLimits } from '../risk/types.js';
import type { PipelineDecision } from '../execution/pipeline.js';
import type { RunConfig } from './runConfig.js';

/** What the gate reads besides the strategy's own state. */
export interface RiskGateDeps {
  readonly symbols: readonly SymbolInfo[];
  readonly config: RunConfig['risk'];
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
export function riskGate(d: RiskGateDeps): (intent: Intent, s: StrategyState) => PipelineDecision {
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
  let current: StrategyState | undefined;
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
