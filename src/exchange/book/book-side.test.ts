import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockSide } from './block-side.js';
import { BookSide } from './book-side.js';

/** Reference side: a Map of price -> qty, sorted best first on every read. */
function referenceTop(m: Map<number, number>, isBid: boolean): [number, number][] {
  return [...m.entries()].sort((a, b) => (isBid ? b[0] - a[0] : a[0] - b[0]));
}

function contents(side: BookSide | BlockSide): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < side.size; i++) out.push([side.priceAt(i), side.qtyAt(i)]);
  return out;
}

describe('BookSide', () => {
  it('matches a sorted reference with small windows that move up and down and spill to the blocks', () => {
    // A drifting touch (a random walk of small steps and rare jumps of up to a few windows) with
    // updates near it (the same prices again and again, half of them removals) and some far below,
    // prices up to 2^40 (scaled BTC prices are ~2^23), windows of 32 to 1024 slots: the window
    // moves often both ways, levels cross its lower edge both ways, and removals empty it.
    const drift = fc.oneof({ arbitrary: fc.integer({ min: -4, max: 4 }), weight: 30 }, { arbitrary: fc.integer({ min: -3_000, max: 3_000 }), weight: 1 });
    const step = fc.tuple(drift, fc.integer({ min: -40, max: 3 }), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 })), fc.nat(9));
    fc.assert(
      fc.property(fc.boolean(), fc.constantFrom(32, 64, 256, 1024), fc.integer({ min: 1_000_000, max: 2 ** 40 }), fc.array(step, { minLength: 1_000, maxLength: 3_000, size: 'max' }), (isBid, window, start, steps) => {
        const side = new BookSide(isBid, { window });
        const ref = new Map<number, number>();
        let touch = start;
        for (const [d, depth, q, far] of steps) {
          touch += d;
          // Near the touch on the side's own direction (bids below it, asks above), or far away.
          const off = depth * (far === 0 ? 53 : 1);
          const p = isBid ? touch + off : touch - off;
          side.set(p, q);
          if (q === 0) ref.delete(p);
          else ref.set(p, q);
          let best = NaN;
          for (const k of ref.keys()) if (!(isBid ? k <= best : k >= best)) best = k;
          expect([side.size, side.priceAt(0), side.qtyAt(0)]).toEqual([ref.size, best, ref.get(best) ?? NaN]);
        }
        expect(contents(side)).toEqual(referenceTop(ref, isBid));
        side.rescale(10, 3);
        expect(contents(side)).toEqual(referenceTop(ref, isBid).map(([p, q]) => [p * 10, q * 3]));
      }),
      { numRuns: 40 },
    );
  });

  it('setMany leaves the side exactly as set level by level (window moves, spills, top removals, odd keys)', () => {
    // Diffs of up to 60 levels around a drifting touch, some far below or above the window, some
    // removing the top, now and then a key that is not an integer (the window turns off).
    const level = fc.tuple(fc.integer({ min: -90, max: 6 }), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 })), fc.nat(40));
    const diff = fc.tuple(fc.integer({ min: -30, max: 30 }), fc.array(level, { maxLength: 60 }));
    fc.assert(
      fc.property(fc.boolean(), fc.constantFrom(32, 64, 256), fc.array(diff, { minLength: 1, maxLength: 80 }), (isBid, window, diffs) => {
        const many = new BookSide(isBid, { window });
        const one = new BookSide(isBid, { window });
        let touch = 1_000_000;
        for (const [d, levels] of diffs) {
          touch += d;
          const prices = new Float64Array(levels.length);
          const qtys = new Float64Array(levels.length);
          levels.forEach(([off, q, odd], i) => {
            const o = odd === 0 ? off * 40 : off;
            prices[i] = (isBid ? touch + o : touch - o) + (odd === 1 && q > 0 ? 0.5 : 0);
            qtys[i] = q;
          });
          many.setMany(prices, qtys, levels.length);
          for (let i = 0; i < levels.length; i++) one.set(prices[i]!, qtys[i]!);
          expect([many.size, many.priceAt(0), many.qtyAt(0)]).toEqual([one.size, one.priceAt(0), one.qtyAt(0)]);
        }
        expect(contents(many)).toEqual(contents(one));
      }),
      { numRuns: 60 },
    );
  });

  it('keys that are not integers turn the window off, with the same results', () => {
    const side = new BookSide(true, { window: 32 });
    for (let p = 100; p < 200; p += 3) side.set(p, p);
    side.set(150.5, 1);
    side.set(103, 0);
    const want: [number, number][] = [];
    for (let p = 100; p < 200; p += 3) if (p !== 103) want.push([p, p]);
    want.push([150.5, 1]);
    want.sort((a, b) => b[0] - a[0]);
    expect(contents(side)).toEqual(want);
    side.clear();
    side.set(7, 1);
    expect(contents(side)).toEqual([[7, 1]]);
    // Near the safe-integer limit window keys would not be exact: blocks only there too.
    const max = Number.MAX_SAFE_INTEGER;
    for (const isBid of [true, false]) {
      const edge = new BookSide(isBid, { window: 32 });
      for (const p of [max, max - 1, max - 40, 5]) edge.set(p, 2);
      expect(contents(edge)).toEqual(referenceTop(new Map([max, max - 1, max - 40, 5].map((p) => [p, 2])), isBid));
    }
    expect(() => new BookSide(true, { window: 48 })).toThrow(/power of two/);
  });

  it('the blocks alone match a sorted reference (BlockSide: deep levels, and every level of a side that is not direct)', () => {
    const op = fc.tuple(fc.oneof(fc.integer({ min: 9_900, max: 10_000 }), fc.integer({ min: 1, max: 12_000 })), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 })));
    fc.assert(
      fc.property(fc.boolean(), fc.array(op, { minLength: 500, maxLength: 4_000, size: 'max' }), (isBid, ops) => {
        const side = new BlockSide(isBid);
        const ref = new Map<number, number>();
        for (const [p, q] of ops) {
          side.set(p, q);
          if (q === 0) ref.delete(p);
          else ref.set(p, q);
        }
        expect(contents(side)).toEqual(referenceTop(ref, isBid));
      }),
      { numRuns: 30 },
    );
  });

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
