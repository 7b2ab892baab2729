import { describe, expect, it } from 'vitest';
import type { StrategyMetrics } from './result.js';
import { gridSchema, gridObjective } from './sweepGrid.js';
import { objectiveFigure, rankCandidates, tradeFigures, type Objective } from './sweepObjective.js';

const m = (trades: number, netPnl: string, maxDrawdownPct = 1): StrategyMetrics => ({ trades, netPnl, maxDrawdownPct }) as unknown as StrategyMetrics;

describe('sweep objective and minimum trades', () => {
  it('a point under minTrades is listed after the eligible ones, never first, even with the best figure', () => {
    const o: Objective = { metric: 'netPnl', direction: 'max' };
    const cs = [
      { index: 0, metrics: m(6, '900'), failed: false },
      { index: 1, metrics: m(40, '10'), failed: false },
      { index: 2, metrics: undefined, failed: true },
      { index: 3, metrics: m(25, '30'), failed: false },
    ];
    const r = rankCandidates(cs, o, 20);
    expect(r.map((c) => c.index)).toEqual([3, 1, 0, 2]);
    expect(r[2]?.excluded).toBe('6 trades, under minTrades 20');
    // Without the filter the 6-trade point wins: the test would catch a filter that does nothing.
    expect(rankCandidates(cs, o, undefined)[0]?.index).toBe(0);
  });

  it('direction min ranks the lowest first; a tearsheet metric is read from the trade figures', () => {
    const cs = [
      { index: 0, metrics: m(5, '1', 8), failed: false },
      { index: 1, metrics: m(5, '1', 2), failed: false },
    ];
    expect(rankCandidates(cs, { metric: 'maxDrawdownPct', direction: 'min' }, undefined).map((c) => c.index)).toEqual([1, 0]);
    expect(rankCandidates(cs, { metric: 'maxDrawdownPct', direction: 'max' }, undefined).map((c) => c.index)).toEqual([0, 1]);
    const calmar: Objective = { metric: 'calmar', direction: 'max' };
    const withTrade = [
      { index: 0, metrics: m(5, '1'), failed: false, trade: { calmar: 1.5 } },
      { index: 1, metrics: m(5, '1'), failed: false, trade: { calmar: 3 } },
      { index: 2, metrics: m(5, '1'), failed: false, trade: { calmar: null } },
    ];
    expect(rankCandidates(withTrade, calmar, undefined).map((c) => [c.index, c.value])).toEqual([[1, 3], [0, 1.5], [2, null]]);
    expect(objectiveFigure(calmar, m(1, '0'), undefined)).toBeNull();
  });

  it('trade figures hold the tearsheet scalars and the return shape, as numbers', () => {
    const t = tradeFigures({ tearsheet: { s: { calmar: 2.5, expectancy: '-1.25', winRatePct: null, returns: { skew: -0.5, kurtosis: 3, var95Pct: -1, cvar95Pct: -2 } } as never } }, 's');
    expect(t).toMatchObject({ calmar: 2.5, expectancy: -1.25, winRatePct: null, skew: -0.5, kurtosis: 3 });
    expect(t).not.toHaveProperty('netPnl');
    expect(tradeFigures({ tearsheet: {} }, 's')).toBeUndefined();
  });

  it('the grid names an objective or a rankBy; an unknown metric is refused naming it', () => {
    expect(gridObjective(gridSchema.parse({ params: { a: [1] } }))).toEqual({ metric: 'netPnl', direction: 'max' });
    expect(gridObjective(gridSchema.parse({ params: { a: [1] }, rankBy: 'maxDrawdownPct' }))).toEqual({ metric: 'maxDrawdownPct', direction: 'min' });
    expect(gridObjective(gridSchema.parse({ params: { a: [1] }, objective: { metric: 'calmar', direction: 'max' } }))).toEqual({ metric: 'calmar', direction: 'max' });
    const bad = gridSchema.safeParse({ params: { a: [1] }, objective: { metric: 'calmr', direction: 'max' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/^unknown metric "calmr": one of netPnl, .*calmar/);
    expect(bad.error?.issues[0]?.path).toEqual(['objective', 'metric']);
    expect(gridSchema.safeParse({ params: { a: [1] }, rankBy: 'sharpe', objective: { metric: 'calmar', direction: 'max' } }).error?.issues[0]?.message).toMatch(/keep one/);
    expect(gridSchema.safeParse({ params: { a: [1] }, minTrades: 0 }).success).toBe(false);
    expect(gridSchema.safeParse({ params: { a: [1] }, eachRecording: true, objective: { metric: 'calmar', direction: 'max' } }).error?.issues[0]?.message).toMatch(/not combined across recordings/);
  });
});
