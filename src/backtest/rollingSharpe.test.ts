import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random.js';
import { periodReturns, sharpe } from './metrics.js';
import { rollingSharpe } from './rollingSharpe.js';

function curve(n: number, seed: number): { t: number; equity: number }[] {
  const rnd = mulberry32(seed);
  let e = 1000;
  return Array.from({ length: n }, (_, i) => {
    if (i > 0) e *= 1 + (rnd() - 0.48) * 0.01;
    return { t: i * 60_000, equity: e };
  });
}

describe('rolling Sharpe', () => {
  it('each window equals the per-period Sharpe of its returns computed directly', () => {
    const c = curve(501, 3);
    const r = rollingSharpe(periodReturns(c, 60_000), c, 60_000);
    expect(r.windowReturns).toBe(50);
    expect(r.windowMs).toBe(50 * 60_000);
    const rets = c.slice(1).map((p, i) => p.equity / (c[i] as { equity: number }).equity - 1);
    for (const p of r.points) {
      const end = p.t / 60_000;
      expect(p.v).toBeCloseTo(sharpe(rets.slice(end - 50, end)) as number, 8);
    }
    expect(r.points[r.points.length - 1]?.t).toBe(500 * 60_000);
    expect(r.min).toBeLessThanOrEqual(r.max as number);
  });

  it('a short run has no series and says why; a gap in the samples is not a return', () => {
    const short = curve(20, 1);
    expect(rollingSharpe(periodReturns(short, 60_000), short, 60_000)).toMatchObject({ points: [], min: null, note: '19 returns, fewer than one window of 30' });
    const gapped = curve(100, 2).filter((_, i) => i % 2 === 0);
    expect(rollingSharpe(periodReturns(gapped, 60_000), gapped, 60_000).note).toBe('0 returns, fewer than one window of 30');
  });

  it('keeps at most 200 points, the last window always', () => {
    const c = curve(5001, 4);
    const r = rollingSharpe(periodReturns(c, 60_000), c, 60_000);
    expect(r.points.length).toBeLessThanOrEqual(201);
    expect(r.points[r.points.length - 1]?.t).toBe(5000 * 60_000);
  });
});

describe('rolling Sharpe over a curve with gaps', () => {
  it('times each window by the return that ends it, skipping pairs not one interval apart', () => {
    const c = curve(601, 9).filter((_, i) => i !== 250 && i !== 400);
    const pairs = c.slice(1).flatMap((p, i) => (p.t - (c[i] as { t: number }).t === 60_000 ? [{ t: p.t, r: p.equity / (c[i] as { equity: number }).equity - 1 }] : []));
    const r = rollingSharpe(periodReturns(c, 60_000), c, 60_000);
    expect(r.points.length).toBeGreaterThan(100);
    for (const p of r.points) {
      const end = pairs.findIndex((x) => x.t === p.t) + 1;
      expect(end).toBeGreaterThan(0);
      expect(p.v).toBeCloseTo(sharpe(pairs.slice(end - r.windowReturns, end).map((x) => x.r)) as number, 8);
    }
  });
});
