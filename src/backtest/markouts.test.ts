import { describe, expect, it } from 'vitest';
import { MarkoutBuilder } from './markouts.js';
import type { ReportFill } from './result.js';

const fill = (t: number, strategy: string, side: 'BUY' | 'SELL', price: string): ReportFill => ({ t, strategy, symbol: 'BTC_USDT', side, price, qty: '1', fee: '0', feeAsset: null, maker: true });
const id = (x: number): number => x;

describe('markouts', () => {
  // marks every second: 100 until 5 s, then 101 until 20 s, then 99
  const marks = Array.from({ length: 90 }, (_, i) => ({ t: i * 1000, p: i < 5 ? 100 : i < 20 ? 101 : 99 }));

  it('scores each fill from its side, in bps of the fill price, at the first mark at or after fill + horizon', () => {
    const b = new MarkoutBuilder(1000, () => marks);
    // a buy at 100 at 4.5 s: marked 101 at 5.5 s -> 6 s (+100 bps), 101 at 15 s (+100), 99 at 65 s (-100)
    b.fill(fill(4500, 'a', 'BUY', '100'));
    // a sell at 101 at 10 s: 101 at 11 s (0), 99 at 20 s (+198.0198 bps), 99 at 70 s
    b.fill(fill(10_000, 'a', 'SELL', '101'));
    const m = b.of('a', id);
    expect(m.map((x) => x.fills)).toEqual([2, 2, 2]);
    expect(m[0]?.meanBps).toBeCloseTo(50, 9);
    expect(m[1]?.meanBps).toBeCloseTo((100 + (2 / 101) * 10_000) / 2, 9);
    expect(m[2]?.meanBps).toBeCloseTo((-100 + (2 / 101) * 10_000) / 2, 9);
  });

  it('skips fills whose horizon is past the last mark, and horizons under the sampling interval', () => {
    const b = new MarkoutBuilder(1000, () => marks);
    b.fill(fill(50_000, 'a', 'BUY', '99'));
    expect(b.of('a', id).map((x) => [x.fills, x.meanBps])).toEqual([
      [1, 0],
      [1, 0],
      [0, null],
    ]);
    expect(b.of('a', id)[2]?.note).toMatch(/no fill/);
    expect(b.of('none', id)[0]).toMatchObject({ fills: 0, meanBps: null });
    const coarse = new MarkoutBuilder(60_000, () => marks);
    coarse.fill(fill(0, 'a', 'BUY', '100'));
    expect(coarse.of('a', id).map((x) => x.note ?? x.fills)).toEqual(['marks sampled every 60000 ms', 'marks sampled every 60000 ms', 1]);
  });
});
