import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide } from './book.js';

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
