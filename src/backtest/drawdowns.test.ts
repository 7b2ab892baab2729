import { describe, expect, it } from 'vitest';
import { drawdownPeriods } from './drawdowns.js';
import { maxDrawdown } from './metrics.js';

const curve = (pts: readonly [number, number][]): { t: number; equity: number }[] => pts.map(([t, equity]) => ({ t, equity }));

describe('drawdownPeriods', () => {
  // peak 110 at 1 s, trough 99 at 2 s, back to 110 at 4 s; new peak 120 at 5 s, trough 90 at 6 s, never back (end 9 s)
  const c = curve([
    [0, 100],
    [1000, 110],
    [2000, 99],
    [3000, 105],
    [4000, 110],
    [5000, 120],
    [6000, 90],
    [7000, 95],
    [9000, 100],
  ]);

  it('lists the periods deepest first, with start, trough, recovery, depth and duration', () => {
    const d = drawdownPeriods(c);
    expect(d.worst).toEqual([
      { start: 5000, trough: 6000, recovery: null, depth: 30, depthPct: 25, durationMs: 4000 },
      { start: 1000, trough: 2000, recovery: 4000, depth: 11, depthPct: 10, durationMs: 3000 },
    ]);
    expect(d.longestMs).toBe(4000);
    // the deepest period is the curve's max drawdown
    expect(d.worst[0]?.depthPct).toBe(maxDrawdown(c).pct * 100);
  });

  it('keeps only the worst ones, but the longest duration of all', () => {
    const d = drawdownPeriods(
      curve([
        [0, 100],
        [1000, 99],
        [9000, 100],
        [10_000, 80],
        [11_000, 100],
      ]),
      1,
    );
    expect(d.worst).toEqual([{ start: 9000, trough: 10_000, recovery: 11_000, depth: 20, depthPct: 20, durationMs: 2000 }]);
    expect(d.longestMs).toBe(9000);
  });

  it('starts a period at the last sample at the peak', () => {
    const d = drawdownPeriods(
      curve([
        [0, 100],
        [1000, 100],
        [2000, 90],
        [3000, 100],
      ]),
    );
    expect(d.worst).toEqual([{ start: 1000, trough: 2000, recovery: 3000, depth: 10, depthPct: 10, durationMs: 2000 }]);
  });

  it('has no period when equity never fell, and none from an empty curve', () => {
    expect(drawdownPeriods(curve([[0, 1], [1, 2], [2, 2]]))).toEqual({ worst: [], longestMs: 0 });
    expect(drawdownPeriods([])).toEqual({ worst: [], longestMs: 0 });
  });
});
