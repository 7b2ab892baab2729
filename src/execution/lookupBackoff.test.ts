import { describe, expect, it } from 'vitest';
import { LookupBackoff } from './lookupBackoff.js';

describe('LookupBackoff', () => {
  it('doubles the wait after each lookup that settles nothing, up to the cap, jittered down to half at most', () => {
    const full = new LookupBackoff({ baseMs: 100, maxMs: 1000, random: () => 0.999999 });
    expect([1, 2, 3, 4, 5, 6].map(() => full.unsettled('a', 0))).toEqual([100, 200, 400, 800, 1000, 1000]);
    const half = new LookupBackoff({ baseMs: 100, maxMs: 1000, random: () => 0 });
    expect([1, 2, 3, 4, 5].map(() => half.unsettled('a', 0))).toEqual([50, 100, 200, 400, 500]);
  });

  it('is due again only after the wait; a settled order is due at once and starts over', () => {
    const b = new LookupBackoff({ baseMs: 100, random: () => 0.999999 });
    expect(b.due('a', 0)).toBe(true);
    b.unsettled('a', 1000);
    expect(b.due('a', 1099)).toBe(false);
    expect(b.due('a', 1100)).toBe(true);
    expect(b.due('b', 1000)).toBe(true);
    b.settled('a');
    expect(b.due('a', 1000)).toBe(true);
    expect(b.unsettled('a', 1000)).toBe(100);
  });

  it('waits at least the Retry-After of a rate limit', () => {
    const b = new LookupBackoff({ baseMs: 100 });
    expect(b.unsettled('a', 0, 60_000)).toBe(60_000);
    expect(b.due('a', 59_999)).toBe(false);
  });

  it('forgets orders no longer live', () => {
    const b = new LookupBackoff();
    b.unsettled('a', 0);
    b.unsettled('b', 0);
    b.keepOnly(new Set(['b']));
    expect(b.size).toBe(1);
    expect(b.due('a', 0)).toBe(true);
  });
});
