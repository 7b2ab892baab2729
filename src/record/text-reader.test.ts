import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { scaledText } from './binary/format.js';
import { rawDepthLevels, scaledDepthSides } from './depth-diff.js';
import { type ReadStats, type RecordedItem, itemContext, toItems } from './items.js';
import { readRecordLineBatches, readRecordingBatches } from './reader.js';
import { streamSkipper } from './skipStreams.js';
import { rawTrade, scaledTradeOf } from './trade.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SAMPLE = path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-text-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const symbolOf = (w: string): string => (w === 'BTCUSDT' ? 'BTC_USDT' : w);
type Malformed = [string, number];

/** The reader under test. */
async function read(file: string, skip?: ReadonlySet<'bookTicker'>): Promise<{ items: RecordedItem[]; stats: ReadStats; malformed: Malformed[] }> {
  const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const malformed: Malformed[] = [];
  const items: RecordedItem[] = [];
  const opts = { symbolOf, snapshotSymbol: 'BTCUSDT', stats, skip, onMalformed: (e: Error, _f: string, n: number) => void malformed.push([e.message, n]) };
  for await (const batch of readRecordingBatches(file, opts)) items.push(...batch);
  return { items, stats, malformed };
}

/** The same file through JSON.parse of every line (record/format, items.ts): what the reader must equal. */
async function readAsJson(file: string, skip?: ReadonlySet<'bookTicker'>): Promise<{ items: RecordedItem[]; stats: ReadStats; malformed: Malformed[] }> {
  const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const malformed: Malformed[] = [];
  const ctx = itemContext(symbolOf, 'BTCUSDT');
  const items: RecordedItem[] = [];
  const onMalformed = (e: Error, _f: string, n: number): void => void malformed.push([e.message, n]);
  for await (const batch of readRecordLineBatches(file, { stats, onMalformed, skipStream: skip && streamSkipper(skip) })) {
    for (const rec of batch) {
      try {
        toItems(rec, ctx, items);
      } catch (err) {
        stats.malformed++;
        onMalformed(err as Error, file, rec.lineNo);
      }
    }
  }
  stats.items = items.length;
  return { items, stats, malformed };
}

/** Items as JSON (getters included: Decimal levels, trade ids) with each event's keys in order. */
function shape(items: readonly RecordedItem[]): string[] {
  return items.map((it) => `${JSON.stringify(it)} ${it.kind === 'market' ? Object.keys(it.event).join(',') : ''}`);
}

const dec = (v: number, scale: number): Decimal => new Decimal(scaledText(v, scale));

