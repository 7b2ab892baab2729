import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random.js';
import { TradeWindow } from './tradeWindow.js';

/** The window's trades, oldest first. */
function contents(w: TradeWindow): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let i = w.start; i < w.end; i++) out.push([w.timeAt(i), w.priceAt(i), w.qtyAt(i)]);
  return out;
}

describe('TradeWindow', () => {
  it('holds what an array of trades with the same pushes and drops holds (growth and moves to the front)', () => {
    const rand = mulberry32(7);
    const w = new TradeWindow();
    const ref: [number, number, number][] = [];
    let first = 0;
    let t = 1_700_000_000_000;
    // Bursts and quiet stretches: the window both grows past its first columns and wraps to the front.
    for (let i = 0; i < 60_000; i++) {
      t += rand() < 0.02 ? 5_000 : Math.floor(rand() * 3);
      const trade: [number, number, number] = [t, 6_000_000_00 + Math.floor(rand() * 1e6), 1 + Math.floor(rand() * 2 ** 40)];
      w.push(...trade);
      ref.push(trade);
      const span = i < 30_000 ? 2_000 : 300_000;
      w.dropThrough(t - span);
      while (first < ref.length && (ref[first] as [number, number, number])[0] <= t - span) first++;
      if (i % 997 === 0) expect(contents(w)).toEqual(ref.slice(first));
    }
    expect(contents(w)).toEqual(ref.slice(first));
    expect(w.end - w.start).toBeGreaterThan(1024);
  });

  it('keeps the trade at the cut-off time out and the one just after it in', () => {
    const w = new TradeWindow();
    w.push(10, 1, 1);
    w.push(20, 2, 2);
    w.push(30, 3, 3);
    w.dropThrough(20);
    expect(contents(w)).toEqual([[30, 3, 3]]);
    w.dropThrough(40);
    expect(w.end - w.start).toBe(0);
  });
});
