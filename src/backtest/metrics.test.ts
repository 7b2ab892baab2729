import { describe, expect, it } from 'vitest';
import { maxDrawdown, periodReturns, periodsPerYear, roundStat, sharpe, sortino } from './metrics.js';

const curve = (xs: number[]) => xs.map((equity, t) => ({ t, equity }));

describe('metrics', () => {
  it('period returns skip non-positive bases', () => {
    const r = periodReturns(curve([100, 110, 99, 0, 5]));
    expect(r).toHaveLength(3);
    expect(r[0]).toBeCloseTo(0.1, 12);
    expect(r[1]).toBeCloseTo(-0.1, 12);
    expect(r[2]).toBe(-1);
  });

  it('max drawdown finds the deepest peak-to-trough fall', () => {
    const dd = maxDrawdown(curve([100, 120, 90, 130, 117, 125]));
    expect(dd.abs).toBe(30);
    expect(dd.pct).toBeCloseTo(0.25, 12);
    expect(maxDrawdown(curve([1, 2, 3]))).toEqual({ abs: 0, pct: 0 });
  });

  it('sharpe and sortino match hand computation', () => {
    const r = [0.01, -0.02, 0.03, 0.0];
    const m = 0.005;
    const sd = Math.sqrt(((0.005 ** 2) + (0.025 ** 2) + (0.025 ** 2) + (0.005 ** 2)) / 3);
    expect(sharpe(r, 4)).toBeCloseTo((m / sd) * 2, 12);
    const dd = Math.sqrt((0.02 ** 2) / 4);
    expect(sortino(r, 4)).toBeCloseTo((m / dd) * 2, 12);
    expect(sharpe([0.01, 0.01], 4)).toBe(0);
    expect(sortino([0.01, 0.02], 4)).toBe(0);
    expect(sharpe([0.01], 4)).toBe(0);
  });

  it('periods per year and rounding', () => {
    expect(periodsPerYear(86_400_000)).toBe(365);
    expect(roundStat(1 / 3)).toBe(0.3333333333);
    expect(roundStat(Number.NaN)).toBe(0);
  });
});
