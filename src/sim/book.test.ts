import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide, OWN_LEVEL, type Resting, type WindowOptions } from './book.js';

/**
 * Window settings the model checks run with: the default (windowed once a side holds 64 prices), none,
 * and small windows built early, so that window moves, prices at and beyond its edges, the touch
 * falling below it and the far book under it all happen within a few hundred steps over prices 1..400.
 */
const WINDOWS: [string, WindowOptions][] = [
  ['default window', {}],
  ['no window', { span: 0 }],
  ['window of 16 from 2 prices', { span: 16, at: 2 }],
  ['window of 64 from 8 prices', { span: 64, at: 8 }],
];

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
  for (const isBid of [true, false])
    for (const [name, opts] of WINDOWS)
      for (const drift of [false, true]) {
    it(`${isBid ? 'bids' : 'asks'}, ${name}, ${drift ? 'prices around a drifting touch' : 'prices anywhere'}: agrees with a plain price map after every step`, () => {
      const step = fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 5 }), fc.nat(), fc.integer({ min: -3, max: 3 }));
      fc.assert(
        fc.property(fc.array(step, { maxLength: 600 }), (steps) => {
          const side = new BookSide(isBid, opts);
          const ext = new Map<number, number>();
          const own = new Map<number, Resting[]>();
          const better = (a: number, b: number): boolean => (isBid ? a > b : a < b);
          // Drifting: prices within 12 of a centre that random-walks over the range, so the touch
          // leaves the window upwards and downwards and the window is laid out again and again.
          let centre = 200;
          for (const [kind, raw, qty, pick, move] of steps) {
            centre = Math.min(388, Math.max(13, centre + move * 2));
            const price = drift ? centre + (raw % 25) - 12 : raw;
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
            expectLadderInvariants(side);
            expect([...side.levels.keys()].every((p) => model.has(p))).toBe(true);
          }
        }),
        { numRuns: 100 },
      );
    });
  }
});

/**
 * Ladder invariants: sorted slots (holes included) where a price equal to its left neighbour's is a
 * hole, live ends, the hole counts, Levels exactly at OWN_LEVEL slots, window slots at their own prices.
 */
function expectLadderInvariants(side: BookSide): void {
  const better = (a: number, b: number): boolean => (side.isBid ? a > b : a < b);
  let holes = 0;
  let sparseHoles = 0;
  for (let i = side.lo; i < side.hi; i++) {
    if (side.qx[i] === 0) holes++;
    if (i > side.lo) expect(better(side.px[i]!, side.px[i - 1]!) || (side.px[i] === side.px[i - 1] && side.qx[i] === 0)).toBe(true);
    if (side.qx[i] !== 0) expect(side.qx[i] === OWN_LEVEL).toBe(side.levels.has(side.px[i]!));
    if (side.dense && i >= side.da) expect(side.px[i]).toBe(side.isBid ? side.wb + (i - side.da) : side.wb - (i - side.da));
    else if (side.qx[i] === 0) sparseHoles++;
  }
  expect(holes).toBe(side.holes);
  expect(sparseHoles).toBe(side.sparseHoles);
  if (side.hi > side.lo) expect(side.qx[side.lo] !== 0 && side.qx[side.hi - 1] !== 0).toBe(true);
  expect(side.levels.size).toBe(side.qx.subarray(side.lo, side.hi).filter((q) => q === OWN_LEVEL).length);
}

/**
 * applyWindow against setPlain level by level (what the engine does for the levels it hands back):
 * the same ladder, slot for slot, and the same counts, ends and Levels, after every diff.
 */
