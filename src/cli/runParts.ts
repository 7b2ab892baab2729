/** The parts of a running session the operator's console reads (see RunSession.parts). */
import type { SimVenue } from '../venue/SimVenue.js';
import type { Equity } from '../execution/equity.js';
import type { Decimal } from '../core/decimal.js';
import type { Pipeline } from '../execution/pipeline.js';
import type { OrderRouter } from '../execution/OrderRouter.js';
import type { OrderTracker } from '../execution/OrderTracker.js';
import type { SymbolBook } from '../execution/dailyPnl.js';
import type { Balance } from '../core/types.js';
import type { RateLimitState } from '../exchange/transport/RateLimitState.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import type { StrategyRunner, StrategyState } from '../strategy/StrategyRunner.js';
import type { RunConfig } from './runConfig.js';
import type { RunMarket } from './runMarket.js';

/** What RunSession.parts gives the console: the run's own objects, not copies. */
export interface RunParts {
  readonly config: RunConfig;
  readonly tracker: OrderTracker;
  readonly market: RunMarket;
  readonly router: OrderRouter | undefined;
  readonly sim: SimVenue | undefined;
  readonly states: TradingStateMachine;
  readonly runner: StrategyRunner;
  readonly pipeline: Pipeline<StrategyState>;
  /** Positions of this run's strategies by `strategy symbol`, kept from fills. */
  readonly books: ReadonlyMap<string, SymbolBook>;
  readonly rateLimits: RateLimitState;
  /** The account's balances now (account stream and REST reads live; the simulator's on paper). */
  readonly balances: () => readonly Balance[];
  /** The account's equity in the quote asset of the run's first symbol (src/execution/equity.ts). */
  readonly equity: () => Equity | undefined;
  /** A strategy's PnL of the current UTC day, marked to market (what its daily loss limit is held to). */
  readonly dailyPnl: (strategy: string) => Decimal;
  /** Server time minus local time in ms, as last measured (0 before the first measurement). */
  readonly clockOffsetMs: () => number;
}