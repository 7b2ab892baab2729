import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { ChartSeries, mergeBars, mergeBarsOf, thin, thinStream, type Bar } from './chartSeries.js';
import { fillMarkers, underwater } from './reportData.js';

describe('chart series for the report', () => {
  it('thins a long series to its bound, keeping first, last and every bucket extreme', () => {
    const pts = Array.from({ length: 100_000 }, (_, i) => ({ t: i, v: Math.sin(i / 1000) + (i === 54_321 ? -50 : 0) }));
    const out = thin(pts, (p) => p.v, 4000);
    expect(out.length).toBeLessThanOrEqual(4000);
    expect(out[0]).toBe(pts[0]);
    expect(out[out.length - 1]).toBe(pts[pts.length - 1]);
    expect(out.some((p) => p.t === 54_321)).toBe(true);
    expect(out.every((p, i) => i === 0 || p.t > (out[i - 1] as { t: number }).t)).toBe(true);
  });

  it('merges candles into wider ones: open of the first, close of the last, extremes of all', () => {
    const bars = Array.from({ length: 10 }, (_, i) => ({ t: i * 60_000, o: i, h: i + 5, l: i - 5, c: i + 1 }));
    expect(mergeBars(bars, 4)).toEqual([
      { t: 0, o: 0, h: 7, l: -5, c: 3 },
      { t: 180_000, o: 3, h: 10, l: -2, c: 6 },
      { t: 360_000, o: 6, h: 13, l: 1, c: 9 },
      { t: 540_000, o: 9, h: 14, l: 4, c: 10 },
    ]);
  });

  it('keeps closed klines of the shortest interval, and one plotted value per sampling interval', () => {
    const c = new ChartSeries(60_000);
    const k = (interval: '1m' | '5m', openTime: number, closed = true) => {
      const d = new Decimal(openTime / 60_000 + 1);
      return { type: 'kline' as const, E: openTime, symbol: 'BTC_USDT', interval, openTime, closeTime: openTime + 59_999, firstTradeId: undefined, lastTradeId: undefined, open: d, high: d, low: d, close: d, volume: d, quoteVolume: d, trades: 1, takerBuyBaseVolume: d, takerBuyQuoteVolume: d, closed };
    };
    c.kline(k('5m', 0));
    c.kline(k('1m', 0));
    c.kline(k('1m', 60_000, false));
    c.kline(k('5m', 300_000));
    c.kline(k('1m', 60_000));
    c.plot('s', 'BTC_USDT', 'avg', 1_000, 1);
    c.plot('s', 'BTC_USDT', 'avg', 59_000, 2);
    c.plot('s', 'BTC_USDT', 'avg', 61_000, 3);
    c.plot('s', 'BTC_USDT', 'avg', 62_000, Number.NaN);
    const out = c.finish();
    expect(out.bars.BTC_USDT?.map((b) => b.t)).toEqual([0, 60_000]);
    expect(out.plots).toEqual([{ strategy: 's', name: 'avg', symbol: 'BTC_USDT', points: [{ t: 0, v: 2 }, { t: 60_000, v: 3 }] }]);
  });

  it('merges a run of spooled candles past the bound as mergeBars merges them in an array', () => {
    const c = new ChartSeries(60_000);
    const bars: Bar[] = [];
    // Past a spool chunk (8,192 rows), with its own values per field.
    for (let i = 0; i < 20_001; i++) {
      const b = { t: i * 60_000, o: 100 + Math.sin(i), h: 102 + Math.cos(i / 7), l: 98 - Math.sin(i / 3), c: 100 + Math.cos(i) };
      bars.push(b);
      const k = { type: 'kline' as const, E: b.t, symbol: 'BTC_USDT', interval: '1m' as const, openTime: b.t, closeTime: b.t + 59_999, closed: true, openNumber: b.o, highNumber: b.h, lowNumber: b.l, closeNumber: b.c };
      c.kline(k as unknown as Parameters<ChartSeries['kline']>[0]);
    }
    const out = c.finish().bars.BTC_USDT ?? [];
    expect(out.length).toBe(Math.ceil(20_001 / Math.ceil(20_001 / 4000)));
    expect(out).toEqual(mergeBars(bars));
  });

  it('keeps through an overlay sink what plot keeps, the two sharing a series', () => {
    const calls: [string, number, number][] = [['avg', 0, Number.NaN], ['avg', 500, 1], ['sma', 500, 7], ['avg', 900, 2], ['avg', 1500, Number.POSITIVE_INFINITY], ['sma', 2500, 8], ['avg', 2600, 3]];
    const byPlot = new ChartSeries(1000);
    for (const [name, t, v] of calls) byPlot.plot('s', 'BTC_USDT', name, t, v);
    const bySink = new ChartSeries(1000);
    const sinks = { avg: bySink.overlay('s', 'BTC_USDT', 'avg'), sma: bySink.overlay('s', 'BTC_USDT', 'sma') };
    for (const [name, t, v] of calls) {
      // The generic call and the sink take turns on one series.
      if (name === 'sma' && t > 1000) bySink.plot('s', 'BTC_USDT', name, t, v);
      else sinks[name as 'avg' | 'sma'](t, v);
    }
    const want = byPlot.finish().plots;
    expect(want.map((p) => p.points.map((x) => x.v))).toEqual([[2, 3], [7, 8]]);
    expect(bySink.finish().plots).toEqual(want);
  });

  it('keeps the pane of a series first point; an overlay carries no pane key', () => {
    const c = new ChartSeries(1000);
    c.plot('s', 'BTC_USDT', 'rsi', 0, 40, 'RSI');
    c.plot('s', 'BTC_USDT', 'rsi', 1000, 45, 'Other');
    c.plot('s', 'BTC_USDT', 'avg', 0, 100);
    c.plot('s', 'BTC_USDT', 'low', 0, 30, 'RSI');
    const out = c.finish();
    expect(out.plots.map((p) => [p.name, p.pane])).toEqual([
      ['avg', undefined],
      ['low', 'RSI'],
      ['rsi', 'RSI'],
    ]);
    expect('pane' in (out.plots[0] as object)).toBe(false);
    expect(Object.keys(out.plots[2] as object)).toEqual(['strategy', 'name', 'symbol', 'pane', 'points']);
  });

  it('groups fills into one marker per time bucket and side past the bound, and draws the drawdown', () => {
    const fills = Array.from({ length: 5000 }, (_, i) => ({ t: i * 1000, strategy: 's', symbol: 'BTC_USDT', side: i % 2 === 0 ? ('BUY' as const) : ('SELL' as const), price: '100', qty: '1', fee: '0', feeAsset: null, maker: true }));
    expect(fillMarkers(fills.slice(0, 3), 0, 5_000_000)[0]?.text).toMatch(/^1970-01-01T00:00:00\.000Z s BUY 1 @ 100, fee 0, maker$/);
    const grouped = fillMarkers(fills, 0, 5_000_000, 100);
    expect(grouped.length).toBeLessThanOrEqual(100);
    expect(grouped[0]?.text).toMatch(/^\d+ buys from .*: \d+ at 100 on average$/);
    expect(underwater([{ t: 0, v: 100 }, { t: 1, v: 90 }, { t: 2, v: 120 }, { t: 3, v: 108 }]).map((p) => p.v)).toEqual([0, -10, 0, -10]);
  });

  it('thins and merges a series read once exactly as the whole arrays were (reference: the array forms)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { maxLength: 300 }), fc.integer({ min: 2, max: 40 }), (vs, max) => {
        const pts = vs.map((v, t) => ({ t, v }));
        const gen = function* () {
          yield* pts;
        };
        expect(thinStream(gen(), pts.length, (p) => p.v, max)).toEqual(referenceThin(pts, max));
        const bars = vs.map((v, t) => ({ t, o: v, h: v + 1, l: v - 1, c: -v }));
        expect(mergeBarsOf(bars.values(), bars.length, max)).toEqual(referenceMerge(bars, max));
      }),
      { numRuns: 300 },
    );
  });
});

