import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsedIds } from './usedIds.js';

describe('UsedIds', () => {
  it('answers as a Set does, for any ids in any order', () => {
    const id = fc.oneof(
      fc.tuple(fc.constantFrom('mm', 'a-b', '', 'x'), fc.integer({ min: 0, max: 12 })).map(([p, n]) => `${p}-${n}`),
      fc.constantFrom('mm-01', 'mm-', '-', 'mm', 'mm-1x', 'mm--1', 'mm-99999999999999999', 'a-b-2'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), id), { maxLength: 60 }), (ops) => {
        const u = new UsedIds();
        const s = new Set<string>();
        for (const [add, x] of ops) {
          if (add) {
            u.add(x);
            s.add(x);
          }
          expect(u.has(x)).toBe(s.has(x));
        }
        for (const [, x] of ops) expect(u.has(x)).toBe(s.has(x));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps nothing one by one for the ids a runner issues, even out of order', () => {
    const u = new UsedIds();
    for (let i = 1; i <= 100_000; i++) u.add(`mm-${i}`);
    u.add('grid-2');
    u.add('grid-1');
    expect(u.loose).toBe(0);
    expect(u.has('mm-100000') && u.has('mm-1') && u.has('grid-2')).toBe(true);
    expect(u.has('mm-100001') || u.has('mm-0') || u.has('grid-3')).toBe(false);
  });
});
