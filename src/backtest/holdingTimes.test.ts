import { describe, expect, it } from 'vitest';
import { HOLDING_BUCKETS, HoldingTimes, holdingBucket } from './holdingTimes.js';

describe('holding times', () => {
  it('puts a time in the bucket whose bounds hold it, the upper bound exclusive', () => {
    expect([0, 59_999, 60_000, 299_999, 300_000, 3_600_000, 86_399_999, 86_400_000, 604_800_000, 1e12].map(holdingBucket)).toEqual([0, 0, 1, 1, 2, 4, 5, 6, 7, 7]);
  });

  it('counts trips per bucket, winners and losers apart, every bucket listed', () => {
    const h = new HoldingTimes();
    h.add(1000, 1);
    h.add(2000, -1);
    h.add(3000, 0);
    h.add(7_200_000, -1);
    const b = h.buckets();
    expect(b.map((x) => x.label)).toEqual([...HOLDING_BUCKETS]);
    expect(b[0]).toEqual({ label: '< 1 min', count: 3, wins: 1, losses: 1 });
    expect(b[4]).toEqual({ label: '1-4 h', count: 1, wins: 0, losses: 1 });
    expect(b.reduce((s, x) => s + x.count, 0)).toBe(4);
  });
});