describe('BookSide applyWindow', () => {
  for (const isBid of [true, false])
    for (const [name, opts] of WINDOWS) {
      it(`${isBid ? 'bids' : 'asks'}, ${name}: applies runs of plain window levels exactly as setPlain does`, () => {
        const diff = fc.array(fc.tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 30 });
        fc.assert(
          fc.property(fc.array(fc.tuple(diff, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 320 })), { maxLength: 60 }), (diffs) => {
            const a = new BookSide(isBid, opts);
            const b = new BookSide(isBid, opts);
            const own: Resting[] = [];
            const setLevel = (side: BookSide, p: number, q: number): void => {
              const i = side.setPlain(p, q);
              if (i >= 0) {
                const lv = side.levels.get(p)!;
                lv.ext = q;
                if (lv.head === null) side.demote(lv, i);
              }
            };
            for (const [levels, kind, at] of diffs) {
              // Now and then an own order (a Level the batch must leave to the caller) or a reader's Level.
              if (kind === 5) {
                const o = resting(1);
                const o2 = resting(1);
                a.append(a.level(at), o);
                b.append(b.level(at), o2);
                own.push(o, o2);
              } else if (kind === 6) {
                a.best();
                b.best();
              }
              const prices = Float64Array.from(levels.map(([p]) => p));
              const qtys = Float64Array.from(levels.map(([, q]) => q * 7));
              // The crossing bound: sometimes inside the prices, so the batch stops there.
              const cross = kind === 0 ? NaN : at;
              for (let i = 0; i < levels.length; ) {
                i = a.applyWindow(prices, qtys, i, levels.length, cross);
                if (i >= levels.length) break;
                setLevel(a, prices[i]!, qtys[i]!);
                i++;
              }
              for (let i = 0; i < levels.length; i++) setLevel(b, prices[i]!, qtys[i]!);
              expect([a.lo, a.hi, a.holes, a.sparseHoles, a.dense, a.da, a.wb]).toEqual([b.lo, b.hi, b.holes, b.sparseHoles, b.dense, b.da, b.wb]);
              expect(Array.from(a.qx.subarray(a.lo, a.hi))).toEqual(Array.from(b.qx.subarray(b.lo, b.hi)));
              expect(Array.from(a.px.subarray(a.lo, a.hi))).toEqual(Array.from(b.px.subarray(b.lo, b.hi)));
              expect([...a.levels.keys()].sort()).toEqual([...b.levels.keys()].sort());
              expectLadderInvariants(a);
            }
          }),
          { numRuns: 60 },
        );
      });
    }
});

/**
 * setPlain of the price 1000 + p (1000 - p for asks) on a plain side, checked after each call against
 * a map of the live prices: invariants, prices in order, quantities.
 */
function checkedSetter(side: BookSide): { live: Map<number, number>; set: (p: number, q: number) => void } {
  const d = side.isBid ? 1 : -1;
  const live = new Map<number, number>();
  const set = (p: number, q: number): void => {
    expect(side.setPlain(1000 + d * p, q)).toBeLessThan(0);
    if (q === 0) live.delete(1000 + d * p);
    else live.set(1000 + d * p, q);
    expectLadderInvariants(side);
    expect(side.prices).toEqual([...live.keys()].sort((a, b) => d * (a - b)));
    for (const [price, qty] of live) expect(side.totalOf(price)).toBe(qty);
  };
  return { live, set };
}