describe('text reader', () => {
  it('the bundled sample: the items of JSON.parse, diffs and trades read from their bytes as scaled integers equal to the strings', async () => {
    const got = await read(SAMPLE);
    const want = await readAsJson(SAMPLE);
    expect(shape(got.items)).toEqual(shape(want.items));
    expect({ ...got.stats, bytes: 0 }).toEqual({ ...want.stats, bytes: 0 });
    expect(got.stats.bytes).toBe(statSync(SAMPLE).size);
    let diffs = 0;
    let trades = 0;
    got.items.forEach((it, i) => {
      const ref = want.items[i] as RecordedItem;
      expect(it.recvTime).toBe(ref.recvTime);
      if (it.kind !== 'market' || ref.kind !== 'market') return;
      expect(it.stream).toBe(ref.stream);
      const [e, r] = [it.event, ref.event];
      if (e.type === 'depthDiff' && r.type === 'depthDiff') {
        const sides = scaledDepthSides(e);
        const raw = rawDepthLevels(r);
        if (sides === undefined || raw === undefined) throw new Error('diff not scanned');
        diffs++;
        for (const side of ['bids', 'asks'] as const) {
          const s = sides[side];
          expect(s.n).toBe(raw[side].length);
          raw[side].forEach((lv, j) => {
            expect(dec(s.prices[j] as number, s.priceScale).eq(lv[0])).toBe(true);
            expect(dec(s.qtys[j] as number, s.qtyScale).eq(lv[1])).toBe(true);
          });
        }
      }
      if (e.type === 'trade' && r.type === 'trade') {
        const st = scaledTradeOf(e);
        if (st === undefined) throw new Error('trade not scanned');
        trades++;
        expect(rawTrade(e)).toEqual(rawTrade(r));
        expect(dec(st.scaledPrice, st.priceScale).eq(r.price) && dec(st.scaledQty, st.qtyScale).eq(r.qty)).toBe(true);
      }
    });
    expect(diffs).toBeGreaterThan(500);
    expect(trades).toBeGreaterThan(1000);
  });

  it('lines in another layout or with values the bytes path does not hold read as JSON does, malformed ones reported at their line', async () => {
    const stream = '{"stream":"btcusdt@depth@100ms","data":';
    const diff = (d: string): string => `${stream}{"e":"depthUpdate","E":5,"s":"BTCUSDT","U":10,"u":12,${d}}}`;
    const trade = (rest: string): string => `{"stream":"btcusdt@trade","data":{"e":"trade","E":7,"s":"BTCUSDT","t":${rest}}}`;
    const lines = [
      '# {"format":"kancil-recording","version":1}',
      '',
      `1700000000001000000 ${diff('"b":[["1.50","2"]],"a":[["1.60","0.00"]]')}`,
      // Spaces, extra level elements, exponents, escapes, leading zeros, ids beyond 2^53.
      `1700000000002000000 ${diff('"b":[["1.5", "2"]],"a":[]')}`,
      `1700000000003000000 ${diff('"b":[["1.5","2","x"]],"a":[]')}`,
      `1700000000004000000 ${diff('"b":[["1e0","2"]],"a":[]')}`,
      `1700000000005000000 ${stream}{"e":"depthUpdate","E":05,"s":"BTCUSDT","U":10,"u":12,"b":[],"a":[]}}`,
      `1700000000006000000 ${stream}{"e":"depthUpdate","E":5,"s":"BTC\\u0055SDT","U":10,"u":12,"b":[],"a":[]}}`,
      `1700000000007000000 ${stream}{"e":"depthUpdate","E":5,"s":"BTCUSDT","U":12,"u":10,"b":[],"a":[]}}`,
      `1700000000008000000 ${diff('"b":[["123456789012345678","1"]],"a":[]')}`,
      `1700000000009000000 ${diff('"b":[["1.000000000000000000000001","1"]],"a":[]')}`,
      `1700000000010000000 ${trade('3,"p":"1.50","q":"0.2","T":6,"m":true,"M":true')}`,
      `1700000000011000000 ${trade('9007199254740993,"p":"1.5","q":"2","T":6,"m":false,"M":true')}`,
      `1700000000012000000 ${trade('4,"p":"01.5","q":"2","T":6,"m":false,"M":true')}`,
      `1700000000013000000 ${trade('5,"p":"1.5","q":"2","b":1,"a":2,"T":6,"m":false,"M":true')}`,
      `1700000000014000000 ${trade('6,"p":"1.5","q":"2","T":6,"m":1,"M":true')}`,
      `1700000000015000000 {"stream":"btc\\u0075sdt@trade","data":{"e":"trade","E":7,"s":"BTCUSDT","t":8,"p":"1","q":"2","T":6,"m":true,"M":true}}`,
      // Millisecond and very long receive times, a bare snapshot, a snapshot line, junk.
      `1700000000016 ${trade('16,"p":"1","q":"2","T":6,"m":true,"M":false')}`,
      `17000000000000000000017 ${trade('17,"p":"1","q":"2","T":6,"m":true,"M":false')}`,
      '1700000000018000000 {"lastUpdateId":5,"bids":[["1","2"]],"asks":[]}',
      '1700000000019000000 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":6,"bids":[["1","2"]],"asks":[]}}',
      '1700000000020000000 {"stream":"btcusdt@bookTicker","data":{"u":1,"s":"BTCUSDT","b":"1","B":"2","a":"3","A":"4"}}',
      '1700000000021000000 {"stream":"btcusdt@trade","data":{"e":"trade"',
      'x1 {"stream":"btcusdt@trade","data":{}}',
      `1700000000023000000 ${diff('"b":[],"a":[["2.000","3"]]')} `,
      // CRLF, and a last line without its newline.
      `1700000000024000000 ${diff('"b":[["1.5","2.25"]],"a":[]')}\r`,
      `1700000000025000000 ${trade('25,"p":"2","q":"1","T":6,"m":true,"M":true')}`,
    ];
    const plain = path.join(dir, 'odd.rec');
    writeFileSync(plain, lines.join('\n'));
    const gz = path.join(dir, 'odd.rec.gz');
    writeFileSync(gz, gzipSync(lines.join('\n')));
    for (const file of [plain, gz]) {
      const got = await read(file);
      const want = await readAsJson(file);
      expect(shape(got.items)).toEqual(shape(want.items));
      expect(got.items.map((i) => i.recvTime)).toEqual(want.items.map((i) => i.recvTime));
      // The reference reports a batch's JSON errors before its conversion errors: compared by line.
      expect(got.malformed).toEqual([...want.malformed].sort((a, b) => a[1] - b[1]));
      expect(got.malformed.length).toBeGreaterThanOrEqual(5);
      expect({ ...got.stats, bytes: 0 }).toEqual({ ...want.stats, bytes: 0 });
      expect(got.stats.bytes).toBe(statSync(file).size);
      // The first and the CRLF diff, and the plain trades, came from their bytes; the rest (the trailing space too) as JSON.
      const scanned = got.items.filter((i) => i.kind === 'market' && ((i.event.type === 'depthDiff' && scaledDepthSides(i.event)) || (i.event.type === 'trade' && scaledTradeOf(i.event))));
      expect(scanned.map((i) => i.recvTime)).toEqual([1700000000001, 1700000000010, 1700000000016, 17000000000000000, 1700000000024, 1700000000025]);
    }
  });

  it('a skipped stream is dropped on its name, counted but not parsed; lines split across chunks are whole', async () => {
    const ticker = '{"stream":"btcusdt@bookTicker","data":{"u":1,"s":"BTCUSDT","b":"1","B":"2","a":"3","A":"4"}}';
    const lines: string[] = [];
    // About 2 MB: lines fall across the 256 KiB reads everywhere.
    for (let i = 0; i < 4000; i++) {
      lines.push(`${1700000000000000000 + i} ${ticker}`);
      const levels = JSON.stringify(Array.from({ length: 1 + (i % 13) }, (_, j) => [`${100 + j}.${i % 100}`, `${j}.5`]));
      lines.push(`${1700000000000000000 + i} {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":${i},"s":"BTCUSDT","U":${2 * i},"u":${2 * i + 1},"b":${levels},"a":[]}}`);
      // A broken ticker: malformed where read, dropped unread when skipped.
      if (i % 1000 === 0) lines.push(`${1700000000000000000 + i} {"stream":"btcusdt@bookTicker","data":{`);
    }
    const file = path.join(dir, 'long.rec');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const skip = new Set(['bookTicker'] as const);
    const got = await read(file, skip);
    const want = await readAsJson(file, skip);
    expect(got.stats).toEqual({ lines: 8004, items: 4000, malformed: 0, bytes: statSync(file).size });
    expect(shape(got.items)).toEqual(shape(want.items));
    const all = await read(file);
    expect(all.stats.items).toBe(8000);
    expect(all.malformed.map((m) => m[1])).toEqual([3, 2004, 4005, 6006]);
  });
});
