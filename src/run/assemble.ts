/**
 * The composition root of every run (live, paper, backtest): from a clock, a bus, a venue, the
 * market the strategies read and an optional ledger it builds, once and in this order, the
 * trading-state machine, the daily PnL, the risk gate, the pipeline and the strategy runner with
 * the books that show our own orders. What differs by mode (which venue, which market feed, when
 * strategies start, how each event is flushed) stays with the caller: src/cli/runSession.ts for
 * live and paper, src/backtest/Backtest.ts for a backtest.
 */
import type { Bus, BusListener } from '../bus/Bus.js';
import type { TradingStateEvent } from '../bus/events.js';
import type { Venue } from '../bus/venue.js';
import type { BookView } from '../core/bookView.js';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/types.js';
import { DailyPnl } from '../execution/dailyPnl.js';
import type { ExecLogger } from '../execution/log.js';
import { createPipeline, type Pipeline, type ReconcilingVenue } from '../execution/pipeline.js';
import { riskGate, type RiskGateDeps } from '../execution/riskGate.js';
import { TradingStateJournal } from '../execution/stateJournal.js';
import { TradingStateMachine } from '../risk/tradingState.js';
import type { Ledger } from '../store/Ledger.js';
import type { SymbolFilters } from '../core/filters.js';
import { StrategyRunner, type StrategyRunnerOptions, type IntentGate, type StrategySpec, type StrategyState } from '../strategy/StrategyRunner.js';
import type { StrategyLogger } from '../strategy/types.js';
import { booksWithOwnOrders, ownOrdersOfRunner, type OwnOrdersOf } from '../venue/OwnOrdersBook.js';

/** The market the strategies and the risk gate read: live books and trades, or a replay. */
export interface MarketView {
  book(symbol: string): BookView | undefined;
  lastPrice(symbol: string): Decimal | undefined;
  /** The price positions are marked at (book mid, else last price). */
  mark(symbol: string): Decimal | undefined;
}

/** What the risk gate reads that differs by mode; the root adds the market, the states and the daily PnL. */
export type RiskInputs = Pick<RiskGateDeps, 'config' | 'avgPrice' | 'referencePrice' | 'priceRanges' | 'exchangeFilters' | 'liveOrders' | 'liveOrderCounts' | 'strategyConfig'>;

/**
 * Where a strategy's book view finds our resting orders: `undefined` when the market's book holds
 * them already (live: the exchange's), a function when a simulated venue shows them
 * (ShownOwnOrders), `'strategies'` when only the strategies' own books know them (candle mode).
 */
export type OwnOrdersPlace = OwnOrdersOf | 'strategies' | undefined;

/** Options of {@link assembleRun}. */
export interface AssembleOptions {
  readonly clock: Clock;
  readonly bus: Bus;
  /** Where accepted intents go: the order router, a tracked simulated venue, or a backtest's venue. */
  readonly venue: Venue;
  /** Live and paper: the venue fed with executionReports and asked to reconcile. */
  readonly reconciler?: ReconcilingVenue;
  /** Live and paper: every intent, risk decision and trading-state change is journalled. */
  readonly ledger?: Ledger;
  readonly market: MarketView;
  readonly ownOrders: OwnOrdersPlace;
  readonly symbols: readonly SymbolInfo[];
  readonly strategies: readonly StrategySpec[];
  readonly risk: RiskInputs;
  /** A gate instead of the risk checker (tests, benches); the default is the risk checker over `risk`. */
  readonly gate?: IntentGate;
  /**
   * Whether fills are added to the daily PnL. Only a daily loss limit reads it, and it holds a
   * day's fills until first asked: a backtest with no such limit leaves it empty.
   */
  readonly countDailyFills: boolean;
  /** Called with each bus event before the run's own listener reacts (a backtest's result collector). */
  readonly observe?: BusListener;
  /** The pipeline's log. */
  readonly log: ExecLogger;
  /** The strategy runner's options that differ by mode. */
  readonly runner: {
    /** Where strategies' `ctx.log` lines go. */
    readonly log: StrategyLogger;
    readonly runTag?: string;
    readonly plot?: StrategyRunnerOptions['plot'];
    readonly plotSink?: StrategyRunnerOptions['plotSink'];
    readonly onFailure?: (strategy: string, err: unknown) => void;
    /** Wraps the gate the strategies' intents pass (a backtest's warm-up refuses them all); default: the pipeline's gate itself. */
    readonly gate?: (gate: IntentGate) => IntentGate;
  };
}

