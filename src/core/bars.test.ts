import { describe, expect, it } from 'vitest';
import { barEnd, BarBuilder, barStart, type Bar, type BarTrade, firstWholeBar, mergeBars } from './bars.js';
import { Decimal } from './decimal.js';
import type { KlineIntervalName } from './enums.js';
import { mulberry32 } from './random.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0); // a Monday
const tr = (time: number, price: string, qty: string, isBuyerMaker = false, id?: string): BarTrade => ({ price: new Decimal(price), qty: new Decimal(qty), isBuyerMaker, time, ...(id !== undefined ? { id } : {}) });
const text = (b: Bar): string[] => [new Date(b.openTime).toISOString().slice(11, 19), b.open, b.high, b.low, b.close, b.volume, b.quoteVolume, b.trades, b.takerBuyBaseVolume, b.takerBuyQuoteVolume].map(String);

describe('bar boundaries', () => {
  it('weeks start on Monday, months on the 1st (UTC); the first whole bar', () => {
    expect(new Date(barStart('1w', Date.UTC(2026, 0, 8, 5))).toISOString()).toBe('2026-01-05T00:00:00.000Z');
    expect(new Date(barStart('1M', Date.UTC(2026, 1, 15))).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(new Date(barEnd('1M', Date.UTC(2026, 1, 1)) + 1).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(barStart('15m', Date.UTC(2026, 0, 1, 0, 29, 59))).toBe(Date.UTC(2026, 0, 1, 0, 15));
    expect(firstWholeBar('1m', T0)).toBe(T0);
    expect(firstWholeBar('1m', T0 + 1)).toBe(T0 + 60_000);
  });
});

describe('BarBuilder', () => {
  it('sums exactly, closes a bar on the first trade of a later one, and lists empty minutes flat', () => {
    const b = new BarBuilder('1m', false);
    expect(b.add(tr(T0 + 5, '100.1', '0.1', false, '1'))).toEqual([]);
    expect(b.add(tr(T0 + 30_000, '99.9', '0.2', true, '2'))).toEqual([]);
    const closed = b.add(tr(T0 + 180_000, '100.5', '0.3', false, '3'));
    expect(closed.map(text)).toEqual([
      ['10:00:00', '100.1', '100.1', '99.9', '99.9', '0.3', '29.99', '2', '0.1', '10.01'],
      ['10:01:00', '99.9', '99.9', '99.9', '99.9', '0', '0', '0', '0', '0'],
      ['10:02:00', '99.9', '99.9', '99.9', '99.9', '0', '0', '0', '0', '0'],
    ]);
    expect([closed[0]?.firstTradeId, closed[0]?.lastTradeId, closed[1]?.firstTradeId]).toEqual(['1', '2', undefined]);
    expect(closed[0]?.closeTime).toBe(T0 + 59_999);
    expect(b.current?.openTime).toBe(T0 + 180_000);
    expect(b.closedBefore).toBe(T0 + 180_000);
  });

  it('whole bars only: trades before the first boundary are in no bar', () => {
    const b = new BarBuilder('1m', true);
    b.add(tr(T0 + 15_000, '1', '1'));
    b.add(tr(T0 + 59_999, '2', '1'));
    expect(b.current).toBeUndefined();
    expect(b.closedBefore).toBe(T0 + 60_000);
    b.add(tr(T0 + 60_000, '3', '1'));
    const closed = b.add(tr(T0 + 120_000, '4', '1'));
    expect(closed.map(text)).toEqual([['10:01:00', '3', '3', '3', '3', '1', '3', '1', '1', '3']]);
    // A trade starting exactly on a boundary starts a whole bar.
    const exact = new BarBuilder('1m', true);
    exact.add(tr(T0, '5', '1'));
    expect(exact.current?.openTime).toBe(T0);
  });

  it('a late trade joins the open bar; advance closes bars by a wall clock', () => {
    const b = new BarBuilder('1m', false);
    b.add(tr(T0 + 70_000, '10', '1'));
    b.add(tr(T0 + 50_000, '9', '1'));
    expect(b.current && text(b.current)).toEqual(['10:01:00', '10', '10', '9', '9', '2', '19', '2', '2', '19']);
    expect(b.advance(T0 + 119_999)).toEqual([]);
    expect(b.advance(T0 + 200_000).map(text)).toEqual([
      ['10:01:00', '10', '10', '9', '9', '2', '19', '2', '2', '19'],
      ['10:02:00', '9', '9', '9', '9', '0', '0', '0', '0', '0'],
    ]);
    expect(b.closedBefore).toBe(T0 + 180_000);
    expect(b.add(tr(T0 + 185_000, '8', '1'))).toEqual([]);
    expect(new BarBuilder('1m', false).advance(T0)).toEqual([]);
  });

  it('merged one-minute bars equal the bars a builder of the wider interval makes from the same trades', () => {
    const rnd = mulberry32(7);
    for (const whole of [false, true]) {
      for (const iv of ['3m', '5m', '15m', '1h'] as KlineIntervalName[]) {
        const minute = new BarBuilder('1m', whole);
        const wide = new BarBuilder(iv, whole);
        const minutes: Bar[] = [];
        const direct: Bar[] = [];
        let t = T0 + Math.floor(rnd() * 600_000);
        for (let i = 0; i < 3000; i++) {
          // Bursts and gaps of up to 20 minutes: some bars of every width are empty.
          t += rnd() < 0.01 ? Math.floor(rnd() * 1_200_000) : Math.floor(rnd() * 4000);
          const trade = tr(t, (100 + Math.floor(rnd() * 2000) / 100).toFixed(2), (Math.floor(rnd() * 1000) / 1000 + 0.001).toFixed(3), rnd() < 0.5, String(i));
          minutes.push(...minute.add(trade));
          direct.push(...wide.add(trade));
        }
        // Compare the wide bars whose minutes are all closed.
        const lastClosed = minutes[minutes.length - 1] as Bar;
        const first = whole ? firstWholeBar(iv, minute.firstTradeTime as number) : -Infinity;
        const groups = new Map<number, Bar[]>();
        for (const m of minutes) {
          if (m.openTime < first) continue;
          const s = barStart(iv, m.openTime);
          groups.set(s, [...(groups.get(s) ?? []), m]);
        }
        const merged = [...groups].filter(([s]) => barEnd(iv, s) <= lastClosed.closeTime).map(([s, ms]) => mergeBars(iv, s, ms));
        const want = direct.filter((d) => d.closeTime <= lastClosed.closeTime);
        expect(merged.length).toBeGreaterThan(5);
        expect(merged.map(text)).toEqual(want.map(text));
        expect(merged.map((m) => [m.firstTradeId, m.lastTradeId])).toEqual(want.map((m) => [m.firstTradeId, m.lastTradeId]));
      }
    }
  });
});
