import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { ResultCollector, type StrategyMetrics } from './ResultCollector.js';
import { compareRank, rankValue } from './sweepObjective.js';
import { sweepTable } from './sweep.js';

/** Metrics of a short run (a few samples): its ratios are unavailable. */
function shortRun(): StrategyMetrics {
  const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
  c.mark('BTC_USDT', new Decimal(1));
  for (let t = 0; t <= 5000; t += 1000) c.sample(t);
  return c.finish('n').strategies.s as StrategyMetrics;
}

describe('sweep ranking', () => {
  it('an unavailable metric is null, not 0, and ranks last in grid order', () => {
    const na = shortRun();
    expect(na.sharpe).toBeNull();
    expect(rankValue(na, 'sharpe')).toBeNull();
    const pts = [
      { value: null, index: 0 },
      { value: -1, index: 1 },
      { value: 2, index: 2 },
      { value: null, index: 3 },
      { value: 2, index: 4 },
      { value: 0, index: 5 },
    ];
    expect([...pts].sort(compareRank).map((p) => p.index)).toEqual([2, 4, 5, 1, 0, 3]);
    expect([...pts].reverse().sort(compareRank).map((p) => p.index)).toEqual([2, 4, 5, 1, 0, 3]);
  });

  it('lower drawdown ranks higher', () => {
    const m = { ...shortRun(), maxDrawdownPct: 5 };
    expect(rankValue(m, 'maxDrawdownPct')).toBe(-5);
  });

  it('a figure that is no number ranks as unavailable (never a NaN sort key), ties keep grid order', () => {
    const m = { ...shortRun(), netPnl: 'NaN' };
    expect(rankValue(m, 'netPnl')).toBeNull();
    const rows = [
      { value: 1, index: 2 },
      { value: null, index: 0 },
      { value: 1, index: 1 },
      { value: 3, index: 3 },
    ];
    expect([...rows].sort(compareRank).map((r) => r.index)).toEqual([3, 1, 2, 0]);
  });

  it('the table prints n/a with the reason and says what the ratios are', () => {
    const metrics = shortRun();
    const md = sweepTable({ strategy: 's', rankBy: 'sharpe', objective: { metric: 'sharpe', direction: 'max' }, rows: [{ rank: 1, index: 0, params: { k: 1 }, metrics, objective: null }], results: [], skipped: [], failed: 0 });
    expect(md).toContain('| n/a (5 returns, fewer than 30) |');
    expect(md).not.toMatch(/\| null \|/);
    expect(md).toMatch(/sharpe, sortino: annualised .*per 1000 ms equity period/);
    // Percents to two places with their unit, money's asset named once.
    const withFigures = sweepTable({ strategy: 's', rankBy: 'netPnl', objective: { metric: 'netPnl', direction: 'max' }, rows: [{ rank: 1, index: 0, params: { k: 1 }, metrics: { ...metrics, returnPct: 20.18348624, maxDrawdownPct: 0.000512 }, objective: 0 }], results: [], skipped: [], failed: 0 });
    expect(withFigures).toContain('| 20.18% | 0.00051% |');
    expect(withFigures).not.toContain('20.18348624');
    expect(withFigures).toContain('netPnl and fees in USDT (exact)');
  });
});
