import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MarketEvent } from '../core/marketEvents.js';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { flatDepthDiff, flatDepthLevels, isPlainDecimal, lazyDepthDiff, plainLevels, rawDepthLevels, scaledDepthSides } from './depth-diff.js';
import { readRecording, type ReadStats } from './reader.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-depth-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('isPlainDecimal / plainLevels', () => {
  it('accepts exactly digits with at most one point', () => {
    for (const s of ['0', '61837.63000000', '.5', '5.', '007']) expect(isPlainDecimal(s)).toBe(true);
    for (const s of ['', '.', '-1', '1e-8', '1.2.3', ' 1', '+1', 'NaN']) expect(isPlainDecimal(s)).toBe(false);
  });

  it('rejects anything the eager parser would treat differently', () => {
    expect(plainLevels([['1.5', '2']])).toEqual([['1.5', '2']]);
    expect(plainLevels([['1.5', 2]])).toBeUndefined();
    expect(plainLevels([['1.5']])).toBeUndefined();
    expect(plainLevels([['1e3', '2']])).toBeUndefined();
    expect(plainLevels('x')).toBeUndefined();
  });
});

describe('lazyDepthDiff', () => {
  const bids = [['61837.63000000', '3.78826000'], ['61737.63', '0.00000000']] as const;
  const asks = [['61837.64000000', '1.54698000']] as const;

  it('reads, compares, spreads and serialises like the eagerly parsed event', () => {
    const eager = parseMarketPayload({ e: 'depthUpdate', E: 5, s: 'BTCUSDT', U: 10, u: 12, b: bids, a: asks }, { stream: 'btcusdt@depth@100ms', recvTime: 5 })[0] as MarketEvent;
    const lazy = lazyDepthDiff(5, 'BTCUSDT', 10, 12, bids, asks, new DecimalTextCache());
    expect(lazy).toEqual(eager);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
    expect({ ...lazy }).toEqual(eager);
    // Built once and shared by every reader of the event.
    expect(lazy.bids).toBe(lazy.bids);
    expect(rawDepthLevels(lazy)).toEqual({ bids, asks });
    expect(rawDepthLevels({ ...lazy })).toBeUndefined();
  });

  it('the reader yields the same events as the eager parser, and reports malformed diffs as before', async () => {
    const lines = [
      '1700000000000000001 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":5,"s":"BTCUSDT","U":10,"u":12,"b":[["1.50","2"]],"a":[["1.60","0.00"]]}}',
      // Exponent form: not plain, so the eager parser takes it, and refuses it as the live stream does.
      '1700000000000000002 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":6,"s":"BTCUSDT","U":13,"u":13,"b":[["1e0","2"]],"a":[]}}',
      // u below U: malformed on both paths.
      '1700000000000000003 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":7,"s":"BTCUSDT","U":15,"u":14,"b":[],"a":[]}}',
      // A level that is not a decimal at all: malformed.
      '1700000000000000004 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":8,"s":"BTCUSDT","U":16,"u":16,"b":[["x","1"]],"a":[]}}',
    ];
    const file = path.join(dir, 'diffs.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
    const items = [];
    for await (const it of readRecording(file, { stats, onMalformed: () => undefined, symbolOf: (w) => `${w}!` })) items.push(it);
    expect(stats.malformed).toBe(3);
    expect(items.map((i) => (i.kind === 'market' ? i.event : undefined))).toEqual([
      { type: 'depthDiff', E: 5, symbol: 'BTCUSDT!', firstUpdateId: 10, finalUpdateId: 12, bids: [{ price: expect.anything(), qty: expect.anything() }], asks: [{ price: expect.anything(), qty: expect.anything() }] },
    ]);
    const [first] = items.map((i) => (i.kind === 'market' && i.event.type === 'depthDiff' ? i.event : undefined));
    expect(first?.bids[0]?.price.toFixed()).toBe('1.5');
    // Read from its bytes (record/line-scan): scaled sides at the diff's significant digits.
    const sides = scaledDepthSides(first!);
    expect([sides?.bids.n, sides?.bids.prices[0], sides?.bids.qtys[0], sides?.bids.priceScale, sides?.asks.qtys[0]]).toEqual([1, 15, 2, 1, 0]);
  });
});

describe('flatDepthDiff', () => {
  it('gives the sides it was given in its buffer: flat fields, views made on demand, Decimal levels', () => {
    // Two bids and one ask at price scale 2 and quantity scale 3, after two unrelated entries.
    const buf = new Float64Array([9, 9, 6183763, 6183762, 1500, 0, 6183764, 2250]);
    const e = flatDepthDiff(1000, 'BTC_USDT', 5, 7, buf, 2, 2, 1, 2, 3, new DecimalTextCache());
    expect(flatDepthLevels(e)).toMatchObject({ buf, bidPrices: 2, bidQtys: 4, nBids: 2, askPrices: 6, askQtys: 7, nAsks: 1, priceScale: 2, qtyScale: 3 });
    const sides = scaledDepthSides(e);
    expect(sides && [...sides.bids.prices, ...sides.bids.qtys, ...sides.asks.prices, ...sides.asks.qtys]).toEqual([6183763, 6183762, 1500, 0, 6183764, 2250]);
    expect(scaledDepthSides(e)).toBe(sides);
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      type: 'depthDiff',
      E: 1000,
      symbol: 'BTC_USDT',
      firstUpdateId: 5,
      finalUpdateId: 7,
      bids: [
        { price: '61837.63', qty: '1.5' },
        { price: '61837.62', qty: '0' },
      ],
      asks: [{ price: '61837.64', qty: '2.25' }],
    });
  });
});
