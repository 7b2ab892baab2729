import { describe, expect, it } from 'vitest';
import { RateLimitState, parseRetryAfterMs } from './RateLimitState.js';

describe('RateLimitState', () => {
  it('reads weight and order-count headers of any interval, case-insensitively', () => {
    const s = new RateLimitState({ now: () => 10 });
    s.recordHeaders('h', { 'x-mbx-used-weight-1m': '5', 'X-MBX-USED-WEIGHT-5S': '2', 'x-mbx-order-count-1d': '100', 'x-mbx-used-weight-1m-bad': '9', other: '1' });
    expect(s.host('h')).toEqual({ host: 'h', usedWeight: { '1M': 5, '5S': 2 }, orderCount: { '1D': 100 }, blockedUntil: undefined, blockedBy: undefined, updatedAt: 10 });
  });

  it('a block lasts until its time, a shorter later block does not shorten it, a 418 is remembered', () => {
    const clock = { t: 0, now(): number { return this.t; } };
    const s = new RateLimitState(clock);
    s.block('h', 1_000, 429);
    s.block('h', 500, 418);
    expect(s.activeBlock('h')).toEqual({ until: 1_000, status: 418 });
    clock.t = 999;
    expect(s.bannedUntil('h')).toBe(1_000);
    clock.t = 1_000;
    expect(s.activeBlock('h')).toBeUndefined();
    expect(s.snapshot()).toEqual([expect.objectContaining({ host: 'h', blockedUntil: undefined })]);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates; falls back when absent or unreadable', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('30', now, 1)).toBe(30_000);
    expect(parseRetryAfterMs('0.5', now, 1)).toBe(500);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:02:00 GMT', now, 1)).toBe(120_000);
    expect(parseRetryAfterMs(undefined, now, 60_000)).toBe(60_000);
    expect(parseRetryAfterMs('soon', now, 60_000)).toBe(60_000);
  });
});
