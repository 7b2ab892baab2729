/**
 * The paper venue of a run: the matching engine (with the exchange's PRICE_RANGE rules and
 * reference prices) holding one simulated account funded from `paper.balances` (or the sum of
 * the budgets), and the simulated venue that reports its orders as the user data stream would.
 */
import type { Bus } from '../bus/Bus.js';
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { PriceRangeRule, SymbolInfo } from '../core/types.js';
import { MatchingEngine } from '../sim/engine.js';
import { SimVenue } from '../venue/SimVenue.js';
import { latencyModel } from '../venue/latency.js';
import { ShownOwnOrders } from '../venue/ShownOwnOrders.js';
import { WallScheduler } from '../venue/Scheduler.js';
import type { RunConfig } from './runConfig.js';
import { paperBalances } from './runSetup.js';
import { restartSafeFirstOrderId } from '../sim/restartIds.js';

/** The simulated account's id. */
const PAPER_ACCOUNT = 'paper';

/** The paper run's engine, venue, scheduler and shown own orders. */
export interface PaperParts {
  readonly engine: MatchingEngine;
  readonly venue: SimVenue;
  readonly scheduler: WallScheduler;
  readonly shown: ShownOwnOrders;
}

/** Builds the paper venue over the run's symbols. */
export function paperVenue(o: {
  cfg: RunConfig;
  bus: Bus;
  clock: Clock;
  symbols: readonly SymbolInfo[];
  ranges: ReadonlyMap<string, PriceRangeRule>;
  referencePrice: (symbol: string) => Decimal | null | undefined;
  exchangeFilters: ExchangeFilters;
}): PaperParts {
  const { cfg } = o;
  const engine = new MatchingEngine({
    symbols: o.symbols.map((info) => {
      const priceRange = o.ranges.get(info.symbol);
      const referencePrice = o.referencePrice(info.symbol);
      return { info, ...(priceRange ? { priceRange } : {}), ...(referencePrice !== undefined ? { referencePrice } : {}) };
    }),
    exchangeFilters: o.exchangeFilters,
    // The run's ledger outlives this engine: ids must not repeat an earlier run's.
    firstOrderId: restartSafeFirstOrderId(o.clock.now()),
    accounts: [{ id: PAPER_ACCOUNT, makerCommission: new Decimal(cfg.paper.makerBps).div(10_000), takerCommission: new Decimal(cfg.paper.takerBps).div(10_000), balances: paperBalances(cfg) }],
    bufferEvents: false,
  });
  const scheduler = new WallScheduler(o.clock);
  const shown = new ShownOwnOrders(scheduler);
  const venue = new SimVenue({ engine, accountId: PAPER_ACCOUNT, scheduler, publish: (e) => o.bus.publish(e), emit: 'userData', latency: latencyModel(cfg.paper.latency), shown });
  return { engine, venue, scheduler, shown };
}
