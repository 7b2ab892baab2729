import { describe, expect, it } from 'vitest';
import { MIN_ANNUALISED_SPAN_MS, MIN_RATIO_RETURNS, maxDrawdown, periodReturns, periodsPerYear, riskRatios, roundStat, sharpe, sortino, spanText } from './metrics.js';

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

  it('sharpe and sortino (per period) match hand computation', () => {
    const r = [0.01, -0.02, 0.03, 0.0];
    const m = 0.005;
    const sd = Math.sqrt(((0.005 ** 2) + (0.025 ** 2) + (0.025 ** 2) + (0.005 ** 2)) / 3);
    expect(sharpe(r)).toBeCloseTo(m / sd, 12);
    const dd = Math.sqrt((0.02 ** 2) / 4);
    expect(sortino(r)).toBeCloseTo(m / dd, 12);
  });

  it('a ratio that cannot be estimated is null, not 0', () => {
    expect(sharpe([0.01, 0.01])).toBeNull();
    expect(sortino([0.01, 0.02])).toBeNull();
    expect(sharpe([0.01])).toBeNull();
    expect(sortino([-0.01])).toBeNull();
  });

  it('period returns with an interval skip the shorter final period', () => {
    const c = [
      { t: 0, equity: 100 },
      { t: 10, equity: 110 },
      { t: 20, equity: 99 },
      { t: 25, equity: 200 },
    ];
    expect(periodReturns(c, 10)).toHaveLength(2);
    expect(periodReturns(c)).toHaveLength(3);
  });
});

/** A curve of `n` returns one `interval` apart alternating +up / -down, plus a final short period. */
function zigzag(n: number, interval: number, up = 0.002, down = 0.001): { t: number; equity: number }[] {
  const out = [{ t: 0, equity: 1000 }];
  for (let i = 1; i <= n; i++) out.push({ t: i * interval, equity: (out[i - 1] as { equity: number }).equity * (i % 2 === 1 ? 1 + up : 1 - down) });
  out.push({ t: n * interval + 1, equity: 1 });
  return out;
}

describe('riskRatios: the rule for short samples', () => {
  it('fewer than the minimum of returns: every figure unavailable, with the count', () => {
    const r = riskRatios(zigzag(MIN_RATIO_RETURNS - 1, 1000), 1000);
    expect([r.sharpePerPeriod, r.sortinoPerPeriod, r.sharpe, r.sortino]).toEqual([null, null, null, null]);
    expect(r.notes.sharpePerPeriod).toBe(`${MIN_RATIO_RETURNS - 1} returns, fewer than ${MIN_RATIO_RETURNS}`);
    expect(Object.keys(r.notes)).toEqual(['sharpePerPeriod', 'sortinoPerPeriod', 'sharpe', 'sortino']);
    // The final sample closes a 1 ms period: not counted.
    expect(r.sample).toEqual({ returns: MIN_RATIO_RETURNS - 1, intervalMs: 1000, spanMs: (MIN_RATIO_RETURNS - 1) * 1000 });
  });

  it('ten minutes of 1 s returns: per-period figures, annualised ones unavailable', () => {
    const c = zigzag(600, 1000);
    const r = riskRatios(c, 1000);
    const rets = periodReturns(c, 1000);
    expect(r.sharpePerPeriod).toBe(roundStat(sharpe(rets) as number));
    expect(r.sortinoPerPeriod).toBe(roundStat(sortino(rets) as number));
    expect(r.sharpe).toBeNull();
    expect(r.sortino).toBeNull();
    expect(r.notes).toEqual({ sharpe: 'returns span 10m 0s, under a day: not annualised', sortino: 'returns span 10m 0s, under a day: not annualised' });
  });

  it('a day or more of returns is annualised from the per-period figure', () => {
    const interval = 60_000;
    const c = zigzag(MIN_ANNUALISED_SPAN_MS / interval, interval);
    const r = riskRatios(c, interval);
    const rets = periodReturns(c, interval);
    expect(r.sample.spanMs).toBe(MIN_ANNUALISED_SPAN_MS);
    expect(r.sharpe).toBe(roundStat((sharpe(rets) as number) * Math.sqrt(periodsPerYear(interval))));
    expect(r.sortino).toBe(roundStat((sortino(rets) as number) * Math.sqrt(periodsPerYear(interval))));
    expect(r.notes).toEqual({});
    // One period short of a day: not annualised.
    expect(riskRatios(zigzag(MIN_ANNUALISED_SPAN_MS / interval - 1, interval), interval).sharpe).toBeNull();
  });

  it('no variance and no losing period are reasons, not zeros', () => {
    const flat = Array.from({ length: 100 }, (_, i) => ({ t: i * 1000, equity: 1000 }));
    const r = riskRatios(flat, 1000);
    expect(r.sharpePerPeriod).toBeNull();
    expect(r.notes.sharpePerPeriod).toBe('returns have no variance');
    expect(r.sortinoPerPeriod).toBeNull();
    expect(r.notes.sortinoPerPeriod).toBe('no period lost money');
    expect(r.notes.sharpe).toBe('returns have no variance');
    const rising = riskRatios(zigzag(100, 1000, 0.002, -0.001), 1000);
    expect(rising.sharpePerPeriod).not.toBeNull();
    expect(rising.sortinoPerPeriod).toBeNull();
  });

  it('spans print short', () => {
    expect(spanText(600_000)).toBe('10m 0s');
    expect(spanText(90_061_000)).toBe('1d 1h');
    expect(spanText(3_660_000)).toBe('1h 1m');
    expect(spanText(5000)).toBe('5s');
    expect(spanText(0)).toBe('0 ms');
  });

  it('periods per year and rounding', () => {
    expect(periodsPerYear(86_400_000)).toBe(365);
    expect(roundStat(1 / 3)).toBe(0.3333333333);
    expect(roundStat(Number.NaN)).toBe(0);
  });
});
