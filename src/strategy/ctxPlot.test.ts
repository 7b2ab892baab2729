import { describe, expect, it } from 'vitest';
import { ctxPlot } from './ctxPlot.js';

describe('ctxPlot', () => {
  it('sends an overlay series to its sink, asked once per series, and the rest to the generic call', () => {
    const generic: unknown[][] = [];
    const asked: string[] = [];
    const sunk: [string, number][] = [];
    const plot = ctxPlot('s', 'BTC_USDT', (...a) => void generic.push(a), (strategy, symbol, name) => {
      asked.push(`${strategy} ${symbol} ${name}`);
      return (v) => void sunk.push([name, v]);
    });
    for (let i = 0; i < 3; i++) {
      plot('fast', i);
      plot('slow', 10 + i);
      plot('third', 20 + i);
    }
    plot('rsi', 55, { pane: 'RSI' });
    expect(asked).toEqual(['s BTC_USDT fast', 's BTC_USDT slow', 's BTC_USDT third']);
    expect(sunk.filter(([n]) => n === 'slow')).toEqual([['slow', 10], ['slow', 11], ['slow', 12]]);
    expect(sunk).toHaveLength(9);
    expect(generic).toEqual([['s', 'BTC_USDT', 'rsi', 55, 'RSI']]);
  });

  it('refuses what the generic call refuses, naming it, and keeps no sink for it', () => {
    const asked: string[] = [];
    const plot = ctxPlot('s', 'BTC_USDT', () => undefined, (_s, _y, name) => (asked.push(name), () => undefined));
    expect(() => plot('  ', 1)).toThrow('ctx.plot: series="  ": expected a non-empty name');
    expect(() => plot('px', '100.5' as unknown as number)).toThrow('ctx.plot: value="100.5" (a string): expected a number');
    expect(() => plot('rsi', 1, { pane: ' ' })).toThrow('ctx.plot: options.pane=" ": expected a non-empty name');
    expect(asked).toEqual([]);
  });

  it('drops every plot unread without a sink to take it (live, paper)', () => {
    const plot = ctxPlot('s', 'BTC_USDT', undefined, undefined);
    expect(() => plot('', Number.NaN)).not.toThrow();
  });
});
