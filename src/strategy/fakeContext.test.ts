import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { fakeContext } from './fakeContext.js';

describe('fakeContext', () => {
  it('refuses a plot as a backtest does (an empty series name, a value that is not a number, an empty pane), so a unit test finds it first', () => {
    const ctx = fakeContext({});
    ctx.plot('rsi', 55, { pane: 'RSI' });
    ctx.plot('sma', NaN);
    expect(ctx.plotted).toEqual([
      { series: 'rsi', value: 55, pane: 'RSI' },
      { series: 'sma', value: NaN },
    ]);
    expect(() => ctx.plot('px', new Decimal('100.5') as unknown as number)).toThrow('ctx.plot: value="100.5" (an object): expected a number');
    expect(() => ctx.plot('rsi', 55, { pane: ' ' })).toThrow('ctx.plot: options.pane=" ": expected a non-empty name');
    expect(() => ctx.plot('  ', 1)).toThrow('ctx.plot: series="  ": expected a non-empty name');
    expect(() => ctx.plot(7 as unknown as string, 1)).toThrow('ctx.plot: series=7: expected a non-empty name');
    expect(() => ctx.plot('\u00a0\u2003', 1)).toThrow('ctx.plot: series="\u00a0\u2003": expected a non-empty name');
    expect(() => ctx.plot('', 1)).toThrow('ctx.plot: series="": expected a non-empty name');
    expect(ctx.plotted).toHaveLength(2);
  });
});
