import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from '../bus/Bus.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { parseSymbolFilters } from '../core/filters.js';
import { StrategyRunner, acceptAll } from './StrategyRunner.js';
import { defineStrategy, type StrategyContext, type StrategyLogger } from './types.js';

const filters = parseSymbolFilters([
  { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '0', tickSize: '1' },
  { filterType: 'LOT_SIZE', minQty: '0.0001', maxQty: '100', stepSize: '0.0001' },
]);

function start(log: StrategyLogger): StrategyContext<unknown> {
  let ctx: StrategyContext<unknown> | undefined;
  const plugin = defineStrategy({ name: 'probe', description: 'keeps its context', params: z.object({}), create: (c) => ((ctx = c), { onEvent: () => undefined }) });
  const runner = new StrategyRunner([{ name: 's1', plugin, params: {}, symbols: ['BTC_IDR', 'ETH_IDR'], budget: { IDR: new Decimal(1000) } }], {
    bus: new Bus(),
    clock: new VirtualClock(0),
    books: () => undefined,
    gate: acceptAll,
    venue: { name: 'test', submit: () => undefined },
    log,
    symbolFilters: (s) => (s === 'BTC_IDR' ? filters : undefined),
  });
  runner.start();
  if (ctx === undefined) throw new Error('not created');
  return ctx;
}

describe('StrategyRunner context: exchange rules and logs', () => {
  const lines: unknown[][] = [];
  const log: StrategyLogger = { info: (...a) => void lines.push(['info', ...a]), warn: () => undefined, error: () => undefined, debug: () => undefined };
  const ctx = start(log);

  it('gives each traded symbol its exchange rules, under any spelling; another symbol throws', () => {
    const r = ctx.rules('BTCIDR');
    expect(r.symbol).toBe('BTC_IDR');
    expect(r.tickSize.toFixed()).toBe('1');
    expect(r.roundQty('0.123456').toFixed()).toBe('0.1234');
    expect(ctx.rules('BTC_IDR')).toBe(r);
    // A symbol without filters: rules that round nothing.
    expect(ctx.rules('ETH_IDR').roundPrice('1.5').toFixed()).toBe('1.5');
    expect(() => ctx.rules('XRP_IDR')).toThrow(/does not trade XRP_IDR/);
  });

  it("tags the strategy's log lines with its name", () => {
    ctx.log.info({ x: 1 }, 'hello');
    ctx.log.info('plain');
    expect(lines).toEqual([
      ['info', { strategy: 's1', x: 1 }, 'hello'],
      ['info', { strategy: 's1', msg: 'plain' }, undefined],
    ]);
  });
});