/** thin() as it was over whole arrays. */
function referenceThin(points: readonly { t: number; v: number }[], max: number): { t: number; v: number }[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 2) - 1);
  const size = Math.ceil(points.length / buckets);
  const out = [points[0] as { t: number; v: number }];
  for (let i = 0; i < points.length; i += size) {
    let lo = i;
    let hi = i;
    for (let j = i; j < Math.min(points.length, i + size); j++) {
      if ((points[j] as { v: number }).v < (points[lo] as { v: number }).v) lo = j;
      if ((points[j] as { v: number }).v > (points[hi] as { v: number }).v) hi = j;
    }
    for (const j of lo <= hi ? [lo, hi] : [hi, lo]) if (out[out.length - 1] !== points[j]) out.push(points[j] as { t: number; v: number });
  }
  const last = points[points.length - 1] as { t: number; v: number };
  if (out[out.length - 1] !== last) out.push(last);
  return out;
}

/** mergeBars() as it was over whole arrays. */
function referenceMerge(bars: readonly Bar[], max: number): Bar[] {
  if (bars.length <= max) return [...bars];
  const k = Math.ceil(bars.length / max);
  const out: Bar[] = [];
  for (let i = 0; i < bars.length; i += k) {
    const group = bars.slice(i, i + k);
    out.push({ t: (group[0] as Bar).t, o: (group[0] as Bar).o, h: Math.max(...group.map((b) => b.h)), l: Math.min(...group.map((b) => b.l)), c: (group[group.length - 1] as Bar).c });
  }
  return out;
}