/** The parts every run has; the pipeline is listening, the strategies are not started. */
export interface AssembledRun {
  readonly states: TradingStateMachine;
  readonly daily: DailyPnl;
  readonly pipeline: Pipeline<StrategyState>;
  readonly runner: StrategyRunner;
  /** Stops the pipeline and leaves the bus (the strategies are stopped by the caller, first). */
  stop(): void;
}

/** Builds the parts every run shares, in dependency order, and starts the pipeline. */
export function assembleRun(o: AssembleOptions): AssembledRun {
  const { bus, clock, market } = o;
  const states = tradingStates(o);
  const daily = new DailyPnl();
  const unlisten = listenForStateAndPnl(o, states, daily);
  const gate = o.gate ?? riskGate({ ...o.risk, symbols: o.symbols, states, now: () => clock.now(), book: (s) => market.book(s), lastPrice: (s) => market.lastPrice(s), dailyPnl: (strategy) => daily.of(strategy, clock.now(), (s) => market.mark(s)) });
  const pipeline = createPipeline<StrategyState>({
    bus,
    venue: o.venue,
    risk: gate,
    clock,
    log: o.log,
    ...(o.ledger ? { ledger: o.ledger } : {}),
    ...(o.reconciler ? { reconciler: o.reconciler } : {}),
    onReconciled: () => states.reconciled(clock.now()),
  });
  pipeline.start();
  const runner = strategyRunner(o, pipeline);
  const stop = (): void => {
    pipeline.stop();
    unlisten();
  };
  return { states, daily, pipeline, runner, stop };
}

/** The trading-state machine, the one publisher of tradingState events (journalled first when there is a ledger). */
function tradingStates(o: AssembleOptions): TradingStateMachine {
  const { bus, ledger } = o;
  if (ledger === undefined) return new TradingStateMachine({ onChange: (e) => bus.publish(e) });
  // Each change journalled (a halt's row with its duration), then published.
  const journal = new TradingStateJournal(ledger);
  return new TradingStateMachine({
    onChange: (e: TradingStateEvent) => {
      journal.record(e);
      bus.publish(e);
    },
  });
}

/**
 * One bus listener for what every event may change: the caller's observer, the trading-state
 * inputs (books, user-stream connections, reconcile requests), the daily PnL's fills. One call
 * per event costs less than three on a backtest's hot path.
 */
function listenForStateAndPnl(o: AssembleOptions, states: TradingStateMachine, daily: DailyPnl): () => void {
  const { clock, observe, countDailyFills } = o;
  return o.bus.listen((e) => {
    observe?.(e);
    states.onEvent(e);
    if (countDailyFills && e.type === 'fill') daily.add(clock.now(), e);
  });
}

/** The strategy runner over the pipeline, reading the market's books with our resting orders where they belong. */
function strategyRunner(o: AssembleOptions, pipeline: Pipeline<StrategyState>): StrategyRunner {
  const filtersOf = new Map<string, SymbolFilters>(o.symbols.map((i) => [i.symbol, i.filters]));
  const marketBook = (s: string): BookView | undefined => o.market.book(s);
  // The runner and the books that read its strategies' orders (candle mode) need each other; the
  // books ask for the runner only once events flow, after it exists.
  const own = o.ownOrders === 'strategies' ? ownOrdersOfRunner(() => runner) : o.ownOrders;
  const runner: StrategyRunner = new StrategyRunner(o.strategies, {
    bus: o.bus,
    clock: o.clock,
    venue: pipeline.venue,
    books: own === undefined ? marketBook : booksWithOwnOrders(marketBook, own),
    gate: o.runner.gate ? o.runner.gate(pipeline.gate) : pipeline.gate,
    log: o.runner.log,
    symbolFilters: (s) => filtersOf.get(s),
    ...(o.runner.runTag !== undefined ? { runTag: o.runner.runTag } : {}),
    ...(o.runner.plot ? { plot: o.runner.plot } : {}),
    ...(o.runner.plotSink ? { plotSink: o.runner.plotSink } : {}),
    ...(o.runner.onFailure ? { onFailure: o.runner.onFailure } : {}),
  });
  return runner;
}
