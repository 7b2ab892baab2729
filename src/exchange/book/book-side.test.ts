import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide } from './book-side.js';

/** Reference side: a Map of price -> qty, sorted best first on every read. */
function referenceTop(m: Map<number, number>, isBid: boolean): [number, number][] {
  return [...m.entries()].sort((a, b) => (isBid ? b[0] - a[0] : a[0] - b[0]));
}

function contents(side: BookSide): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < side.size; i++) out.push([side.priceAt(i), side.qtyAt(i)]);
  return out;
}

describe('BookSide', () => {
  it('matches a sorted reference through block splits and removals (thousands of levels)', () => {
    // Prices from a range far wider than one block, so sides span many blocks that split, empty and
    // are reused; updates cluster near the top as a real stream's do, with some deep ones.
    const op = fc.tuple(fc.oneof(fc.integer({ min: 9_900, max: 10_000 }), fc.integer({ min: 1, max: 12_000 })), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 })));
    fc.assert(
      fc.property(fc.boolean(), fc.array(op, { minLength: 1, maxLength: 4_000 }), (isBid, ops) => {
        const side = new BookSide(isBid);
        const ref = new Map<number, number>();
        for (const [p, q] of ops) {
          side.set(p, q);
          if (q === 0) ref.delete(p);
          else ref.set(p, q);
        }
        const want = referenceTop(ref, isBid);
        expect(side.size).toBe(want.length);
        expect(contents(side)).toEqual(want);
        // Random-order rank reads (the cursor must also serve reads that go back up).
        for (const i of [want.length - 1, 0, Math.floor(want.length / 2), 3, want.length, -1]) {
          expect(side.priceAt(i)).toEqual(want[i]?.[0] ?? NaN);
          expect(side.qtyAt(i)).toEqual(want[i]?.[1] ?? NaN);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('reads stay right after a mutation between reads', () => {
    const side = new BookSide(false);
    for (let p = 1; p <= 500; p++) side.set(p, p);
    expect(side.priceAt(300)).toBe(301);
    side.set(1, 0);
    expect(side.priceAt(300)).toBe(302);
    side.set(0.5, 7);
    expect([side.priceAt(0), side.qtyAt(0)]).toEqual([0.5, 7]);
    side.clear();
    expect(side.size).toBe(0);
    expect(side.priceAt(0)).toBeNaN();
    side.set(3, 1);
    expect(contents(side)).toEqual([[3, 1]]);
  });

  it('rescales every level, and refuses one leaving the safe-integer range without changing anything', () => {
    const side = new BookSide(true);
    for (let p = 1; p <= 200; p++) side.set(p, 2 * p);
    side.rescale(10, 100);
    expect(side.priceAt(0)).toBe(2000);
    expect(side.qtyAt(199)).toBe(200);
    side.set(Number.MAX_SAFE_INTEGER, 1);
    expect(() => side.rescale(10, 1)).toThrow(/safe-integer/);
    expect(side.priceAt(1)).toBe(2000);
  });
});
