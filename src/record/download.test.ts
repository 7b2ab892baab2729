import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { RateLimitedError } from '../core/errors.js';
import type { Kline } from '../core/types.js';
import { download, type MarketHistory } from './download.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-dl-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kline = (openTime: number): Kline => {
  const d = new Decimal(1);
  return { openTime, open: d, high: d, low: d, close: d, volume: d, closeTime: openTime + 59_999, quoteVolume: d, trades: 1, takerBuyBaseVolume: d, takerBuyQuoteVolume: d };
};

describe('download', () => {
  it('waits out a rate limit (429 or 418 Retry-After) and sends the page again, losing nothing', async () => {
    const slept: number[] = [];
    let calls = 0;
    const client: MarketHistory = {
      klines: async (p) => {
        calls++;
        if (calls === 2) throw new RateLimitedError('klines', 1500, undefined, 429);
        if (calls === 3) throw new RateLimitedError('klines', 30_000, Date.now() + 30_000, 418);
        const start = p.startTime ?? 0;
        return Array.from({ length: 1000 }, (_, i) => kline(start + i * 60_000)).filter((k) => k.openTime <= (p.endTime ?? Infinity));
      },
      aggTrades: async () => [],
    };
    const out = path.join(dir, 'k.csv');
    const rows = await download(client, { kind: 'klines', symbol: 'BTC_USDT', symbolType: 1, from: 0, to: 1499 * 60_000, interval: '1m', out }, { sleep: async (ms) => void slept.push(ms) });
    expect(rows).toBe(1500);
    expect(slept).toEqual([1500, 30_000]);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => Number(l.split(',')[0]))).toEqual(Array.from({ length: 1500 }, (_, i) => i * 60_000));
  });

  it('writes only closed candles: the one still forming is fetched again next time', async () => {
    const client: MarketHistory = { klines: async () => [kline(0), kline(60_000)], aggTrades: async () => [] };
    const out = path.join(dir, 'open.csv');
    expect(await download(client, { kind: 'klines', symbol: 'BTC_USDT', symbolType: 1, from: 0, to: 120_000, interval: '1m', out }, { now: () => 100_000 })).toBe(1);
  });
});
