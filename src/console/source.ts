/**
 * What the operator's console reads of a running bot and the commands it may give, declared here
 * so the console depends on no run composition: src/cli builds one from a live or paper session
 * (the same parts the run trades with, read, never copied). Every read is cheap and synchronous;
 * every value the page or the metrics show is a string of exact digits where it is money.
 */
import type { Observable } from 'rxjs';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { Decimal } from '../core/decimal.js';
import type { FillRecord, OrderRecord } from '../store/records.js';

/** One strategy as the console shows it. */
export interface StrategyView {
  readonly name: string;
  readonly symbols: readonly string[];
  /** The strategy's own operator floor (ACTIVE when none). */
  readonly state: TradingStateName;
  readonly reason: string;
  /** Set when the strategy threw and was stopped. */
  readonly failure?: { readonly error: string; readonly phase: string; readonly t: number } | undefined;
}

/** Position and PnL of one strategy on one symbol (exact decimals). */
export interface PositionView {
  readonly strategy: string;
  readonly symbol: string;
  readonly position: Decimal;
  readonly cash: Decimal;
  readonly fills: number;
  readonly volume: Decimal;
  /** The run's mark (the mid of its local book, else the last trade price), when known. */
  readonly mark: Decimal | undefined;
  /** Average cost of the open position in quote (negative for a short); realized = cash + basis, unrealized = position x mark - basis. */
  readonly basis?: Decimal;
}

/** Top of one local book. */
export interface BookTopView {
  readonly symbol: string;
  readonly ready: boolean;
  readonly bid: { readonly price: Decimal; readonly qty: Decimal } | undefined;
  readonly ask: { readonly price: Decimal; readonly qty: Decimal } | undefined;
}

/** Used request weight of one host and interval, as the exchange last reported it. */
export interface WeightView {
  readonly host: string;
  readonly interval: string;
  readonly used: number;
  /** The limit of that interval when known (configured or learned from a 429). */
  readonly limit?: number | undefined;
}

/** A strategy's daily loss limit and its PnL of the current UTC day (quote terms). */
export interface DailyLossView {
  readonly strategy: string;
  readonly limit: Decimal;
  readonly pnl: Decimal;
}

/** Scope of an operator command: the whole run, or one strategy. */
export type CommandScope = { readonly strategy?: string | undefined };

/** A running bot, as the console sees it. */
export interface ConsoleRun {
  readonly name: string;
  readonly mode: 'live' | 'paper';
  readonly startedAt: number;
  /** Every bus event of the run (read-only subscription). */
  readonly events$: Observable<BusEvent>;
  strategies(): readonly StrategyView[];
  /** The run-wide trading state and why. */
  tradingState(): { readonly state: TradingStateName; readonly reason: string };
  positions(): readonly PositionView[];
  /** The account's balances now: the account stream and REST reads live, the simulator's on paper. */
  balances(): readonly { readonly asset: string; readonly free: Decimal; readonly locked: Decimal }[];
  /**
   * The account's equity in one quote asset (that of the run's first symbol), each other asset at
   * the run's mark of its pair with it; assets with no such price are listed, not summed.
   */
  equity?(): { readonly quote: string; readonly value: Decimal; readonly unvalued: readonly string[] } | undefined;
  openOrders(): readonly OrderRecord[];
  /** This run's latest fills from the ledger (the feed keeps newer ones from the bus). */
  recentFills(limit: number): readonly FillRecord[];
  bookTops(): readonly BookTopView[];
  /** Intents seen and the risk checker's verdicts. */
  intentStats(): Readonly<Record<string, number>>;
  /** Request weight used per host and interval (live; empty on paper). */
  weights(): readonly WeightView[];
  /** Server time minus local time in ms, as last measured (live); undefined where there is no exchange clock. */
  clockOffsetMs?(): number | undefined;
  /** Strategies with a daily loss limit: the limit and today's PnL. */
  dailyLoss?(): readonly DailyLossView[];
  /** Writes one journal line in the ledger (commands are journalled before they act). */
  journal(kind: string, data: unknown): void;
  /** Operator trading state for the run or one strategy. */
  setState(scope: CommandScope, state: TradingStateName, reason: string): void;
  /** Cancels the open orders of the run or one strategy; resolves to how many were asked to cancel. */
  cancelAll(scope: CommandScope): number;
  /** Asks the run to stop (the same graceful stop as SIGTERM). */
  stop(reason: string): void;
  /**
   * The reason of the run's stop once it has begun, else undefined. From then on commands are
   * refused: the shutdown owns the orders and closes the ledger, which a command would write to.
   */
  stopping(): string | undefined;
}
