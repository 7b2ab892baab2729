import { describe, expect, it } from 'vitest';
import { backoffDelay } from './timing.js';

describe('backoffDelay', () => {
  it('grows exponentially to the cap with equal jitter', () => {
    const lo = (a: number): number => backoffDelay(a, { initialMs: 100, maxMs: 1000 }, () => 0);
    const hi = (a: number): number => backoffDelay(a, { initialMs: 100, maxMs: 1000 }, () => 1);
    expect([0, 1, 2, 3, 4, 10].map(lo)).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map(hi)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffDelay(1, { initialMs: 100 }, () => 0.5)).toBe(150);
  });
});
