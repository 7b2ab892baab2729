/**
 * One channel's delivery on a fake clock (vitest's timers drive both the lane's clock and its
 * waits): a channel that is down gets the critical alerts again with doubling waits, in order and
 * coalesced; info is dropped and counted; "suppressed" lines at most once a minute; a 429's wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Notification } from './alerts.js';
import { DeliveryError } from '../../core/errors.js';
import type { Channel } from './channels.js';
import { Lane, MAX_BACKOFF_MS } from './lane.js';

interface FakeChannel extends Channel {
  readonly attempts: { t: number; text: string }[];
  readonly delivered: string[];
  /** Answer of the next attempts: an error, or undefined for delivered. */
  fail: (() => Error | undefined) | undefined;
}

function fakeChannel(): FakeChannel {
  const c: FakeChannel = {
    name: 'fake',
    attempts: [],
    delivered: [],
    fail: undefined,
    send(n) {
      c.attempts.push({ t: Date.now(), text: n.text });
      const err = c.fail?.();
      if (err) return Promise.reject(err);
      c.delivered.push(n.text);
      return Promise.resolve();
    },
  };
  return c;
}

const warns: string[] = [];
const lane = (c: Channel, infoPerMinute = 5): Lane => new Lane(c, { infoPerMinute, now: Date.now, run: 't', log: { warn: (o, m) => void warns.push(`${m} ${JSON.stringify(o)}`) } });
const crit = (text: string): Notification => ({ kind: 'state', t: 0, text });
const info = (text: string): Notification => ({ kind: 'fill', t: 0, text });
/** Lets the lane's promise chain run (no timers pass). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  warns.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a lane', () => {
  it('retries critical alerts on a channel that is down with doubling waits, keeps their order and drops info', async () => {
    const c = fakeChannel();
    let down = true;
    c.fail = () => (down ? new DeliveryError('fake: connection failed') : undefined);
    const l = lane(c);
    l.push(crit('A'));
    await settle();
    l.push(crit('B'));
    l.push(info('fill 1'));
    l.push(crit('C'));
    await settle();
    expect(c.attempts.map((a) => a.text)).toEqual(['A']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.attempts.map((a) => a.text)).toEqual(['A', 'A\nB\nC']);
    await vi.advanceTimersByTimeAsync(1999);
    expect(c.attempts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.attempts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4000);
    expect(c.attempts).toHaveLength(4);
    expect(c.attempts.map((a) => a.t - 1_000_000)).toEqual([0, 1000, 3000, 7000]);
    down = false;
    await vi.advanceTimersByTimeAsync(8000);
    expect(c.delivered).toEqual(['A\nB\nC', 'fill 1']);
    expect(l.counts.critical).toMatchObject({ sent: 3, dropped: 0, failed: 4 });
    expect(l.pendingCritical).toBe(0);
    // The next failure starts again from the first wait.
    down = true;
    l.push(crit('D'));
    l.push(info('fill 2'));
    await settle();
    down = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.delivered).toEqual(['A\nB\nC', 'fill 1', 'D', 'fill 2']);
    expect(warns[0]).toContain('critical notification not delivered; will retry');
  });

  it('never waits longer than a minute between attempts', async () => {
    const c = fakeChannel();
    c.fail = () => new DeliveryError('fake: HTTP 502');
    const l = lane(c);
    l.push(crit('A'));
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const gaps = c.attempts.slice(1).map((a, i) => a.t - (c.attempts[i] as { t: number }).t);
    expect(Math.max(...gaps)).toBe(MAX_BACKOFF_MS);
    expect(gaps.slice(0, 7)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000]);
    l.stop();
  });

  it('drops info beyond its budget and says so after what was queued, at most once a minute', async () => {
    const c = fakeChannel();
    const l = lane(c, 5);
    for (let i = 0; i < 8; i++) l.push(info(`f${i}`));
    await settle();
    expect(c.delivered).toEqual(['f0', 'f1', 'f2', 'f3', 'f4', '3 notifications suppressed (more than 5 a minute); see the dashboard or kancil status']);
    // Twelve seconds later one token is back; two more are too many.
    await vi.advanceTimersByTimeAsync(12_000);
    l.push(info('g0'));
    l.push(info('g1'));
    l.push(info('g2'));
    await settle();
    expect(c.delivered.slice(6)).toEqual(['g0']);
    await vi.advanceTimersByTimeAsync(47_999);
    expect(c.delivered).toHaveLength(7);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.delivered.slice(7)).toEqual(['2 notifications suppressed (more than 5 a minute); see the dashboard or kancil status']);
    expect(l.counts.info).toMatchObject({ sent: 8, dropped: 5 });
  });

  it('sends critical alerts past an empty info budget, first, and coalesces those over their own budget', async () => {
    const c = fakeChannel();
    const l = lane(c, 1);
    l.push(info('f0'));
    l.push(info('f1'));
    for (let i = 0; i < 25; i++) l.push(crit(`s${i}`));
    await settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(c.delivered[0]).toBe('f0');
    expect(c.delivered[1]).toBe(Array.from({ length: 25 }, (_, i) => `s${i}`).join('\n'));
    // Twenty a minute: the 21st message waits three seconds for a token, then carries all that waited.
    const c2 = fakeChannel();
    const l2 = lane(c2);
    for (let i = 0; i < 21; i++) {
      l2.push(crit(`x${i}`));
      await settle();
    }
    expect(c2.delivered).toHaveLength(20);
    l2.push(crit('y'));
    await vi.advanceTimersByTimeAsync(2999);
    expect(c2.delivered).toHaveLength(20);
    await vi.advanceTimersByTimeAsync(1);
    expect(c2.delivered[20]).toBe('x20\ny');
  });

  it("waits out a channel's retry-after before anything else", async () => {
    const c = fakeChannel();
    let first = true;
    c.fail = () => (first ? ((first = false), new DeliveryError('fake: HTTP 429', 30_000)) : undefined);
    const l = lane(c);
    l.push(crit('A'));
    await settle();
    l.push(info('f'));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(c.attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.delivered).toEqual(['A', 'f']);
  });
});

describe('a lane at the end of a run', () => {
  it('sends the queued critical alerts at once, past the per-minute budget', async () => {
    const c = fakeChannel();
    const l = new Lane(c, { infoPerMinute: 5, criticalPerMinute: 2, now: Date.now, run: 't', log: { warn: () => undefined } });
    l.push(crit('A'));
    await settle();
    l.push(crit('B'));
    await settle();
    l.push(crit('stopped: signal SIGTERM'));
    await settle();
    // The budget (2 a minute) is spent: the last one would wait about half a minute.
    expect(c.delivered).toEqual(['A', 'B']);
    expect(l.pendingCritical).toBe(1);
    l.finish();
    await settle();
    expect(c.delivered).toEqual(['A', 'B', 'stopped: signal SIGTERM']);
    l.stop();
  });
});
