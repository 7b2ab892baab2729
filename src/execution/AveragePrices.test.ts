import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { TradeEvent } from '../core/marketEvents.js';
import type { AggTrade, PublicTrade } from '../core/types.js';
import { compareTradeIds } from '../core/tradeId.js';
import { makeSymbol } from '../risk/testkit.js';
import { silentLogger } from './log.js';
import { AveragePrices, type TradeSource } from './AveragePrices.js';

const D = (s: string): Decimal => new Decimal(s);
const MIN = 60_000;
const sym = (mins: number) =>
  makeSymbol('BTC_USDT', [{ filterType: 'PERCENT_PRICE', multiplierUp: '1.1', multiplierDown: '0.9', avgPriceMins: mins }]);

const agg = (aggId: number, firstTradeId: number, lastTradeId: number, time: number, price: string, qty: string): AggTrade => ({ aggId: String(aggId), firstTradeId: String(firstTradeId), lastTradeId: String(lastTradeId), time, price: D(price), qty: D(qty), isBuyerMaker: false, isBestMatch: true });
const trade = (tradeId: number, tradeTime: number, price: string, qty: string): TradeEvent => ({ type: 'trade', E: tradeTime, symbol: 'BTC_USDT', tradeId: String(tradeId), tradeTime, price: D(price), qty: D(qty), isBuyerMaker: false });

/** A REST source over a fixed list of aggregate trades, answering as the spec's endpoint does. */
function source(all: AggTrade[], calls: object[] = [], fail = false, singles: PublicTrade[] = []): TradeSource {
  return {
    trades(p) {
      calls.push(p);
      if (fail) return Promise.reject(new Error('HTTP 503'));
      return Promise.resolve(singles.filter((t) => p.fromId === undefined || compareTradeIds(t.id, p.fromId) >= 0).slice(0, p.limit ?? 500));
    },
    aggTrades(p) {
      calls.push(p);
      if (fail) return Promise.reject(new Error('HTTP 503'));
      if (p.startTime === undefined && p.fromId === undefined) return Promise.resolve(all.slice(-(p.limit ?? 500)));
      return Promise.resolve(all.filter((a) => (p.fromId === undefined || compareTradeIds(a.aggId, p.fromId) >= 0) && (p.startTime === undefined || a.time >= p.startTime)).slice(0, p.limit ?? 500));
    },
  };
}
const quiet = silentLogger;

