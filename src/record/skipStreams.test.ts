import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MarketEvent } from '../core/marketEvents.js';
import { readLines } from './line-reader.js';
import { type ReadStats, type RecordedItem, readRecording } from './reader.js';
import { lineStream, skippableTypeOf, streamSkipper } from './skipStreams.js';
import { writeBinaryRecording } from './binary/writer.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-skip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const depth = (E: number, U: number, u: number): string =>
  `{"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":${E},"s":"BTCUSDT","U":${U},"u":${u},"b":[["61737.63000000","0.10000000"]],"a":[["61837.64000000","1.54698000"]]}}`;
const trade = (E: number, t: number): string => `{"stream":"btcusdt@trade","data":{"e":"trade","E":${E},"s":"BTCUSDT","t":${t},"p":"61837.63000000","q":"0.02000000","T":${E},"m":true,"M":true}}`;
const ticker = (u: number): string => `{"stream":"btcusdt@bookTicker","data":{"u":${u},"s":"BTCUSDT","b":"61837.63000000","B":"3.78826000","a":"61837.64000000","A":"1.54698000"}}`;
const mini = (E: number): string => `{"stream":"btcusdt@miniTicker","data":{"e":"24hrMiniTicker","E":${E},"s":"BTCUSDT","c":"61837.63","o":"61000.00","h":"62000.00","l":"60000.00","v":"100.0","q":"6000000.0"}}`;

/** A recording with every kind of line the skip decides on, interleaved. */
function lines(): string[] {
  const out = ['# {"format":"kancil-recording","version":1,"source":"test","licence":"CC0"}'];
  const snap = '{"lastUpdateId":100,"bids":[["61700.00000000","1.00000000"]],"asks":[["61900.00000000","1.00000000"]]}';
  out.push(`1723161253000000000 ${snap}`);
  for (let i = 0; i < 40; i++) {
    const ns = 1723161254000000000 + i * 1_000_000_000;
    const E = 1723161254000 + i * 1000;
    out.push(`${ns} ${ticker(100 + 2 * i)}`, `${ns} ${depth(E, 101 + 2 * i, 102 + 2 * i)}`, `${ns} ${trade(E, 5000 + i)}`, `${ns} ${ticker(102 + 2 * i)}`, `${ns} ${mini(E)}`);
  }
  return out;
}

async function collect(file: string, skip?: ReadonlySet<MarketEvent['type']>): Promise<{ items: RecordedItem[]; stats: ReadStats }> {
  const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const items: RecordedItem[] = [];
  for await (const it of readRecording(file, { snapshotSymbol: 'BTCUSDT', stats, skip, onMalformed: (e) => expect.fail(e.message) })) items.push(it);
  return { items, stats };
}

const typeOf = (it: RecordedItem): string => (it.kind === 'market' ? it.event.type : 'snapshot');

describe('skipping streams unread', () => {
  it('reads the stream name of a line without parsing it, and the skippable type from the name', () => {
    expect(lineStream(`1723161254087891268 ${ticker(1)}`)).toBe('btcusdt@bookTicker');
    expect(lineStream('1723161253 {"lastUpdateId":1,"bids":[],"asks":[]}')).toBeUndefined();
    expect(lineStream('# {"format":"kancil-recording"}')).toBeUndefined();
    expect(lineStream('1723161254 { "stream":"btcusdt@trade"}')).toBeUndefined();
    expect(skippableTypeOf('btcusdt@bookTicker')).toBe('bookTicker');
    expect(skippableTypeOf('btcidr@miniTicker')).toBe('miniTicker');
    expect(skippableTypeOf('!miniTicker@arr')).toBe('miniTicker');
    expect(skippableTypeOf('btcidr@depth20@100ms')).toBe('partialDepth');
    expect(skippableTypeOf('btcidr@depth5')).toBe('partialDepth');
    expect(skippableTypeOf('btcidr@depth@100ms')).toBeUndefined();
    expect(skippableTypeOf('btcidr@depth')).toBeUndefined();
    expect(skippableTypeOf('btcidr@trade')).toBeUndefined();
    expect(skippableTypeOf('btcidr@aggTrade')).toBeUndefined();
    expect(skippableTypeOf('btcidr@kline_1m')).toBeUndefined();
    const skip = streamSkipper(new Set(['bookTicker']));
    expect([skip('btcusdt@bookTicker'), skip('btcusdt@bookTicker'), skip('btcusdt@miniTicker'), skip('btcusdt@trade')]).toEqual([true, true, false, false]);
  });

  it('text and binary: the same items as a full read without the skipped types, every line counted', async () => {
    const text = path.join(dir, 'r.rec');
    writeFileSync(text, `${lines().join('\n')}\n`);
    const bin = path.join(dir, 'r.krb');
    await writeBinaryRecording(bin, { source: 'test', licence: 'CC0' }, readLines(text));
    for (const file of [text, bin]) {
      const all = await collect(file);
      expect(all.items.map(typeOf).filter((t) => t === 'bookTicker')).toHaveLength(80);
      for (const skip of [new Set(['bookTicker'] as const), new Set(['bookTicker', 'miniTicker'] as const)]) {
        const some = await collect(file, skip);
        const kept = all.items.filter((it) => !skip.has(typeOf(it) as 'bookTicker'));
        expect(JSON.stringify(some.items)).toBe(JSON.stringify(kept));
        expect(some.stats.lines).toBe(all.stats.lines);
        expect(some.stats.items).toBe(kept.length);
      }
      // Nothing to skip: the same read.
      expect(JSON.stringify((await collect(file, new Set())).items)).toBe(JSON.stringify(all.items));
    }
  });
});
