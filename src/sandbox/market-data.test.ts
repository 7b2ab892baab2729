import { describe, expect, it } from 'vitest';
import type { TradeEvent } from '../sim/index.js';
import { candleEnd, candleStart, MarketData } from './market-data.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0); // a Monday
const trade = (id: number, price: string, qty: string, time: number, taker = '7', isBuyerMaker = false): TradeEvent => ({
  type: 'trade',
  symbol: 'BTC_USDT',
  id,
  price,
  qty,
  buyerOrderId: isBuyerMaker ? '1' : taker,
  sellerOrderId: isBuyerMaker ? taker : '1',
  isBuyerMaker,
  time,
});

describe('MarketData', () => {
  it('aggregates fills of one taker at one price and time; replayed trades (order 0) stay separate', () => {
    const m = new MarketData();
    const aggs = m.record([trade(1, '100', '0.1', T0), trade(2, '100', '0.2', T0), trade(3, '101', '0.3', T0)]);
    expect(aggs.map((a) => [a.p, a.q, a.f, a.l])).toEqual([
      ['100', '0.3', 1, 2],
      ['101', '0.3', 3, 3],
    ]);
    const replayed = m.record([trade(4, '101', '1', T0 + 1, '0'), trade(5, '101', '1', T0 + 1, '0')]);
    expect(replayed).toHaveLength(2);
  });

  it('klines from one-minute candles with exact sums, any interval', () => {
    const m = new MarketData();
    m.record([trade(1, '100.1', '0.1', T0), trade(2, '99.9', '0.2', T0 + 30_000, '8', true)]);
    m.record([trade(3, '100.5', '0.3', T0 + 60_000)]);
    const k1 = m.klines('BTC_USDT', '1m', { limit: 10 });
    expect(k1.map((k) => [k.t, k.o, k.h, k.l, k.c, k.v, k.n, k.q, k.V, k.Q])).toEqual([
      [T0, '100.1', '100.1', '99.9', '99.9', '0.3', 2, '29.99', '0.1', '10.01'],
      [T0 + 60_000, '100.5', '100.5', '100.5', '100.5', '0.3', 1, '30.15', '0.3', '30.15'],
    ]);
    const h = m.klines('BTC_USDT', '1h', { limit: 10 });
    expect(h.map((k) => [k.t, k.T, k.o, k.c, k.v, k.n, k.q])).toEqual([[T0, T0 + 3_599_999, '100.1', '100.5', '0.6', 3, '60.14']]);
    expect(m.miniTicker('BTC_USDT', T0 + 120_000)).toEqual({ o: '100.1', c: '100.5', h: '100.5', l: '99.9', v: '0.6', q: '60.14' });
  });

  it('mini ticker covers only the last 24 hours', () => {
    const m = new MarketData();
    m.record([trade(1, '100', '1', T0)]);
    m.record([trade(2, '110', '2', T0 + 25 * 3_600_000)]);
    m.record([trade(3, '105', '3', T0 + 25 * 3_600_000 + 60_000)]);
    expect(m.miniTicker('BTC_USDT', T0 + 25 * 3_600_000 + 120_000)).toEqual({ o: '110', c: '105', h: '110', l: '105', v: '5', q: '535' });
  });

  it('candle boundaries: weeks start on Monday, months on the 1st (UTC)', () => {
    expect(new Date(candleStart('1w', Date.UTC(2026, 0, 8, 5))).toISOString()).toBe('2026-01-05T00:00:00.000Z');
    expect(new Date(candleStart('1M', Date.UTC(2026, 1, 15))).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(new Date(candleEnd('1M', Date.UTC(2026, 1, 1)) + 1).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(candleStart('15m', Date.UTC(2026, 0, 1, 0, 29, 59))).toBe(Date.UTC(2026, 0, 1, 0, 15));
  });
});
