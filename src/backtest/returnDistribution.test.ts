import { describe, expect, it } from 'vitest';
import { quantile, returnDistribution } from './returnDistribution.js';

describe('returnDistribution', () => {
  it('skew and excess kurtosis as pandas, VaR and CVaR read off the returns', () => {
    // 29 returns from -5 % to +5 % and one crash of -20 %
    const r = [...Array.from({ length: 29 }, (_, i) => (((i * 7) % 11) - 5) / 100), -0.2];
    const d = returnDistribution(r);
    // scipy.stats.skew(r, bias=False), scipy.stats.kurtosis(r, bias=False)
    expect(d.skew).toBeCloseTo(-2.1205665506323204, 8);
    expect(d.kurtosis).toBeCloseTo(7.6455832890128725, 8);
    // sorted: -20, -5, -5, -5, ...; 5th percentile at position 29 * 0.05 = 1.45, between two -5 %;
    // the tail at or below it: -20 and the three -5 %, mean -8.75 %
    expect(d.var95Pct).toBe(-5);
    expect(d.cvar95Pct).toBe(-8.75);
    expect(d.note).toBeUndefined();
  });

  it('interpolates the percentile between two returns', () => {
    // 0, 0.1 %, ..., 3.9 %: position 39 * 0.05 = 1.95 gives 0.195 %; the tail is 0 and 0.1 %
    const d = returnDistribution(Array.from({ length: 40 }, (_, i) => i / 1000));
    expect(d.var95Pct).toBeCloseTo(0.195, 10);
    expect(d.cvar95Pct).toBeCloseTo(0.05, 10);
    expect(d.skew).toBeCloseTo(0, 10);
  });

  it('null with the reason under 30 returns, or without variance', () => {
    expect(returnDistribution([0.01, -0.01])).toEqual({ skew: null, kurtosis: null, var95Pct: null, cvar95Pct: null, note: '2 returns, fewer than 30' });
    const flat = returnDistribution(Array.from({ length: 30 }, () => 0.001));
    expect(flat).toMatchObject({ skew: null, kurtosis: null, var95Pct: 0.1, cvar95Pct: 0.1, note: 'returns have no variance' });
  });

  it('quantile by selection matches the sorted order statistics (differential, seeded)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) - 0.5;
    for (let n = 1; n <= 300; n += 7) {
      // ties on purpose: values on a coarse grid
      const xs = Array.from({ length: n }, () => Math.round(rand() * 40) / 1000);
      const sorted = [...xs].sort((a, b) => a - b);
      for (const q of [0, 0.05, 0.5, 0.99, 1]) {
        const h = (n - 1) * q;
        const lo = Math.floor(h);
        const want = (sorted[lo] as number) + (h - lo) * ((sorted[Math.min(lo + 1, n - 1)] as number) - (sorted[lo] as number));
        expect(quantile(Float64Array.from(xs), q)).toBeCloseTo(want, 12);
      }
    }
  });
});
