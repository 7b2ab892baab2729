import { describe, expect, it } from 'vitest';
import { annualisedPct, efficiency, overallEfficiency, stitchCurves } from './walkForwardEfficiency.js';

const DAY = 86_400_000;

describe('walk-forward efficiency', () => {
  it('annualises simply: 1 % a day is 365 % a year, not compounded', () => {
    expect(annualisedPct(1, DAY)).toBeCloseTo(365, 9);
    expect(annualisedPct(2, 2 * DAY)).toBeCloseTo(365, 9);
    expect(annualisedPct(1, 0)).toBeNull();
  });

  it('is out-of-sample over in-sample annualised return, undefined over a loss', () => {
    expect(efficiency(200, 100)).toBe(0.5);
    expect(efficiency(200, -50)).toBe(-0.25);
    expect(efficiency(-10, 5)).toBeNull();
    expect(efficiency(0, 5)).toBeNull();
    expect(efficiency(null, 5)).toBeNull();
  });

  it('overall: summed out of sample over summed in sample, over windows with both', () => {
    expect(overallEfficiency([{ inSamplePct: 100, outOfSamplePct: 50 }, { inSamplePct: 300, outOfSamplePct: 50 }, { inSamplePct: null, outOfSamplePct: 999 }])).toBe(0.25);
    expect(overallEfficiency([])).toBeNull();
  });

  it('stitches curves: each window starts where the last ended, failed windows left out', () => {
    const c = stitchCurves([
      [{ t: 0, v: 100 }, { t: 1, v: 110 }],
      undefined,
      [{ t: 2, v: 100 }, { t: 3, v: 90 }],
    ]);
    expect(c.map((p) => p.t)).toEqual([0, 1, 2, 3]);
    expect(c.map((p) => Number(p.v.toFixed(9)))).toEqual([100, 110, 110, 99]);
  });
});
