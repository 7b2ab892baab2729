import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import { Acct, type Ord } from './state.js';

/** A stand-in order: the open set reads only `id`. */
const ord = (id: number): Ord => ({ id }) as Ord;

describe('Acct open-order set', () => {
  it('lists open orders in id order through adds, removes and growth, against a plain set', () => {
    for (const first of [1, 0, 31, 33, 2 ** 40 + 5]) {
      const a = new Acct('a', undefined, 0, 0, new Decimal(0), new Decimal(0), true);
      const model = new Map<number, Ord>();
      const byId = (id: number): Ord => model.get(id)!;
      const r = mulberry32(first % 1000);
      let next = first;
      for (let step = 0; step < 20_000; step++) {
        const x = r();
        if (x < 0.5 || model.size === 0) {
          // Ids are issued in increasing order, sometimes with gaps (orders of other accounts).
          next += r() < 0.2 ? 1 + Math.floor(r() * 200) : 1;
          const o = ord(next);
          a.addOpen(o);
          model.set(o.id, o);
        } else if (x < 0.97) {
          // Remove mostly old orders, so the oldest open order moves and the words below it empty.
          const ids = [...model.keys()];
          const id = ids[Math.floor(r() ** 3 * ids.length)]!;
          a.removeOpen(model.get(id)!);
          model.delete(id);
          // Removing again, or an order never added, changes nothing.
          a.removeOpen(ord(id));
          a.removeOpen(ord(next + 5));
        } else {
          expect(a.openList(byId).map((o) => o.id)).toEqual([...model.keys()].sort((p, q) => p - q));
        }
      }
      expect(a.openList(byId).map((o) => o.id)).toEqual([...model.keys()].sort((p, q) => p - q));
    }
  });

  it('an empty scan before the first order does not hide later orders', () => {
    const a = new Acct('a', undefined, 0, 0, new Decimal(0), new Decimal(0), true);
    const byId = (id: number): Ord => ord(id);
    expect(a.openList(byId)).toEqual([]);
    a.addOpen(ord(7));
    a.addOpen(ord(9));
    a.removeOpen(ord(7));
    expect(a.openList(byId).map((o) => o.id)).toEqual([9]);
    a.removeOpen(ord(9));
    expect(a.openList(byId)).toEqual([]);
    a.addOpen(ord(5000));
    expect(a.openList(byId).map((o) => o.id)).toEqual([5000]);
  });
});
