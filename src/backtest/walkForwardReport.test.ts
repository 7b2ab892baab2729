import { describe, expect, it } from 'vitest';
import type { WalkForwardResult } from './sweepWalkForward.js';
import { walkForwardTable } from './walkForwardReport.js';

describe('walk-forward report', () => {
  it('says no window chose a point, rather than totals of nothing with no asset', () => {
    const wf: WalkForwardResult = {
      rankBy: 'netPnl',
      objective: { metric: 'netPnl', direction: 'max' },
      anchored: false,
      windows: [{ window: 1, inSample: { start: 0, end: 86_399_999 }, outOfSample: { start: 86_400_000, end: 172_799_999 }, error: 'no point reached minTrades in sample, e.g. 9 trades, under minTrades 1000' }],
      outOfSample: { windows: 0, netPnl: '0', fees: '0', trades: 0, returnPct: 0, profitableWindows: 0, efficiency: null },
      stitchedEquity: [],
    };
    const md = walkForwardTable(wf);
    expect(md).toContain('Stitched out of sample: no window chose a point (each window says why).');
    expect(md).not.toMatch(/netPnl 0 ,/);
  });
});
