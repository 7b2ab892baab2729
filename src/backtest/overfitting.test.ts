import { describe, expect, it } from 'vitest';
import { combinations, deflatedSharpe, expectedMaxSharpe, momentsOf, normalCdf, normalQuantile, probabilityOfOverfitting, shapeOf, sharpeOf, spearman, type Moments } from './overfitting.js';

/** Per-slice moments of a T x N matrix of returns, S equal slices of T. */
function sliced(T: number, N: number, S: number, f: (t: number, k: number) => number): Moments[][] {
  return Array.from({ length: N }, (_, k) => Array.from({ length: S }, (_, j) => momentsOf(Array.from({ length: T / S }, (_, i) => f(j * (T / S) + i, k)))));
}

describe('normal distribution', () => {
  // Reference values from Python's statistics.NormalDist (an independent implementation).
  it('cdf matches to 1e-13', () => {
    const ref: [number, number][] = [
      [-6, 9.865876449133282e-10],
      [-3.2, 0.0006871379379158604],
      [-1.5, 0.06680720126885809],
      [-0.3, 0.3820885778110474],
      [0, 0.5],
      [0.7, 0.758036347776927],
      [1.96, 0.9750021048517796],
      [2.4, 0.9918024640754038],
      [2.6, 0.9953388119762813],
      [4, 0.9999683287581669],
      [7.5, 0.999999999999968],
    ];
    for (const [x, p] of ref) expect(Math.abs(normalCdf(x) - p), String(x)).toBeLessThan(1e-13 + 1e-12 * p);
  });
  it('quantile matches to 1e-9', () => {
    const ref: [number, number][] = [
      [1e-9, -5.9978070150076865],
      [0.001, -3.090232306167813],
      [0.02, -2.0537489106318225],
      [0.3, -0.5244005127080407],
      [0.5, 0],
      [0.9, 1.2815515655446008],
      [0.975, 1.9599639845400536],
      [0.999999, 4.753424308817089],
    ];
    for (const [p, x] of ref) expect(Math.abs(normalQuantile(p) - x), String(p)).toBeLessThan(1e-9);
  });
});

describe('deflated Sharpe ratio', () => {
  it('is 0.9004 on the worked example of Bailey and López de Prado (2014)', () => {
    // Annualised SR 2.5 over 5 years of daily returns (T = 1250), 100 trials whose annualised SRs vary by 1/2, skew -3, kurtosis 10.
    const { dsr, benchmark } = deflatedSharpe({ sharpe: 2.5 / Math.sqrt(250), sharpeVariance: 0.5 / 250, trials: 100, observations: 1250, skew: -3, kurtosis: 10 });
    expect(benchmark * Math.sqrt(250)).toBeCloseTo(1.7894064662732077, 10);
    expect(dsr).toBeCloseTo(0.9003968344493904, 10);
  });
  it('raises the bar with the number of trials', () => {
    expect(expectedMaxSharpe(1, 10)).toBeLessThan(expectedMaxSharpe(1, 1000));
    expect(expectedMaxSharpe(1, 1)).toBe(0);
  });
});

describe('probability of backtest overfitting (CSCV)', () => {
  it('matches a brute-force computation over the returns themselves', () => {
    // The same matrix and splits computed independently (Python, returns pooled per split, not moments).
    const f = (t: number, k: number): number => (((t * 7919 + k * 104729 + t * k * 31) % 1009) / 1009 - 0.5) * 0.01;
    const r = probabilityOfOverfitting(sliced(96, 7, 8, f));
    expect(r?.splits).toBe(70);
    expect(r?.pbo).toBeCloseTo(0.9142857142857143, 12);
    expect(r?.medianLogit).toBeCloseTo(-1.0986122886681098, 12);
  });
  it('is 0 when the in-sample winner wins everywhere, 1 when it is chosen by a regime that turns', () => {
    const steady = (t: number, k: number): number => Math.sin(t * 1.3 + k * 0.7) * 0.01 + 0.002 * k;
    expect(probabilityOfOverfitting(sliced(96, 7, 8, steady))?.pbo).toBe(0);
    const turning = (t: number, k: number): number => 0.01 * Number(Math.floor(t / 8) % 2 === k % 2) - 0.005 + 0.01 * Math.sin(t * (k + 1));
    expect(probabilityOfOverfitting(sliced(64, 6, 8, turning))?.pbo).toBe(1);
  });
  it('needs two points and an even number of slices', () => {
    expect(probabilityOfOverfitting([[momentsOf([1, 2])]])).toBeUndefined();
    expect(probabilityOfOverfitting([[momentsOf([1, 2])], [momentsOf([1, 3])]])).toBeUndefined();
  });
});

describe('moments and ranks', () => {
  it('Sharpe, skew and kurtosis of a sample', () => {
    const m = momentsOf([1, 2, 3, 4, 10]);
    expect(sharpeOf(m)).toBeCloseTo(4 / Math.sqrt(12.5), 12);
    const s = shapeOf(m);
    // Population central moments: m2 10, m3 36, m4 278.8.
    expect(s?.skew).toBeCloseTo(36 / 10 ** 1.5, 12);
    expect(s?.kurtosis).toBeCloseTo(278.8 / 100, 12);
    expect(sharpeOf(momentsOf([2, 2, 2]))).toBeUndefined();
  });
  it('Spearman: 1, -1 and mean ranks for ties', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(0.9486832980505138, 12);
    expect(spearman([1, 1], [1, 2])).toBeUndefined();
  });
  it('combinations: S choose S/2 in order', () => {
    expect([...combinations(4, 2)]).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    expect([...combinations(16, 8)]).toHaveLength(12870);
  });
});
