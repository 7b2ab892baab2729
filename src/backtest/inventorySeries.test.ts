import { describe, expect, it } from 'vitest';
import { INVENTORY_POINTS, InventorySeries } from './inventorySeries.js';

describe('inventory series', () => {
  it('keeps every fill while few, then a bounded spread over the whole run, the last always', () => {
    const few = new InventorySeries();
    few.add(1, 0.5);
    few.add(2, 0);
    expect(few.points(10)).toEqual([{ t: 1, q: 0.5 }, { t: 2, q: 0 }, { t: 10, q: 0 }]);
    const many = new InventorySeries();
    for (let i = 0; i < 100_000; i++) many.add(i, i % 7);
    const p = many.points(100_000);
    expect(p.length).toBeLessThanOrEqual(INVENTORY_POINTS + 2);
    expect(p.length).toBeGreaterThanOrEqual(INVENTORY_POINTS / 2);
    expect(p[0]).toEqual({ t: 0, q: 0 });
    expect(p[p.length - 2]).toEqual({ t: 99_999, q: 99_999 % 7 });
    // Spread over the run: no gap much longer than the stride.
    const gaps = p.slice(1).map((x, i) => x.t - (p[i] as { t: number }).t);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1024);
    expect(new InventorySeries().points(5)).toEqual([]);
  });
});
