import { describe, expect, it } from 'vitest';
import { RateLimitState, parseRetryAfterMs } from './RateLimitState.js';

describe('RateLimitState', () => {
  it('reads weight and order-count headers of any interval, case-insensitively', () => {
    const s = new RateLimitState({ now: () => 10 });
    s.recordHeaders({ 'x-mbx-used-weight-1m': '5', 'X-MBX-USED-WEIGHT-5S': '2', 'x-mbx-order-count-1d': '100', 'x-mbx-used-weight-1m-bad': '9', other: '1' });
    expect(s.snapshot()).toEqual({ usedWeight: { '1M': 5, '5S': 2 }, orderCount: { '1D': 100 }, weightLimits: {}, blockedUntil: undefined, blockedBy: undefined, ordersBlockedUntil: undefined, updatedAt: 10 });
  });

  it('a block lasts until its time, a shorter later block does not shorten it, a 418 is remembered; it refuses every class', () => {
    const clock = { t: 0, now(): number { return this.t; } };
    const s = new RateLimitState(clock);
    s.block(1_000, 429);
    s.block(500, 418);
    expect(s.activeBlock()).toEqual({ until: 1_000, status: 418 });
    for (const cls of ['order', 'critical', 'normal'] as const) expect(s.admit(cls)).toMatchObject({ waitMs: 1_000, bannedUntil: 1_000 });
    clock.t = 999;
    expect(s.bannedUntil()).toBe(1_000);
    clock.t = 1_000;
    expect(s.activeBlock()).toBeUndefined();
    expect(s.admit('normal')).toBeUndefined();
  });

  it('an order-count block holds new orders only: cancels and reads go on', () => {
    const clock = { t: 0, now(): number { return this.t; } };
    const s = new RateLimitState(clock);
    s.blockOrders(10_000);
    expect(s.admit('order')).toMatchObject({ waitMs: 10_000, bannedUntil: undefined });
    expect(s.admit('critical')).toBeUndefined();
    expect(s.admit('normal')).toBeUndefined();
    clock.t = 10_000;
    expect(s.admit('order')).toBeUndefined();
  });

  it('with a known limit, normal requests stop short of it, the reserve is for cancels and reconciliation, a new window starts from zero', () => {
    const clock = { t: 60_000 * 1000 + 30_000, now(): number { return this.t; } };
    const s = new RateLimitState(clock, { '1m': 100 });
    s.recordHeaders({ 'x-mbx-used-weight-1m': '88' });
    expect(s.admit('normal')).toBeUndefined(); // 89 of 90 usable
    expect(s.admit('normal')).toBeUndefined(); // 90
    expect(s.admit('normal')).toMatchObject({ waitMs: 30_000 });
    // Requests in flight count until the next header.
    for (let i = 0; i < 10; i++) expect(s.admit('critical')).toBeUndefined();
    expect(s.admit('critical')).toMatchObject({ waitMs: 30_000 });
    clock.t += 30_000;
    s.recordHeaders({ 'x-mbx-used-weight-1m': '1' });
    expect(s.admit('normal')).toBeUndefined();
    // A header from the previous window says nothing about this one.
    s.recordHeaders({ 'x-mbx-used-weight-1m': '99' });
    clock.t += 60_000;
    expect(s.admit('normal')).toBeUndefined();
  });

  it('learns a limit from a 429 that reports one interval', () => {
    const s = new RateLimitState({ now: () => 0 });
    s.learnLimit({ 'x-mbx-used-weight-1m': '6001', 'retry-after': '3' });
    expect(s.snapshot().weightLimits).toEqual({ '1M': 6000 });
    s.learnLimit({ 'x-mbx-used-weight-1m': '7000', 'x-mbx-used-weight-1h': '9000' });
    expect(s.snapshot().weightLimits).toEqual({ '1M': 6000 });
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
