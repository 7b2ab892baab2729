/** The parsers against real recorded exchange answers (ccxt fixture excerpt in ../shared/data). */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { unwrapEnvelope } from '../transport/envelope.js';
import { parseAggTrades, parseKlines, parseOrderBook, parsePublicTrades } from './marketData.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const fixture = resolve(repoRoot, '../shared/data/tokocrypto_idr_ccxt_static_excerpt.json');

describe.skipIf(!existsSync(fixture))('parsers on real answers (needs ../shared/data, present only on the build machine)', () => {
  const data = JSON.parse(existsSync(fixture) ? readFileSync(fixture, 'utf8') : '{}') as Record<string, unknown>;
  const unwrap = (v: unknown): unknown => unwrapEnvelope('open-optional', 'test', 200, v).data;

  it('type 1 market host depth (no envelope) and /open/v1 depth (envelope)', () => {
    const a = parseOrderBook(unwrap(data.fetchOrderBook_BTC_IDR_limit5));
    expect(a.lastUpdateId).toBe(246126979);
    expect(a.bids[0]?.price.toFixed()).toBe('1421496253');
    expect(a.asks[4]?.qty.toFixed()).toBe('0.0002');
    const b = parseOrderBook(unwrap(data.fetchOrderBook_ALCH_IDR_limit5_openv1));
    expect(b.lastUpdateId).toBe(3302168707);
    expect(b.bids).toHaveLength(5);
  });

  it('trades (bare array), aggTrades (data.list), klines (data array)', () => {
    const [t] = parsePublicTrades(unwrap(data.fetchTrades_BTC_IDR_limit1));
    expect(t).toMatchObject({ id: '899732', time: 1787316719435, isBuyerMaker: true, isBestMatch: true });
    expect(t?.qty.toFixed()).toBe('0.00119');
    const [g] = parseAggTrades(unwrap(data.fetchTrades_ALCH_IDR_limit1_openv1_aggTrades));
    expect(g).toMatchObject({ aggId: '14434', firstTradeId: '15579', lastTradeId: '15579', isBuyerMaker: false });
    const k = parseKlines(unwrap(data.fetchOHLCV_ALCH_IDR_1h_limit2_openv1), '1h');
    expect(k.map((x) => x.openTime)).toEqual([1787817600000, 1787821200000]);
    expect(k[0]?.quoteVolume.toFixed()).toBe('632572.93');
  });
});
