import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import type { Intent } from '../bus/intents.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { TradeEvent } from '../core/marketEvents.js';
import { parseSymbolFilters } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import { silentLogger } from '../strategy/StrategyRunner.js';
import { defineStrategy } from '../strategy/types.js';
import { assembleRun, type MarketView } from './assemble.js';

const trade = (E: number): TradeEvent => ({ type: 'trade', E, symbol: 'BTC_USDT', tradeId: String(E), price: new Decimal(100), qty: new Decimal(1), tradeTime: E, isBuyerMaker: false });

/** Places one order of `quantity` on every trade. */
const placer = (quantity: string) =>
  defineStrategy({
    name: 'placer',
    description: 'test',
    params: z.object({}),
    create: (ctx) => ({
      onEvent(e: BusEvent) {
        if (e.type === 'trade') ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', quantity: new Decimal(quantity), price: new Decimal(10) });
      },
    }),
  });

const BTC_USDT: SymbolInfo = {
  type: 1,
  symbol: 'BTC_USDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  basePrecision: 8,
  quotePrecision: 8,
  filters: parseSymbolFilters([], 'filters'),
  orderTypes: ['LIMIT', 'MARKET'],
  defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
  allowedSelfTradePreventionModes: ['EXPIRE_MAKER'],
  icebergEnable: false,
  ocoEnable: false,
  spotTradingEnable: true,
  marginTradingEnable: false,
};

function harness(quantity: string, observe?: (e: BusEvent) => void) {
  const bus = new Bus();
  const clock = new VirtualClock(1000);
  const sent: Intent[] = [];
  const market: MarketView = { book: () => undefined, lastPrice: () => new Decimal(100), mark: () => new Decimal(100) };
  const run = assembleRun({
    clock,
    bus,
    venue: { name: 'fake', submit: (i) => sent.push(i) },
    market,
    ownOrders: undefined,
    symbols: [BTC_USDT],
    strategies: [{ name: 'p', plugin: placer(quantity), params: {}, symbols: ['BTC_USDT'], budget: { USDT: new Decimal(1000) } }],
    risk: { config: { mode: 'reject', maxOrderNotional: '50' }, liveOrders: () => [] },
    countDailyFills: true,
    ...(observe ? { observe } : {}),
    log: silentLogger,
    runner: { log: silentLogger },
  });
  return { bus, sent, run };
}

describe('assembleRun', () => {
  it('sends an intent the risk gate accepts to the venue, through the pipeline', () => {
    const { bus, sent, run } = harness('1');
    run.runner.start();
    bus.publish(trade(1));
    expect(sent.map((i) => i.kind === 'place' && i.quantity?.toString())).toEqual(['1']);
    expect(run.pipeline.stats).toMatchObject({ intents: 1, accepted: 1, rejected: 0 });
  });

  it('refuses an intent over the configured limit: nothing reaches the venue, the strategy hears why', () => {
    const seen: string[] = [];
    const { bus, sent, run } = harness('10', (e) => seen.push(e.type === 'intentRejected' ? `${e.type} ${e.reason}` : e.type));
    run.runner.start();
    bus.publish(trade(1));
    run.runner.flush();
    expect(sent).toEqual([]);
    expect(run.pipeline.stats.rejected).toBe(1);
    expect(seen).toEqual(['trade', 'intentRejected MAX_ORDER_NOTIONAL']);
  });

  it('publishes each trading-state change once, from the state machine', () => {
    const states: string[] = [];
    const { bus, run } = harness('1', (e) => e.type === 'tradingState' && states.push(e.state));
    run.states.command('HALTED', 'operator', 1);
    bus.publish({ type: 'bookStatus', E: 2, symbol: 'BTC_USDT', ready: false, reason: 'gap' });
    expect(states).toEqual(['HALTED']);
    expect(run.states.state).toBe('HALTED');
  });

  it('counts fills into the daily PnL and stops listening once stopped', () => {
    const { bus, run } = harness('1');
    const fill = (E: number): BusEvent => ({ type: 'fill', E, strategy: 'p', clientId: `p-${E}`, orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: String(E), price: new Decimal(100), qty: new Decimal(1), quoteQty: new Decimal(100), commission: new Decimal(1), commissionAsset: 'USDT', isMaker: true });
    bus.publish(fill(1));
    expect(run.daily.of('p', 1000, () => new Decimal(100)).toString()).toBe('-1');
    run.stop();
    bus.publish(fill(2));
    expect(run.daily.of('p', 1000, () => new Decimal(100)).toString()).toBe('-1');
  });
});
