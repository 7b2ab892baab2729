import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide, OWN_LEVEL, type Resting } from './book.js';

/** Model check of the sorted price array: any mix of level creations and drops keeps it sorted, best last, and equal to the level map. */
describe('BookSide price order', () => {
  for (const isBid of [true, false]) {
    it(`${isBid ? 'bids' : 'asks'}: levels created and dropped in any order stay sorted with the best price last`, () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 60 })), { maxLength: 300 }), (steps) => {
          const side = new BookSide(isBid);
          const model = new Set<number>();
          for (const [add, price] of steps) {
            if (add) {
              side.level(price);
              model.add(price);
            } else {
              const lv = side.levels.get(price);
              if (lv !== undefined) side.dropIfEmpty(lv);
              model.delete(price);
            }
          }
          const want = [...model].sort((a, b) => (isBid ? a - b : b - a));
          expect(side.prices).toEqual(want);
          expect([...side.levels.keys()].sort((a, b) => a - b)).toEqual([...model].sort((a, b) => a - b));
          expect(side.best()?.price).toBe(want[want.length - 1]);
        }),
        { numRuns: 300 },
      );
    });
  }
});

/** A resting order for the model check (only what the book reads and links). */
function resting(visible: number): Resting {
  return { visible, ahead: 0, level: null, prev: null, next: null };
}

/**
 * Model check of the ladder with holes against a plain map of price -> (replayed, own): replayed
 * updates (setPlain, or the Level when the price has one), own orders added and removed, levels
 * materialized by best() and level(), and demotion, in any order, over a dense price range so that
 * holes, their reuse, shifts into them, both ends, growth and compaction all happen.
 */
describe('BookSide ladder', () => {
  for (const isBid of [true, false]) {
    it(`${isBid ? 'bids' : 'asks'}: agrees with a plain price map after every step`, () => {
      const step = fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 5 }), fc.nat());
      fc.assert(
        fc.property(fc.array(step, { maxLength: 600 }), (steps) => {
          const side = new BookSide(isBid);
          const ext = new Map<number, number>();
          const own = new Map<number, Resting[]>();
          const better = (a: number, b: number): boolean => (isBid ? a > b : a < b);
          for (const [kind, price, qty, pick] of steps) {
            if (kind <= 6) {
              // A replayed update (mostly), as the engine applies it.
              const i = side.setPlain(price, qty);
              if (i >= 0) {
                const lv = side.levels.get(price)!;
                lv.ext = qty;
                if (lv.head === null) side.demote(lv, i);
              }
              if (qty === 0) ext.delete(price);
              else ext.set(price, qty);
            } else if (kind === 7) {
              const o = resting(qty + 1);
              side.append(side.level(price), o);
              own.set(price, [...(own.get(price) ?? []), o]);
            } else if (kind === 8) {
              const all = [...own.values()].flat();
              const o = all[pick % Math.max(1, all.length)];
              if (o !== undefined) {
                const p = o.level!.price;
                side.remove(o);
                const rest = own.get(p)!.filter((x) => x !== o);
                if (rest.length > 0) own.set(p, rest);
                else own.delete(p);
              }
            } else side.best();
            const model = new Set([...ext.keys(), ...own.keys()]);
            const want = [...model].sort((a, b) => (isBid ? a - b : b - a));
            expect(side.prices).toEqual(want);
            expect(side.bestPrice()).toBe(want.length > 0 ? want[want.length - 1] : -1);
            expect(side.extPrices()).toEqual(want.filter((p) => ext.has(p)).reverse());
            const total = (p: number): number => (ext.get(p) ?? 0) + (own.get(p) ?? []).reduce((a, o) => a + o.visible, 0);
            for (let p = 1; p <= 400; p += 7) expect(side.totalOf(p)).toBe(total(p));
            expect([...side.bestFirst()].map((lv) => [lv.price, lv.total])).toEqual([...want].reverse().map((p) => [p, total(p)]));
            const ownBest = [...own.keys()].reduce<number | undefined>((b, p) => (b === undefined || better(p, b) ? p : b), undefined);
            expect(side.firstOwn()?.price).toBe(ownBest);
            // Ladder invariants: sorted slots (holes included) where a price equal to its left neighbour's is a hole,
            // live ends, the hole count, Levels exactly at OWN_LEVEL slots.
            let holes = 0;
            for (let i = side.lo; i < side.hi; i++) {
              if (side.qx[i] === 0) holes++;
              if (i > side.lo) expect(better(side.px[i]!, side.px[i - 1]!) || (side.px[i] === side.px[i - 1] && side.qx[i] === 0)).toBe(true);
              if (side.qx[i] !== 0) expect(side.qx[i] === OWN_LEVEL).toBe(side.levels.has(side.px[i]!));
            }
            expect(holes).toBe(side.holes);
            if (side.hi > side.lo) expect(side.qx[side.lo] !== 0 && side.qx[side.hi - 1] !== 0).toBe(true);
            expect(side.levels.size).toBe(side.qx.subarray(side.lo, side.hi).filter((q) => q === OWN_LEVEL).length);
            expect([...side.levels.keys()].every((p) => model.has(p))).toBe(true);
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe('BookSide.seek', () => {
  it('finds a price or its insertion slot from any starting hint, as a linear scan does', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.uniqueArray(fc.integer({ min: 1, max: 300 }), { maxLength: 120 }), fc.integer({ min: 0, max: 301 }), fc.integer({ min: -5, max: 300 }), (isBid, prices, price, hint) => {
        const side = new BookSide(isBid);
        for (const p of prices) side.setPlain(p, 1);
        (side as unknown as { hint: number }).hint = hint;
        const sortsBefore = (v: number): boolean => (isBid ? v < price : v > price);
        let want = side.lo;
        while (want < side.hi && sortsBefore(side.px[want]!)) want++;
        expect(side.seek(price)).toBe(want < side.hi && side.px[want] === price ? want : ~want);
      }),
      { numRuns: 2000 },
    );
  });
});
