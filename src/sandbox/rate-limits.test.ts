import { describe, expect, it } from 'vitest';
import { LegacyLimiter, OrderCounter, WeightLimiter } from './rate-limits.js';
import { ManualClock } from './test-config.js';

describe('WeightLimiter', () => {
  it('reports used weight, answers 429 with Retry-After to the window end, then 418 when the client keeps going', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 10));
    const l = new WeightLimiter({ weightLimits: [{ intervalNum: 1, intervalLetter: 'M', limit: 10 }], banBaseSec: 120 }, clock);
    const first = l.take('1.2.3.4', 4);
    expect(first).toEqual({ ok: true, headers: { 'X-MBX-USED-WEIGHT-1M': '4' } });
    expect(l.take('1.2.3.4', 6)).toEqual({ ok: true, headers: { 'X-MBX-USED-WEIGHT-1M': '10' } });
    const over = l.take('1.2.3.4', 1);
    expect(over).toEqual({ ok: false, status: 429, retryAfterSec: 50, headers: { 'X-MBX-USED-WEIGHT-1M': '11' } });
    clock.advance(1000);
    const ban = l.take('1.2.3.4', 1);
    expect(ban.ok).toBe(false);
    if (!ban.ok) expect([ban.status, ban.retryAfterSec]).toEqual([418, 120]);
    clock.advance(60_000);
    const still = l.take('1.2.3.4', 1);
    if (still.ok) throw new Error('still banned');
    expect([still.status, still.retryAfterSec]).toEqual([418, 60]);
    clock.advance(60_000);
    expect(l.take('1.2.3.4', 1).ok).toBe(true);
    // Other IPs were never affected.
    expect(l.take('5.6.7.8', 1).ok).toBe(true);
  });

  it('a client that waits for Retry-After after a 429 is not banned', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 30));
    const l = new WeightLimiter({ weightLimits: [{ intervalNum: 1, intervalLetter: 'M', limit: 1 }], banBaseSec: 120 }, clock);
    expect(l.take('ip', 1).ok).toBe(true);
    const v = l.take('ip', 1);
    if (v.ok) throw new Error('expected 429');
    clock.advance(v.retryAfterSec * 1000);
    expect(l.take('ip', 1).ok).toBe(true);
  });

  it('a forced 429 answers 429 with Retry-After (requests in flight too), and only a client that keeps sending past the grace is banned', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 30));
    const l = new WeightLimiter({ weightLimits: [{ intervalNum: 1, intervalLetter: 'M', limit: 100 }], banBaseSec: 120, banGraceMs: 1000 }, clock);
    l.force('ip', 429, 30);
    const first = l.take('ip', 1);
    if (first.ok) throw new Error('expected 429');
    expect([first.status, first.retryAfterSec]).toEqual([429, 30]);
    clock.advance(400);
    const inFlight = l.take('ip', 1);
    expect(inFlight.ok ? 200 : inFlight.status).toBe(429);
    clock.advance(1000);
    const banned = l.take('ip', 1);
    expect(banned.ok ? 200 : banned.status).toBe(418);

    // One that waits for Retry-After is served.
    l.reset();
    l.force('ip', 429, 5);
    const told = l.take('ip', 1);
    if (told.ok) throw new Error('expected 429');
    clock.advance(told.retryAfterSec * 1000);
    expect(l.take('ip', 1).ok).toBe(true);
  });

  it('ban length doubles for repeat offenders', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const l = new WeightLimiter({ weightLimits: [{ intervalNum: 1, intervalLetter: 'M', limit: 1 }], banBaseSec: 120 }, clock);
    const bans: number[] = [];
    for (let i = 0; i < 3; i++) {
      clock.t = Date.UTC(2026, 0, 1, i, 0, 0);
      l.take('ip', 1);
      l.take('ip', 1);
      clock.advance(1000); // past the grace for requests in flight
      const b = l.take('ip', 1);
      if (!b.ok) bans.push(b.retryAfterSec);
    }
    expect(bans).toEqual([120, 240, 480]);
  });
});

describe('OrderCounter', () => {
  it('counts per account and per interval', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const c = new OrderCounter([{ intervalNum: 10, intervalLetter: 'S', limit: 2 }, { intervalNum: 1, intervalLetter: 'D', limit: 100 }], clock);
    expect(c.count('a')).toEqual({ 'X-MBX-ORDER-COUNT-10S': '1', 'X-MBX-ORDER-COUNT-1D': '1' });
    expect(c.wouldExceed('a')).toBe(0);
    c.count('a');
    expect(c.wouldExceed('a')).toBe(10);
    expect(c.wouldExceed('b')).toBe(0);
    clock.advance(10_000);
    expect(c.count('a')).toEqual({ 'X-MBX-ORDER-COUNT-10S': '1', 'X-MBX-ORDER-COUNT-1D': '3' });
  });
});

describe('LegacyLimiter', () => {
  it('allows 60 per endpoint per minute and counts endpoints separately', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const l = new LegacyLimiter(60, clock);
    for (let i = 0; i < 60; i++) expect(l.take('ip', 'GET /v1/account')).toBe(true);
    expect(l.take('ip', 'GET /v1/account')).toBe(false);
    expect(l.take('ip', 'GET /v1/order/list')).toBe(true);
    clock.advance(60_000);
    expect(l.take('ip', 'GET /v1/account')).toBe(true);
  });
});
