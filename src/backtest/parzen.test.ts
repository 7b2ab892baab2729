import { describe, expect, it } from 'vitest';
import { bandwidths, categoricalMasses, drawIndex, numericMasses, observationWeights } from './parzen.js';

/** The same mixture integrated by a fine midpoint sum (an independent route to the masses). */
function riemann(values: number[], observed: number[]): number[] {
  const k = values.length;
  const bounds = [values[0]! - (values[1]! - values[0]!) / 2, ...values.slice(1).map((v, i) => (v + values[i]!) / 2), values[k - 1]! + (values[k - 1]! - values[k - 2]!) / 2];
  const lo = bounds[0]!;
  const hi = bounds[k]!;
  const mus = [...observed, (lo + hi) / 2];
  const sig = bandwidths(observed, lo, hi);
  const pdf = (x: number, mu: number, s: number): number => Math.exp(-0.5 * ((x - mu) / s) ** 2) / (s * Math.sqrt(2 * Math.PI));
  const steps = 20_000;
  const dx = (hi - lo) / steps;
  // Each kernel truncated to [lo, hi]: its own integral there normalises it; all kernels weigh 1 (fewer than 25).
  const z = mus.map((mu, i) => {
    let a = 0;
    for (let s = 0; s < steps; s++) a += pdf(lo + (s + 0.5) * dx, mu, sig[i]!) * dx;
    return a;
  });
  const m = new Array<number>(k).fill(0);
  for (let s = 0; s < steps; s++) {
    const x = lo + (s + 0.5) * dx;
    const j = bounds.findIndex((b, i) => i > 0 && x < b) - 1;
    m[j] = m[j]! + mus.reduce((a, mu, i) => a + pdf(x, mu, sig[i]!) / z[i]!, 0) * dx;
  }
  const sum = m.reduce((a, x) => a + x, 0);
  return m.map((x) => x / sum);
}

describe('Parzen estimators', () => {
  it('numeric masses equal the truncated mixture integrated independently', () => {
    const values = [20, 40, 60, 90];
    for (const obs of [[], [40], [20, 90, 60], [90, 90]]) {
      const got = numericMasses(values, obs);
      const want = riemann(values, obs);
      // The sum gives whole steps to one cell at a boundary: agreement to 1e-4.
      got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 4));
    }
  });

  it('mass gathers near the observations; without any it is the prior, symmetric', () => {
    const values = Array.from({ length: 21 }, (_, i) => i);
    const prior = numericMasses(values, []);
    expect(prior[0]).toBeCloseTo(prior[20]!, 12);
    expect(prior[10]).toBeGreaterThan(prior[0]!);
    const near = numericMasses(values, [3, 4, 3]);
    expect(near.indexOf(Math.max(...near))).toBe(3);
    expect(near.reduce((a, x) => a + x, 0)).toBeCloseTo(1, 12);
  });

  it('bandwidths as Optuna 3: neighbour gaps with the prior among the centres, outermost inward only, clipped; the prior the range', () => {
    // Centres sorted 2, 5 (prior), 8: 2 takes the gap to 5; 8 the gap to 5; clip from below 10 / 4.
    expect(bandwidths([2, 8], 0, 10)).toEqual([3, 3, 10]);
    // Centres 1, 1.5, 5: 1.5 takes max(0.5, 3.5); the lower clip is 10 / 4.
    expect(bandwidths([1, 1.5], 0, 10)).toEqual([2.5, 3.5, 10]);
    expect(bandwidths([], 0, 10)).toEqual([10]);
  });

  it('categorical masses: counts plus the prior spread evenly; weights ramp older trials down past 25', () => {
    // v = 1/4; each observation's kernel: (1.25, 0.25) / 1.5 on its own category; the prior (0.5, 0.5); all weigh 1/4.
    const c = categoricalMasses(2, [0, 0, 1]);
    expect(c[0]).toBeCloseTo((2 * 1.25 / 1.5 + 0.25 / 1.5 + 0.5) / 4, 12);
    expect(c[0]! + c[1]!).toBeCloseTo(1, 12);
    expect(observationWeights(3)).toEqual([1, 1, 1]);
    const w = observationWeights(30);
    expect(w.slice(5)).toEqual(new Array(25).fill(1));
    expect(w[0]).toBeCloseTo(1 / 30, 12);
    expect(drawIndex([0.2, 0.5, 0.3], 0.69)).toBe(1);
    expect(drawIndex([0.2, 0.5, 0.3], 0.71)).toBe(2);
  });
});
