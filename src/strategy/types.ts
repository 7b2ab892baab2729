/**
 * The strategy plugin contract. A plugin receives bus events and a small context and emits
 * intents through the context. It never touches the network, so the same code runs live,
 * paper and backtest.
 */
import type { z } from 'zod';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { BookView } from '../core/bookView.js';
import type { BusEvent, OrderUpdateEvent } from '../bus/events.js';
import type { MarketEvent } from '../core/marketEvents.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { PlaceIntent } from '../bus/intents.js';
import type { SymbolRules } from './symbolRules.js';

/** Minimal logger a strategy gets (pino-compatible). */
export interface StrategyLogger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

/** An open order of the strategy as the tracker knows it: the order fields of its last orderUpdate. */
export type OwnOrderView = Pick<
  OrderUpdateEvent,
  'clientId' | 'orderId' | 'symbol' | 'side' | 'orderType' | 'state' | 'price' | 'quantity' | 'cumQty'
>;

/**
 * Parameters of a place request: a PlaceIntent without what the context fills in (kind, strategy,
 * intentId), with an optional caller-chosen clientId (must be unique within the run).
 */
export type PlaceRequest = Omit<PlaceIntent, 'kind' | 'strategy' | 'intentId' | 'clientId'> & { readonly clientId?: string };

/** Where a plotted series is drawn. */
export interface PlotOptions {
  /**
   * A pane below the price chart, with its own axis, shared by every series given the same name
   * (an oscillator and its threshold lines); absent: an overlay on the price axis. The pane of a
   * series' first point is kept.
   */
  readonly pane?: string;
}

/** What a strategy can see and do. */
export interface StrategyContext<P> {
  readonly name: string;
  readonly params: P;
  /** Symbols (BASE_QUOTE) this strategy trades. */
  readonly symbols: readonly string[];
  readonly clock: Clock;
  /** Log lines of this strategy (tagged with its name; in backtests at the config's logging.level, with the run's virtual time). */
  readonly log: StrategyLogger;
  /**
   * The exchange rules of a symbol the strategy trades (tick size, step size, min notional...) and
   * exact rounding onto them; a symbol it does not trade throws.
   */
  rules(symbol: string): SymbolRules;
  /**
   * Adds a value to a named series of the backtest report at the current time (an average, a band,
   * an oscillator); live and paper runs ignore it. Drawn over the strategy's first symbol's price
   * by default, or in a pane of its own below it with `{ pane: 'RSI' }` (docs/indicators.md).
   * NaN or an infinity leaves a gap; a value that is not a number throws.
   */
  plot(series: string, value: number, options?: PlotOptions): void;
  /** Local book of a symbol; undefined when none is maintained. */
  book(symbol: string): BookView | undefined;
  /** The strategy's own open orders. */
  openOrders(symbol?: string): readonly OwnOrderView[];
  /** Free and locked balance of an asset (the strategy's budget view). */
  balance(asset: string): { free: Decimal; locked: Decimal };
  /**
   * Net position of the strategy in an asset from its fills (live: since its first run on the
   * ledger; paper and backtest: since the run started): base bought minus sold, net of commissions
   * charged in that asset, so it is what the fills left in the account and can be sold in full.
   * Fees paid in another asset are not part of any position.
   */
  position(asset: string): Decimal;
  /** Emits a place intent; returns its clientId. */
  place(req: PlaceRequest): string;
  /** Emits a cancel intent for one own order. */
  cancel(symbol: string, clientId: string): void;
  /** Emits a cancel-all intent for the strategy's orders (one symbol or all). */
  cancelAll(symbol?: string): void;
}

/** Handlers a plugin instance provides. */
export interface StrategyHandlers {
  /** Called once after reconciliation, before any event. */
  onStart?(): void;
  /** Called for every bus event the strategy is subscribed to (its symbols plus its own orders). */
  onEvent(event: BusEvent): void;
  /** Called once at shutdown. */
  onStop?(): void;
}

/** A strategy plugin module's default export. */
export interface StrategyPlugin<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** One-line description for `kancil --help` and reports. */
  readonly description: string;
  /** zod schema of the parameters from YAML; errors name the path and value. */
  readonly params: S;
  /**
   * The market event types the strategy reads (default: all). Others are not delivered to it,
   * live or not, and a backtest skips them in the recording unread when no strategy and nothing
   * of the replay needs them (book tickers: most lines of a recording).
   */
  readonly marketEvents?: readonly MarketEvent['type'][];
  /**
   * Whether the strategy reads timer events (default true). A strategy that does not says false:
   * it is not handed any, and when no strategy of a run reads them none is scheduled (a backtest of
   * minute bars at the default 1 s timer would otherwise carry 60 timer events per bar).
   */
  readonly timer?: boolean;
  /**
   * The kline intervals the strategy reads, from its parameters (default none): a live or paper
   * run subscribes to each of its symbols' `<symbol>@kline_<interval>` streams, and a backtest of
   * trade recordings builds those bars from the recorded trades (core/bars.ts).
   */
  klineIntervals?(params: z.infer<S>): readonly KlineIntervalName[];
  create(ctx: StrategyContext<z.infer<S>>): StrategyHandlers;
}

/** True when the plugin reads timer events (it does unless it says `timer: false`). */
export function readsTimer(plugin: Pick<StrategyPlugin, 'timer'>): boolean {
  return plugin.timer !== false;
}

/** Identity helper that gives plugin authors type inference for their params. */
export function defineStrategy<S extends z.ZodType>(plugin: StrategyPlugin<S>): StrategyPlugin<S> {
  return plugin;
}
