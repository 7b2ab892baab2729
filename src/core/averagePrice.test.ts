import { Decimal as DecimalJs } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { AveragePriceWindow } from './averagePrice.js';
import { Decimal } from './decimal.js';

const D = (s: string): Decimal => new Decimal(s);
const MIN = 60_000;

describe('AveragePriceWindow', () => {
  it('is unknown before any trade, whatever the length', () => {
    const w = new AveragePriceWindow([5]);
    expect(w.average(0, 0)).toBeUndefined();
    expect(w.average(5, 0)).toBeUndefined();
  });

  it('0 minutes is the last trade price, not an average', () => {
    const w = new AveragePriceWindow([]);
    w.add(1000, D('100'), D('10'));
    w.add(2000, D('200'), D('0.001'));
    expect(w.average(0, 2000)?.toFixed()).toBe('200');
    expect(w.size).toBe(0);
  });

  it('weights by quantity exactly (a float sum would not give this digit for digit)', () => {
    const w = new AveragePriceWindow([5]);
    w.add(0, D('0.1'), D('3'));
    w.add(1, D('0.2'), D('3'));
    w.add(2, D('60000.12345678'), D('0.00000001'));
    // (0.3 + 0.6 + 0.0006000012345678) / 6.00000001, computed independently in decimal.js.
    const X = DecimalJs.clone({ precision: 200 });
    const want = new X('0.9006000012345678').div('6.00000001').toSignificantDigits(40, DecimalJs.ROUND_HALF_UP);
    expect(w.average(5, 2)?.toFixed()).toBe(want.toFixed());
    expect(w.average(0, 2)?.toFixed()).toBe('60000.12345678');
  });

  it('expires trades at exactly `mins` minutes (time > now - window) and falls back to the last price when empty', () => {
    const w = new AveragePriceWindow([1]);
    w.add(0, D('100'), D('1'));
    w.add(30_000, D('200'), D('1'));
    expect(w.average(1, 59_999)?.toFixed()).toBe('150');
    // At now = 60000 the trade of t = 0 is on the boundary and out (the engine's rule).
    expect(w.average(1, 60_000)?.toFixed()).toBe('200');
    w.add(60_000, D('400'), D('3'));
    expect(w.average(1, 60_000)?.toFixed()).toBe('350');
    // Every trade out of the window: the last price, never an invented one.
    expect(w.average(1, 200_000)?.toFixed()).toBe('400');
  });

  it('keeps several lengths apart and agrees with a recomputation from scratch after many trades', () => {
    const w = new AveragePriceWindow([1, 3]);
    const trades: { t: number; p: Decimal; q: Decimal }[] = [];
    let seed = 42;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 5000; i++) {
      const t = i * 97;
      const p = D((1000 + Math.floor(rnd() * 100_000) / 100).toFixed(2));
      const q = D((Math.floor(rnd() * 1_000_000) / 1e6 + 0.000001).toFixed(6));
      trades.push({ t, p, q });
      w.add(t, p, q);
      if (i % 250 === 0 || i === 4999) {
        for (const mins of [1, 3]) {
          const inside = trades.filter((x) => x.t > t - mins * MIN);
          const num = inside.reduce((a, x) => a.plus(x.p.mul(x.q)), D('0'));
          const den = inside.reduce((a, x) => a.plus(x.q), D('0'));
          expect(w.average(mins, t)?.toFixed()).toBe(num.div(den).toFixed());
        }
      }
    }
    // Compaction kept only about what the longest window needs.
    expect(w.size).toBeLessThan((3 * MIN) / 97 + 2048);
  });

  it('builds a length first asked for later from the trades it holds', () => {
    const w = new AveragePriceWindow([5]);
    w.add(0, D('10'), D('1'));
    w.add(MIN, D('20'), D('1'));
    expect(w.average(1, MIN + 1)?.toFixed()).toBe('20');
    expect(w.average(5, MIN + 1)?.toFixed()).toBe('15');
  });

  it('returns the same object until the window changes (the risk checker caches by identity)', () => {
    const w = new AveragePriceWindow([5]);
    w.add(0, D('10'), D('1'));
    w.add(1, D('20'), D('3'));
    const a = w.average(5, 2);
    expect(w.average(5, 3)).toBe(a);
    w.add(4, D('30'), D('1'));
    expect(w.average(5, 4)).not.toBe(a);
  });

  it('stays exact when finer decimals come later and for values past the integer form (20 digits, 1e-45)', () => {
    const w = new AveragePriceWindow([1]);
    const X = DecimalJs.clone({ precision: 300 });
    const want = (ts: [string, string][]): string => {
      const num = ts.reduce((a, [p, q]) => a.plus(new X(p).mul(q)), new X(0));
      const den = ts.reduce((a, [, q]) => a.plus(q), new X(0));
      return num.div(den).toSignificantDigits(40, DecimalJs.ROUND_HALF_UP).toFixed();
    };
    const early: [string, string][] = [['100', '2'], ['100.5', '0.25']];
    const late: [string, string][] = [['99.123456789', '0.00000123'], ['12345678901234567890.5', '1e-45']];
    for (const [p, q] of early) w.add(0, D(p), D(q));
    for (const [p, q] of late) w.add(1000, D(p), D(q));
    expect(w.average(1, 1000)?.toFixed()).toBe(want([...early, ...late]));
    // The early trades leave the window; then the long one is the only side value left.
    expect(w.average(1, MIN)?.toFixed()).toBe(want(late));
    w.add(MIN + 1000, D('101'), D('1'));
    // Every side value gone: the integer-only quotient again.
    expect(w.average(1, 2 * MIN + 500)?.toFixed()).toBe('101');
  });
});