describe('BookSide window edges', () => {
  for (const isBid of [true, false]) {
    it(`${isBid ? 'bids' : 'asks'}: the touch falls below the window, then prices come back into it or land at its edges`, () => {
      const d = isBid ? 1 : -1;
      const side = new BookSide(isBid, { span: 16, at: 2 });
      const { live, set } = checkedSetter(side);
      set(100, 1);
      set(101, 2); // the window is built: best 101 at 4 units below its top, worst price 89
      expect(side.dense).toBe(true);
      set(80, 3); // below the window
      set(70, 4);
      set(89, 5); // its worst price
      set(104, 6); // its best price
      set(101, 0);
      set(100, 0);
      set(89, 0);
      set(104, 0); // the window is empty: the touch (80) is below it
      set(80, 0); // its slot just below the window is gone too
      set(95, 7); // back into the window: the slots up to it become holes
      set(60, 8);
      set(104, 9);
      set(105, 10); // beyond its top: laid out again around 105
      set(95, 0);
      set(104, 0);
      set(105, 0);
      set(71, 11); // the touch (71) is below the window and 71 is far from it: laid out again around it
      set(60, 0);
      set(70, 0);
      set(71, 0);
      set(200, 12); // empty side, far above: laid out again
      set(150, 13); // far below it
      for (const p of [...live.keys()]) set(d * (p - 1000), 0);
      expect(side.lo).toBe(side.hi);
    });

    it(`${isBid ? 'bids' : 'asks'}: holes below the window are compacted away, with and without live window slots`, () => {
      const d = isBid ? 1 : -1;
      const side = new BookSide(isBid, { span: 16, at: 2 });
      const checked = checkedSetter(side);
      const live = checked.live;
      let compactions = 0;
      const set = (p: number, q: number): void => {
        const before = side.sparseHoles;
        checked.set(p, q);
        if (before > 32 && side.sparseHoles === 0) compactions++;
      };
      set(300, 1);
      set(301, 2); // the window: prices 289..304
      for (let p = 100; p < 200; p++) set(p, p); // the far book below it
      for (let p = 101; p < 199; p += 2) set(p, 0); // holes between live prices: compacted once they are more than half
      for (let p = 102; p < 198; p += 4) set(p, 0);
      expect(compactions).toBeGreaterThan(0);
      for (let p = 101; p < 199; p += 2) set(p, p + 1); // inserts into the compacted far book
      set(300, 0);
      set(301, 0); // no live window slot: the far book's touch is below the window
      for (let p = 103; p < 197; p += 2) set(p, 0);
      expect(compactions).toBeGreaterThan(1);
      for (const p of [...live.keys()]) set(d * (p - 1000), 0);
      expect(side.lo).toBe(side.hi);
    });
  }
});

describe('BookSide.seek', () => {
  it('finds a price or its insertion slot from any starting hint, as a linear scan does', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.constantFrom(...WINDOWS), fc.integer({ min: 0, max: 280 }), fc.integer({ min: 20, max: 300 }), fc.uniqueArray(fc.integer({ min: 0, max: 299 }), { maxLength: 120 }), fc.array(fc.integer({ min: 0, max: 299 }), { maxLength: 60 }), fc.integer({ min: 0, max: 301 }), fc.integer({ min: -5, max: 300 }), (isBid, [, opts], from, width, raw, rawDrops, price, hint) => {
        // Prices in a random band (a narrow one fits a window entirely: nothing below it).
        const band = (r: number): number => 1 + from + (r % width);
        const prices = [...new Set(raw.map(band))];
        const drops = rawDrops.map(band);
        const side = new BookSide(isBid, opts);
        for (const p of prices) side.setPlain(p, 1);
        // Removals leave holes (below the window, and window slots beyond the live ends).
        for (const p of drops) side.setPlain(p, 0);
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

/** The level cache (slots by the price's low bits) must answer exactly what the level map holds. */
describe('BookSide level cache', () => {
  it('answers the live Level for colliding prices, after drops, demotions and re-creations', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(7, 7 + 1024, 7 + 2048, 2 ** 40 + 7, 8)), { maxLength: 200 }), (steps) => {
        const side = new BookSide(true);
        for (const [op, price] of steps) {
          const lv = side.levels.get(price);
          if (op === 0) {
            const got = side.level(price);
            expect(got).toBe(side.levels.get(price));
            expect(got.dead).toBe(false);
            expect(got.price).toBe(price);
          } else if (op === 1 && lv !== undefined) side.dropIfEmpty(lv);
          else if (lv !== undefined) side.demote(lv, side.seek(price));
          // Every live slot reads its own Level, never one of a colliding price or a dropped one.
          for (let i = side.lo; i < side.hi; i++) if (side.qx[i] === OWN_LEVEL) expect(side.levelAt(i)).toBe(side.levels.get(side.px[i]!));
        }
      }),
      { numRuns: 300 },
    );
  });
});
