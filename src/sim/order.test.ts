import { describe, expect, it } from 'vitest';
import { Ord, type Pos } from './order.js';

describe('Ord.create', () => {
  it('builds the same record as the constructor: fields in order, values, prototype', () => {
    const pos = {} as Pos;
    const cases: ConstructorParameters<typeof Ord>[] = [
      [7, null, pos, true, 'LIMIT', 'GTC', 1000, 0, 5, 0n, 0, 'EXPIRE_MAKER', 42],
      [8, 'my-id', pos, false, 'STOP_LOSS_LIMIT', 'IOC', 990, 995, 3, 0n, 1, 'DECREMENT', 43],
      [9, null, pos, true, 'MARKET', 'GTC', 0, 0, 0, 12345n, 0, 'TRANSFER', 44],
    ];
    for (const args of cases) {
      const a = new Ord(...args);
      const b = Ord.create(...args);
      expect(Object.getPrototypeOf(b)).toBe(Ord.prototype);
      expect(b).toBeInstanceOf(Ord);
      expect(Object.keys(b)).toEqual(Object.keys(a));
      expect({ ...b }).toEqual({ ...a });
      for (const k of ['isBuy', 'type', 'tif', 'stp', 'status', 'clientId', 'stopPrice', 'icebergQty', 'quoteQty', 'working', 'isOpen'] as const) {
        expect(b[k]).toEqual(a[k]);
      }
    }
  });
});
