import { describe, expect, it } from 'vitest';
import type { TradeEvent } from '../sim/index.js';
import { MarketData, type WireCandle } from './market-data.js';

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

const R0 = Date.UTC(2024, 7, 8, 23, 54, 0);

/** Market data and a feed of replayed trades, each recorded at its own time. */
function replayed(): { m: MarketData; replay: (id: number, price: string, qty: string, recorded: number) => void } {
  const m = new MarketData();
  const replay = (id: number, price: string, qty: string, recorded: number): void => {
    m.replayedTrade('BTC_USDT', recorded);
    m.record([{ ...trade(id, price, qty, T0 + id), buyerOrderId: '0', sellerOrderId: '0' }]);
  };
  return { m, replay };
}

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

  it('a replayed symbol: bars at the recorded trade times, whole minutes only, without own trades', () => {
    const { m, replay } = replayed();
    replay(1, '100', '1', R0 + 15_000); // before the first whole minute: in no bar
    replay(2, '101', '1', R0 + 60_000);
    m.record([trade(3, '150', '5', T0 + 3)]); // an own trade: in the trade list, not in the bars
    replay(4, '102', '2', R0 + 119_999);
    expect(m.klines('BTC_USDT', '1m', { limit: 10 }).map((k) => [k.t, k.c, k.v, k.n])).toEqual([[R0 + 60_000, '102', '3', 2]]);
    expect(m.closedKlines('BTC_USDT', '1m', undefined)).toEqual([]);
    m.advance(T0 + 10 * 60_000); // the wall clock closes nothing of a replay
    expect(m.closedKlines('BTC_USDT', '1m', undefined)).toEqual([]);
    replay(5, '103', '1', R0 + 185_000);
    expect(m.closedKlines('BTC_USDT', '1m', undefined).map((k) => [k.t, k.o, k.h, k.l, k.c, k.v, k.n])).toEqual([
      [R0 + 60_000, '101', '102', '101', '102', '3', 2],
      [R0 + 120_000, '102', '102', '102', '102', '0', 0],
    ]);
    expect(m.closedKlines('BTC_USDT', '1m', R0 + 60_000).map((k) => k.t)).toEqual([R0 + 120_000]);
    expect(m.currentKline('BTC_USDT', '1m')).toMatchObject({ t: R0 + 180_000, c: '103', n: 1 });
    expect(m.currentKline('BTC_USDT', '5m')).toMatchObject({ t: R0 + 60_000, o: '101', c: '103', n: 3 });
    expect(m.trades('BTC_USDT', 10).map((t) => t.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a replayed symbol: before its first whole bar, the forming one is served from the first trade and never closed', () => {
    const { m, replay } = replayed();
    replay(1, '100', '1', R0 + 15_000);
    replay(2, '99', '2', R0 + 20_000);
    const lead = [R0, '100', '100', '99', '99', '3', 2];
    const row = (k: WireCandle | undefined) => k && [k.t, k.o, k.h, k.l, k.c, k.v, k.n];
    expect(row(m.currentKline('BTC_USDT', '1m'))).toEqual(lead);
    expect(m.klines('BTC_USDT', '1m', { limit: 10 }).map(row)).toEqual([lead]);
    // The 5m bar forming since 23:50, of the replay's trades so far.
    expect(row(m.currentKline('BTC_USDT', '5m'))).toEqual([Date.UTC(2024, 7, 8, 23, 50), '100', '100', '99', '99', '3', 2]);
    expect(m.klines('BTC_USDT', '5m', { limit: 10, startTime: R0 + 300_000 })).toEqual([]);
    expect(m.closedKlines('BTC_USDT', '1m', undefined)).toEqual([]);
    replay(3, '101', '1', R0 + 60_000); // the first whole minute opens: the lead-in goes, unclosed
    expect(m.klines('BTC_USDT', '1m', { limit: 10 }).map(row)).toEqual([[R0 + 60_000, '101', '101', '101', '101', '1', 1]]);
    expect(row(m.currentKline('BTC_USDT', '5m'))).toEqual([Date.UTC(2024, 7, 8, 23, 55), '101', '101', '101', '101', '1', 1]);
    expect(m.closedKlines('BTC_USDT', '1m', undefined)).toEqual([]);
  });

  it('a wall-clock symbol closes bars as the clock passes their end', () => {
    const m = new MarketData();
    m.record([trade(1, '100', '1', T0 + 10)]);
    expect(m.closedKlines('BTC_USDT', '1m', undefined)).toEqual([]);
    m.advance(T0 + 125_000);
    expect(m.closedKlines('BTC_USDT', '1m', undefined).map((k) => [k.t, k.c, k.n])).toEqual([
      [T0, '100', 1],
      [T0 + 60_000, '100', 0],
    ]);
    expect(m.currentKline('BTC_USDT', '1m')).toMatchObject({ t: T0 + 120_000, o: '100', n: 0 });
    expect(m.currentKline('BTC_USDT', '5m')).toMatchObject({ t: T0, o: '100', v: '1', n: 1 });
  });
});
