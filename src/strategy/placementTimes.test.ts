import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLACEMENTS_KEPT_MS, PlacementTimes } from './placementTimes.js';

/** The rule spelled plainly: every time kept for a day after the latest, counted by a scan. */
class Plain {
  readonly times: number[] = [];
  add(now: number): void {
    const t = Math.max(now, this.times.at(-1) ?? -Infinity);
    this.times.push(t);
    while ((this.times[0] as number) < t - PLACEMENTS_KEPT_MS) this.times.shift();
  }
  countAfter(t: number): number {
    return this.times.filter((x) => x > t).length;
  }
}

/** Mostly seconds apart (a day holds more than the ring's first 1,024), sometimes hours, sometimes a clock step back. */
const step = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 60_000 }) }, { weight: 1, arbitrary: fc.integer({ min: -5_000, max: 0 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 40_000_000 }) });

describe('PlacementTimes', () => {
  it('counts as a scan of the last day does, through growth, wrap-around and clock steps back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.integer({ min: 0, max: 3 * PLACEMENTS_KEPT_MS })), { minLength: 1, maxLength: 3000 }), (steps) => {
        const ring = new PlacementTimes();
        const plain = new Plain();
        let now = 1_000_000_000;
        for (const [dt, back] of steps) {
          now += dt;
          ring.add(now);
          plain.add(now);
          expect(ring.size).toBe(plain.times.length);
          expect(ring.countAfter(now - back)).toBe(plain.countAfter(now - back));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a day at most: a bot placing for a month holds one day of times', () => {
    const ring = new PlacementTimes();
    const every = 60_000;
    for (let now = 0; now <= 30 * PLACEMENTS_KEPT_MS; now += every) ring.add(now);
    expect(ring.size).toBe(PLACEMENTS_KEPT_MS / every + 1);
    expect(ring.countAfter(30 * PLACEMENTS_KEPT_MS - 10 * every)).toBe(10);
  });

  it('grows while its oldest time is not at the start of its storage, keeping the order', () => {
    const ring = new PlacementTimes();
    const plain = new Plain();
    const both = (now: number): void => {
      ring.add(now);
      plain.add(now);
    };
    // 1,000 in the first hour; a day later 600 of them are past and go as 1,500 more come: the
    // ring wraps, then grows with its oldest time in the middle of its storage.
    for (let i = 0; i < 1000; i++) both(i * 3_600);
    for (let i = 0; i < 1500; i++) both(PLACEMENTS_KEPT_MS + i * 1_440);
    expect(ring.size).toBe(plain.times.length);
    for (const back of [0, 1_000, 600_000, 3_600_000, PLACEMENTS_KEPT_MS]) {
      const t = PLACEMENTS_KEPT_MS + 1499 * 1_440 - back;
      expect(ring.countAfter(t)).toBe(plain.countAfter(t));
    }
  });
});
