/**
 * Public contract of the risk checker: what it reads (RiskContext), what it answers
 * (RiskDecision) and the user limits it enforces. Pure data and read-only views: the checker
 * never mutates anything and never does I/O, so live, paper and backtest share one verdict.
 */
import type { Decimal } from '../core/decimal.js';
import type { RejectReasonName } from '../core/enums.js';
import type { BookView } from '../core/bookView.js';
import type { TradingStateName } from '../bus/events.js';
import type { IntentAccept, IntentAdjust, IntentReject } from '../bus/decision.js';
import type { RiskRules } from './rules.js';
import type { UserLimits } from './limits.js';

export type { UserLimits } from './limits.js';

/** Per-strategy choice for prices off tick and quantities off step: refuse, or round toward the safe side. */
export type RiskMode = 'reject' | 'adjust';

/** Open order counts on one symbol (account-wide, as the exchange counts them for its filters). */
export interface OpenOrderCounts {
  readonly total: number;
  readonly algo: number;
  readonly iceberg: number;
}

/** Market data the checker compares against. Undefined means unknown: the dependent check is skipped or refuses as documented. */
export interface RiskMarketView {
  /**
   * Weighted average price over the last `mins` minutes (0: the last trade price), as PERCENT_PRICE
   * and NOTIONAL (applyToMarket) use it.
   */
  avgPrice(symbol: string, mins: number): Decimal | undefined;
  /** Reference price of the PRICE_RANGE execution rule (null when the exchange has none set). */
  referencePrice(symbol: string): Decimal | null | undefined;
  /** Local order book (market-order cost estimates). */
  book(symbol: string): BookView | undefined;
}

/** Account and strategy state the checker reads. */
export interface RiskAccountView {
  /** Free balance of an asset available to this strategy (its budget, capped by the account's free balance). */
  free(asset: string): Decimal;
  /**
   * floor(free(asset) x 10^scale), when the account keeps balances in integers: exact, +Infinity
   * from 2^52 on, NaN when it cannot say. Lets the balance check compare on its grid without a
   * Decimal; free() still gives the balance for messages and whenever this is absent or NaN.
   */
  freeUnits?(asset: string, scale: number): number;
  /** The strategy's net position in a base asset (fills since the run started). */
  position(asset: string): Decimal;
  /** Quantity of the strategy's open orders on a symbol and side that is still unfilled. */
  openQty(symbol: string, side: 'BUY' | 'SELL'): Decimal;
  /** Account-wide open orders on a symbol (MAX_NUM_ORDERS, MAX_NUM_ALGO_ORDERS, MAX_NUM_ICEBERG_ORDERS). */
  symbolOpenOrders(symbol: string): OpenOrderCounts;
  /** Account-wide open orders on the exchange (EXCHANGE_MAX_NUM_ORDERS, EXCHANGE_MAX_NUM_ALGO_ORDERS). */
  exchangeOpenOrders(): { readonly total: number; readonly algo: number };
  /** The strategy's own open orders (max open orders). */
  strategyOpenOrders(): number;
  /** The strategy's placements with time in (now - windowMs, now] (max order rate). */
  placementsSince(windowStart: number): number;
  /** The strategy's profit and loss of the current day in quote terms (negative is a loss). */
  dailyPnl(): Decimal;
}

/** Everything one check reads. Build one per strategy and keep it; the checker never mutates it. */
export interface RiskContext {
  /** Current time (ms) of the run's clock; virtual in backtests. */
  readonly now: number;
  /** Trading state that applies to the intent's symbol (see TradingStateMachine.stateFor). */
  stateFor(symbol: string): TradingStateName;
  readonly mode: RiskMode;
  readonly rules: RiskRules;
  readonly limits: UserLimits;
  readonly market: RiskMarketView;
  readonly account: RiskAccountView;
}

/** The intent passes unchanged. */
export type RiskAccept = IntentAccept;

/** The intent passes after rounding (mode 'adjust'); `intent` is what must be sent. */
export type RiskAdjust = IntentAdjust;

/** The intent is refused, for one of the checker's reason codes. `message` names the field and its value. */
export interface RiskReject extends IntentReject {
  readonly reason: RejectReasonName;
}

/** Verdict of the risk checker: the order path's one decision type (bus/decision.ts), its reasons the checker's codes. */
export type RiskDecision = RiskAccept | RiskAdjust | RiskReject;

/** The one accept verdict (shared so the hot path allocates nothing). */
export const ACCEPT: RiskAccept = Object.freeze({ kind: 'accept' });