describe('AveragePrices', () => {
  it('is unknown until warmed up, then averages the REST window (not the last trade)', async () => {
    let now = 10 * MIN;
    const calls: object[] = [];
    const a = new AveragePrices({ symbols: [sym(5)], source: source([agg(1, 1, 1, 4 * MIN, '90', '100'), agg(2, 2, 3, 6 * MIN, '100', '1'), agg(3, 4, 4, 9 * MIN, '200', '1')], calls), now: () => now, log: quiet });
    expect(a.avgPrice('BTC_USDT', 5)).toBeUndefined();
    await a.warmUp();
    // Only the trades after 10 - 5 minutes: (100 * 1 + 200 * 1) / 2.
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('150');
    expect(a.avgPrice('BTC_USDT', 0)?.toFixed()).toBe('200');
    expect(calls).toEqual([{ symbol: 'BTC_USDT', symbolType: 1, startTime: 5 * MIN, limit: 1000 }]);
    now = 11 * MIN + 1;
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('200');
  });

  it('joins the stream without counting a trade twice (held back during warm-up, skipped up to the REST trade id)', async () => {
    const now = 10 * MIN;
    const a = new AveragePrices({ symbols: [sym(5)], source: source([agg(7, 10, 12, 9 * MIN, '100', '3')]), now: () => now, log: quiet });
    // Trades 10..12 came on the stream before the REST answer; 13 after it.
    a.onTrade(trade(11, 9 * MIN, '100', '1'));
    a.onTrade(trade(12, 9 * MIN, '100', '1'));
    a.onTrade(trade(13, 9.5 * MIN, '400', '1'));
    await a.warmUp();
    // (100 * 3 + 400 * 1) / 4
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('175');
    a.onTrade(trade(13, 9.5 * MIN, '400', '1'));
    a.onTrade(trade(14, 9.9 * MIN, '300', '4'));
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('237.5');
  });

  it('compares trade ids as numbers at any size: 10 comes after 9, and ids past 2^53 keep their order', async () => {
    const big = (id: string, t: number, price: string, qty: string): TradeEvent => ({ ...trade(0, t, price, qty), tradeId: id });
    const short = new AveragePrices({ symbols: [sym(5)], source: source([agg(1, 1, 9, 9 * MIN, '100', '1')]), now: () => 10 * MIN, log: quiet });
    await short.warmUp();
    short.onTrade(trade(9, 9 * MIN, '100', '1'));
    short.onTrade(trade(10, 9.5 * MIN, '400', '1'));
    // (100 + 400) / 2: trade 10 counted, trade 9 (already in the REST window) not.
    expect(short.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('250');
    const last = { ...agg(7, 0, 0, 9 * MIN, '100', '3'), aggId: '9223372036854775000', firstTradeId: '9223372036854775797', lastTradeId: '9223372036854775799' };
    const long = new AveragePrices({ symbols: [sym(5)], source: source([last]), now: () => 10 * MIN, log: quiet });
    await long.warmUp();
    long.onTrade(big('9223372036854775799', 9 * MIN, '100', '1'));
    long.onTrade(big('9223372036854775800', 9.5 * MIN, '500', '1'));
    long.onTrade(big('9223372036854775800', 9.5 * MIN, '500', '1'));
    // (100 * 3 + 500) / 4
    expect(long.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('200');
  });

  it('pages through a busy window by aggregate id', async () => {
    const all = Array.from({ length: 2500 }, (_, i) => agg(i + 1, i + 1, i + 1, 6 * MIN + i, i < 2000 ? '10' : '20', '1'));
    const calls: { fromId?: string }[] = [];
    const a = new AveragePrices({ symbols: [sym(5)], source: source(all, calls), now: () => 10 * MIN, log: quiet });
    await a.warmUp();
    expect(calls.map((c) => c.fromId)).toEqual([undefined, '1001', '2001']);
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('12');
  });

  it('uses the last trade before an empty window (the exchange’s fallback), fetched on its own', async () => {
    const calls: object[] = [];
    const a = new AveragePrices({ symbols: [sym(5)], source: source([agg(1, 1, 1, MIN, '123.45', '2')], calls), now: () => 60 * MIN, log: quiet });
    await a.warmUp();
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('123.45');
    expect(calls[1]).toEqual({ symbol: 'BTC_USDT', symbolType: 1, limit: 1 });
  });

  it('0 minutes needs only the most recent trade', async () => {
    const calls: object[] = [];
    const a = new AveragePrices({ symbols: [sym(0)], source: source([agg(1, 1, 1, MIN, '5', '2'), agg(2, 2, 2, 2 * MIN, '6', '1')], calls), now: () => 3 * MIN, log: quiet });
    await a.warmUp();
    expect(a.avgPrice('BTC_USDT', 0)?.toFixed()).toBe('6');
    expect(calls).toEqual([{ symbol: 'BTC_USDT', symbolType: 1, limit: 1 }]);
  });

  it('after a failed warm-up stays unknown until the stream alone has covered a whole window', async () => {
    let now = 10 * MIN;
    const warned: string[] = [];
    const a = new AveragePrices({ symbols: [sym(5)], source: source([], [], true), now: () => now, log: { ...silentLogger, warn: (_o: object, m?: string) => warned.push(m ?? '') } });
    await a.warmUp();
    expect(warned).toHaveLength(1);
    a.onTrade(trade(1, 11 * MIN, '100', '1'));
    expect(a.avgPrice('BTC_USDT', 5)).toBeUndefined();
    now = 15 * MIN - 1;
    expect(a.avgPrice('BTC_USDT', 5)).toBeUndefined();
    now = 15 * MIN;
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('100');
  });

  it('refuses to average a window it could not fetch whole (page cap) rather than use part of it', async () => {
    const all = Array.from({ length: 2500 }, (_, i) => agg(i + 1, i + 1, i + 1, 6 * MIN + i, '10', '1'));
    const a = new AveragePrices({ symbols: [sym(5)], source: source(all), now: () => 10 * MIN, log: quiet, maxPages: 2 });
    await a.warmUp();
    expect(a.avgPrice('BTC_USDT', 5)).toBeUndefined();
  });

  it('after a reconnect fetches the trades the outage hid, by trade id, without counting any twice', async () => {
    const singles: PublicTrade[] = [
      { id: '5', time: 9 * MIN, price: D('100'), qty: D('1'), isBuyerMaker: false, isBestMatch: true },
      { id: '6', time: 9.1 * MIN, price: D('700'), qty: D('1'), isBuyerMaker: false, isBestMatch: true },
      { id: '7', time: 9.2 * MIN, price: D('300'), qty: D('2'), isBuyerMaker: false, isBestMatch: true },
    ];
    const calls: object[] = [];
    const a = new AveragePrices({ symbols: [sym(5)], source: source([agg(1, 1, 5, 9 * MIN, '100', '1')], calls, false, singles), now: () => 10 * MIN, log: quiet });
    await a.warmUp();
    // Trade 7 arrives on the new connection while the backfill is in flight.
    const filling = a.backfill(['BTC_USDT']);
    a.onTrade(trade(7, 9.2 * MIN, '300', '2'));
    await filling;
    expect(calls.at(-1)).toEqual({ symbol: 'BTC_USDT', symbolType: 1, fromId: '6', limit: 1000 });
    // (100 + 700 + 600) / 4
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('350');
  });

  it('leaves the average unknown for a window after a backfill that failed', async () => {
    let now = 10 * MIN;
    let fail = false;
    const ok = source([agg(1, 1, 1, 9 * MIN, '100', '1')]);
    const a = new AveragePrices({ symbols: [sym(5)], source: { aggTrades: (p) => ok.aggTrades(p), trades: (p) => (fail ? Promise.reject(new Error('HTTP 503')) : ok.trades(p)) }, now: () => now, log: quiet });
    await a.warmUp();
    fail = true;
    await a.backfill(['BTC_USDT']);
    expect(a.avgPrice('BTC_USDT', 5)).toBeUndefined();
    now = 15 * MIN;
    expect(a.avgPrice('BTC_USDT', 5)?.toFixed()).toBe('100');
  });
});
