import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, setLongTimeout } from './longTimer.js';

const DAY = 86_400_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('setLongTimeout', () => {
  it('waits 30 days, past the 2^31-1 ms a Node timer takes, and fires once', () => {
    const fired: number[] = [];
    const start = Date.now();
    setLongTimeout(() => fired.push(Date.now() - start), 30 * DAY);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(30 * DAY - MAX_TIMER_MS - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([30 * DAY]);
    vi.advanceTimersByTime(100 * DAY);
    expect(fired).toHaveLength(1);
  });

  it('a short one is one plain timer; clear cancels it, also mid-chain', () => {
    const fired: string[] = [];
    setLongTimeout(() => fired.push('short'), 5);
    const long = setLongTimeout(() => fired.push('long'), 3 * MAX_TIMER_MS);
    vi.advanceTimersByTime(5);
    expect(fired).toEqual(['short']);
    vi.advanceTimersByTime(MAX_TIMER_MS + 10);
    long.clear();
    vi.advanceTimersByTime(10 * MAX_TIMER_MS);
    expect(fired).toEqual(['short']);
  });

  it('refuses a length that is not a finite number of ms >= 0, naming it', () => {
    expect(() => setLongTimeout(() => undefined, Number.POSITIVE_INFINITY)).toThrow(/timeout="Infinity"/);
    expect(() => setLongTimeout(() => undefined, -1)).toThrow(/timeout="-1"/);
    expect(() => setLongTimeout(() => undefined, Number.NaN)).toThrow(/timeout="NaN"/);
  });
});
