import { existsSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../backtest/Backtest.js';
import { parseBacktestConfig } from '../../backtest/config.js';
import { Decimal } from '../../core/decimal.js';
import { flatDepthLevels, scaledDepthSides } from '../depth-diff.js';
import { readLines } from '../line-reader.js';
import { type ReadStats, type RecordedItem, readRecording } from '../reader.js';
import { rawTrade, scaledTradeOf } from '../trade.js';
import { exactScaled, scaledText } from './format.js';
import { recordCommand } from '../../cli/record.js';
import { BinaryRecordingError, isBinaryRecording, readBinaryHeader } from './reader.js';
import { writeBinaryRecording } from './writer.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const SAMPLE = path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-binrec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const symbolOf = (w: string): string => (w === 'BTCUSDT' ? 'BTC_USDT' : w);

async function collect(files: string | string[], stats?: ReadStats, malformed?: string[]): Promise<RecordedItem[]> {
  const out: RecordedItem[] = [];
  for await (const it of readRecording(files, { symbolOf, snapshotSymbol: 'BTCUSDT', stats, onMalformed: (e) => malformed?.push(e.message) })) out.push(it);
  return out;
}

async function convert(src: string, out: string): Promise<void> {
  await writeBinaryRecording(out, { source: 'test', licence: 'CC0' }, readLines(src));
}

/** Items as JSON (getters included: Decimal levels, trade ids), plus each event's type of object and keys. */
function shape(items: readonly RecordedItem[]): string[] {
  return items.map((it) => `${JSON.stringify(it)} ${it.kind === 'market' ? Object.keys(it.event).join(',') : ''}`);
}

describe('binary recordings', () => {
  it('scaled text spells wire decimals back exactly, and refuses what would not come back', () => {
    expect(exactScaled('61837.63000000')).toEqual([6183763000000, 8]);
    expect(scaledText(6183763000000, 8)).toBe('61837.63000000');
    expect(exactScaled('0.00123000')).toEqual([123000, 8]);
    expect(scaledText(123000, 8)).toBe('0.00123000');
    expect(exactScaled('5')).toEqual([5, 0]);
    expect(exactScaled('.5')).toBeUndefined();
    expect(exactScaled('5.')).toBeUndefined();
    expect(exactScaled('05')).toBeUndefined();
    expect(exactScaled('1234567890123456')).toBeUndefined();
  });

  it('a record longer than the read buffer (1 MiB): the text reader\'s items', async () => {
    // A diff of 40,000 levels each side is a record of 1.3 MB.
    const levels = (from: number) => JSON.stringify(Array.from({ length: 40_000 }, (_, i) => [`${from + i}.01000000`, `${(i % 7) + 1}.50000000`]));
    const lines = [
      `1723161253937085768 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":1723161255208,"s":"BTCUSDT","U":10,"u":12,"b":${levels(1000)},"a":${levels(100_000)}}}`,
      `1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"trade","E":1723161255343,"s":"BTCUSDT","t":3735683259,"p":"61837.63000000","q":"0.02000000","T":1723161255342,"m":true,"M":true}}`,
    ];
    const text = path.join(dir, 'long.rec');
    writeFileSync(text, `${lines.join('\n')}\n`);
    const bin = path.join(dir, 'long.krb');
    await convert(text, bin);
    const items = await collect(bin);
    expect(items.length).toBe(2);
    expect(shape(items)).toEqual(shape(await collect(text)));
  });

  it('round trip of the bundled sample: the same items as the text reader (types, ids, times, exact levels)', async () => {
    const bin = path.join(dir, 'sample.krb');
    const st = await writeBinaryRecording(bin, { source: 'test', licence: 'CC0', symbols: ['BTCUSDT'] }, readLines(SAMPLE));
    expect(st.numeric).toBeGreaterThan(3700);
    expect(await isBinaryRecording(bin)).toBe(true);
    expect(await isBinaryRecording(SAMPLE)).toBe(false);
    expect(await readBinaryHeader(bin)).toMatchObject({ format: 'kancil-binary-recording', version: 1, source: 'test', licence: 'CC0', symbols: ['BTCUSDT'] });
    const ts: ReadStats = { lines: 0, items: 0, malformed: 0 };
    const bs: ReadStats = { lines: 0, items: 0, malformed: 0 };
    const text = await collect(SAMPLE, ts);
    const binary = await collect(bin, bs);
    // Bytes read differ (the files do); the counts do not.
    expect({ ...bs, bytes: 0 }).toEqual({ ...ts, bytes: 0 });
    expect(binary.length).toBe(text.length);
    expect(shape(binary)).toEqual(shape(text));
    let diffs = 0;
    for (let i = 0; i < text.length; i++) {
      const a = text[i] as RecordedItem;
      const b = binary[i] as RecordedItem;
      expect(b.recvTime).toBe(a.recvTime);
      if (a.kind !== 'market' || b.kind !== 'market') continue;
      const ea = a.event;
      const eb = b.event;
      if (ea.type === 'depthDiff' && eb.type === 'depthDiff') {
        diffs++;
        // Both readers give scaled sides, at the same scales (the text reader follows the writer's
        // policy, record/line-scan), with the same values.
        const ts = scaledDepthSides(ea);
        const sides = scaledDepthSides(eb);
        expect(ts).toBeDefined();
        expect(sides).toBeDefined();
        if (ts === undefined || sides === undefined) continue;
        for (const side of ['bids', 'asks'] as const) {
          const [x, y] = [ts[side], sides[side]];
          expect([y.n, y.priceScale, y.qtyScale]).toEqual([x.n, x.priceScale, x.qtyScale]);
          expect(Array.from(y.prices.subarray(0, y.n))).toEqual(Array.from(x.prices.subarray(0, x.n)));
          expect(Array.from(y.qtys.subarray(0, y.n))).toEqual(Array.from(x.qtys.subarray(0, x.n)));
        }
        // Where the reader left them (one pool): the same levels, read by the replay without the sides' objects.
        const flat = flatDepthLevels(eb);
        expect(flat).toBeDefined();
        if (flat !== undefined) {
          const at = (from: number, n: number): number[] => Array.from(flat.buf.subarray(from, from + n));
          expect([flat.nBids, flat.nAsks, flat.priceScale, flat.qtyScale]).toEqual([sides.bids.n, sides.asks.n, sides.bids.priceScale, sides.bids.qtyScale]);
          expect(at(flat.bidPrices, flat.nBids)).toEqual(Array.from(sides.bids.prices.subarray(0, sides.bids.n)));
          expect(at(flat.bidQtys, flat.nBids)).toEqual(Array.from(sides.bids.qtys.subarray(0, sides.bids.n)));
          expect(at(flat.askPrices, flat.nAsks)).toEqual(Array.from(sides.asks.prices.subarray(0, sides.asks.n)));
          expect(at(flat.askQtys, flat.nAsks)).toEqual(Array.from(sides.asks.qtys.subarray(0, sides.asks.n)));
        }
        expect(eb.bids.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(ea.bids.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`));
        expect(eb.asks).toEqual(ea.asks);
      }
      if (ea.type === 'trade' && eb.type === 'trade') {
        expect(rawTrade(eb)).toEqual(rawTrade(ea));
        expect(eb.tradeId).toBe(ea.tradeId);
        // Both carry the values as scaled integers at their smallest exact scales, equal to the strings.
        const st = scaledTradeOf(eb);
        const tt = scaledTradeOf(ea);
        const raw = rawTrade(ea);
        expect(st).toBeDefined();
        if (st !== undefined && tt !== undefined && raw !== undefined) {
          expect([st.scaledPrice, st.priceScale, st.scaledQty, st.qtyScale, st.isBuyerMaker]).toEqual([tt.scaledPrice, tt.priceScale, tt.scaledQty, tt.qtyScale, tt.isBuyerMaker]);
          expect(new Decimal(scaledText(st.scaledPrice, st.priceScale)).eq(raw.price) && new Decimal(scaledText(st.scaledQty, st.qtyScale)).eq(raw.qty)).toBe(true);
          expect(st.scaledPrice % 10 !== 0 || st.priceScale === 0).toBe(true);
          expect(st.scaledQty % 10 !== 0 || st.qtyScale === 0).toBe(true);
          expect(st.isBuyerMaker).toBe(ea.isBuyerMaker);
        }
      }
      expect(eb).toEqual(ea);
    }
    expect(diffs).toBeGreaterThan(500);
  });

  it("a symbol's diffs keep the largest scales reached before (the replay's book applies them without a rescaling copy), or their own when a value would not fit", async () => {
    const src = path.join(dir, 'scales.txt');
    const diff = (u: number, b: string): string => `170000000000${u}000001 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":${u},"s":"BTCUSDT","U":${u},"u":${u},"b":${b},"a":[]}}`;
    writeFileSync(src, [diff(1, '[["1.5","2"]]'), diff(2, '[["1.25","0.001"]]'), diff(3, '[["2.0","3.00"]]'), diff(4, '[["99999999999999","1"]]'), diff(5, '[["3","4"]]'), ''].join('\n'));
    const bin = path.join(dir, 'scales.krb');
    await convert(src, bin);
    const scales = (await collect(bin)).map((it) => {
      const sides = it.kind === 'market' && it.event.type === 'depthDiff' ? scaledDepthSides(it.event) : undefined;
      return sides && `${sides.bids.prices[0]}/${sides.bids.priceScale} ${sides.bids.qtys[0]}/${sides.bids.qtyScale}`;
    });
    expect(scales).toEqual(['15/1 2/0', '125/2 1/3', '200/2 3000/3', '99999999999999/0 1/0', '300/2 4000/3']);
    // The sides are exact-length views into one pool in reading order (one forward stream for a replay).
    const sides = (await collect(bin)).flatMap((it) => (it.kind === 'market' && it.event.type === 'depthDiff' ? [scaledDepthSides(it.event)] : []));
    for (const sd of sides) expect([sd?.bids.prices.length, sd?.bids.qtys.length, sd?.asks.prices.length]).toEqual([1, 1, 0]);
    // (Unless a pool filled up between them: 10 of its 32,768 entries.)
    if (sides[0]?.bids.prices.buffer === sides[1]?.bids.prices.buffer) expect((sides[1]?.bids.prices.byteOffset ?? 0) - (sides[0]?.bids.prices.byteOffset ?? 0)).toBe(16);
    expect(sides[0]?.bids.qtys.buffer).toBe(sides[0]?.bids.prices.buffer);
    const text = await collect(src);
    expect(shape(await collect(bin))).toEqual(shape(text));
  });

  it('odd lines: text records read back through the text reader (snapshots, klines, ids past 2^53, malformed, ms times)', async () => {
    const src = path.join(dir, 'odd.txt');
    writeFileSync(
      src,
      [
        '# {"format":"kancil-recording","version":1}',
        '1700000000000 {"stream":"btcusdt@trade","data":{"e":"trade","E":1,"s":"BTCUSDT","t":5,"p":"1.10","q":"2","T":1,"m":true,"M":true}}',
        '1700000000001 {"lastUpdateId":9,"bids":[["1.00","3"]],"asks":[["1.20","4"]]}',
        '1700000000002000001 {"stream":"btcusdt@trade","data":{"e":"trade","E":2,"s":"BTCUSDT","t":12345678901234567890,"p":"1.10","q":"2","T":2,"m":false,"M":true}}',
        '1700000000003000001 {"stream":"btcusdt@trade","data":{"e":"trade","E":3,"s":"BTCUSDT","t":7,"p":".5","q":"2.","T":3,"m":false,"M":true}}',
        'not a line',
        '1700000000004000001 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":4,"s":"BTCUSDT","U":10,"u":11,"b":[["1.000","0.1"],["0.9","12345678.123456789"]],"a":[]}}',
        '1700000000004000002 {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":4,"s":"BTCUSDT","U":12,"u":12,"b":[["99999999999.99999999","1"]],"a":[]}}',
        '1700000000005000001 {"stream":"btcusdt@bookTicker","data":{"u":11,"s":"BTCUSDT","b":"1.000","B":"0.1","a":"1.20","A":"4"}}',
        '1700000000006000001 {"stream":"btcusdt@kline_1m","data":{"e":"kline","E":6,"s":"BTCUSDT","k":{"t":0,"T":59999,"s":"BTCUSDT","i":"1m","f":1,"L":2,"o":"1","c":"1","h":"1","l":"1","v":"1","n":1,"x":true,"q":"1","V":"0","Q":"0","B":"0"}}}',
        '1700000000007000001 {"stream":"btcusdt@trade","data":{"e":"trade","E":7,"s":"BTCUSDT","t":8,"p":"1.10","q":"2","T":7,"m":false,"b":100,"a":200}}',
        '',
      ].join('\n'),
    );
    const bin = path.join(dir, 'odd.krb');
    await convert(src, bin);
    const tm: string[] = [];
    const bm: string[] = [];
    const text = await collect(src, undefined, tm);
    const binary = await collect(bin, undefined, bm);
    expect(text.length).toBeGreaterThan(8);
    expect(shape(binary)).toEqual(shape(text));
    expect(bm).toEqual(tm);
    expect(tm.length).toBe(1);
    expect(binary.map((it) => it.recvTime)).toEqual(text.map((it) => it.recvTime));
  });

  it('a bad or truncated file is an error naming the file and the offset', async () => {
    const bin = path.join(dir, 'sample2.krb');
    await convert(SAMPLE, bin);
    const full = readFileSync(bin);
    const cut = path.join(dir, 'cut.krb');
    writeFileSync(cut, full.subarray(0, full.length - 7));
    await expect(collect(cut)).rejects.toThrow(new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: offset \\d+: truncated record`));
    await expect(collect(cut)).rejects.toBeInstanceOf(BinaryRecordingError);
    const head = path.join(dir, 'head.krb');
    writeFileSync(head, full.subarray(0, 20));
    await expect(collect(head)).rejects.toThrow(/head\.krb: offset \d+: truncated header/);
    // The first record after the header gets an unknown kind.
    const hlen = full.readUInt32LE(9);
    const bad = Buffer.from(full);
    bad[13 + hlen] = 99;
    const badFile = path.join(dir, 'bad.krb');
    writeFileSync(badFile, bad);
    await expect(collect(badFile)).rejects.toThrow(`${badFile}: offset ${13 + hlen}: unknown record kind 99`);
    const version = Buffer.from(full);
    version[8] = 7;
    writeFileSync(badFile, version);
    await expect(collect(badFile)).rejects.toThrow(`${badFile}: offset 8: unsupported version 7`);
  });

  it("a trade's integer past 2^53 or scale past 22 is an error naming the record", async () => {
    const text = path.join(dir, 'one-trade.rec');
    writeFileSync(text, '1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"trade","E":1723161255343,"s":"BTCUSDT","t":3735683259,"p":"61837.63000000","q":"0.02000000","T":1723161255342,"m":true,"M":true}}\n');
    const bin = path.join(dir, 'one-trade.krb');
    await convert(text, bin);
    const full = readFileSync(bin);
    // The records after the header (kind, body length, body): the trade is the one of kind 4.
    let at = 13 + full.readUInt32LE(9);
    while (full[at] !== 4) at += 5 + full.readUInt32LE(at + 1);
    // Its fields after the kind and length: receive time (13 bytes), two string ids (8), then E, t, T, flags, b, a, price scale, price, qty scale, qty.
    const fields = at + 5 + 21;
    const cases: [number, number, string][] = [
      [fields + 22, 0x20, 'integer beyond 2^53'], // T's high word (its third byte)
      [fields + 41, 23, 'scale 23 beyond 22'], // price scale
      [fields + 48, 0x20, 'integer beyond 2^53'], // price's high word (its third byte)
      [fields + 50, 23, 'scale 23 beyond 22'], // qty scale
      [fields + 57, 0x20, 'integer beyond 2^53'], // qty's high word (its third byte)
    ];
    const bad = path.join(dir, 'bad-trade.krb');
    for (const [byte, value, problem] of cases) {
      const b = Buffer.from(full);
      b[byte] = value;
      writeFileSync(bad, b);
      await expect(collect(bad)).rejects.toThrow(`${bad}: offset ${at}: record kind 4: ${problem}`);
    }
    expect((await collect(bin)).length).toBe(1);
  });

  it('a backtest over the binary form gives byte-identical result JSON to the text form', async () => {
    const bin = path.join(dir, 'bt.krb');
    await convert(SAMPLE, bin);
    const results: string[] = [];
    for (const files of [[SAMPLE], [bin]]) {
      for (const every of [20, 1e9]) {
        const cfg = parseBacktestConfig(
          {
            mode: 'backtest',
            name: 'binrec',
            symbols: {
              BTC_USDT: {
                filters: [
                  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
                  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.000001' },
                  { filterType: 'NOTIONAL', minNotional: '5', maxNotional: '9000000', applyToMarket: true, avgPriceMins: 0 },
                ],
              },
            },
            strategies: [{ name: 'probe', plugin: 'periodic-orders', symbols: ['BTC_USDT'], budget: { USDT: '1000000', BTC: '10' }, params: { every, quantity: '0.001', offsetTicks: 0, maxOpen: 10 } }],
            backtest: { recordings: [{ symbol: 'BTC_USDT', files }], latency: { entryMs: 5, cancelMs: 5, ackMs: 2 }, fees: { makerBps: 1, takerBps: 7.5 }, balances: { USDT: '1000000', BTC: '10' }, equityIntervalMs: 1000 },
          },
          path.join(root, 'config', 'binrec-test.yaml'),
        );
        const r = await runBacktest(cfg, { writeOutput: false });
        // The provenance names the input files, which differ by design: the rest must not.
        results.push(JSON.stringify({ ...r, provenance: undefined }));
      }
    }
    expect(JSON.parse(results[0] as string)).toMatchObject({ strategies: { probe: { orders: expect.any(Number) as number } } });
    expect((JSON.parse(results[0] as string) as { strategies: { probe: { orders: number } } }).strategies.probe.orders).toBeGreaterThan(0);
    expect(results[2]).toBe(results[0]);
    expect(results[3]).toBe(results[1]);
  });

  it('kancil record import --to binary converts a text recording, every line of it; bad arguments exit 2', async () => {
    const out = path.join(dir, 'cli.krb');
    const write = process.stdout.write.bind(process.stdout);
    const errWrite = process.stderr.write.bind(process.stderr);
    const printed: string[] = [];
    process.stdout.write = ((s: string) => printed.push(s) > 0) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => printed.push(s) > 0) as typeof process.stderr.write;
    try {
      expect(await recordCommand(['import', '--from', 'recording', '--to', 'binary', '--out', out, '--source', 'test', '--licence', 'CC0', SAMPLE])).toBe(0);
      expect(await recordCommand(['import', '--from', 'recording', '--to', 'parquet', '--out', out, '--source', 'test', '--licence', 'CC0', SAMPLE])).toBe(2);
      // An input that is missing or a folder: named with the usage, not a stack trace from the reader.
      const other = path.join(dir, 'never.krb');
      expect(await recordCommand(['import', '--from', 'recording', '--out', other, '--source', 'test', '--licence', 'CC0', SAMPLE, path.join(dir, 'absent.rec.gz')])).toBe(2);
      expect(await recordCommand(['import', '--from', 'ns', '--to', 'binary', '--out', other, '--source', 'test', '--licence', 'CC0', dir])).toBe(2);
      expect(existsSync(other)).toBe(false);
    } finally {
      process.stdout.write = write;
      process.stderr.write = errWrite;
    }
    expect(printed.join('')).toContain('unknown --to parquet');
    expect(printed.join('')).toContain(`input ${path.join(dir, 'absent.rec.gz')}: no such file\n`);
    expect(printed.join('')).toContain(`input ${dir}: is a folder, not a file\n`);
    expect(await isBinaryRecording(out)).toBe(true);
    expect(await readBinaryHeader(out)).toMatchObject({ source: 'test', licence: 'CC0', importedFrom: [SAMPLE] });
    const bs: ReadStats = { lines: 0, items: 0, malformed: 0 };
    const ts: ReadStats = { lines: 0, items: 0, malformed: 0 };
    expect(shape(await collect(out, bs))).toEqual(shape(await collect(SAMPLE, ts)));
    expect(bs.lines).toBe(ts.lines);
    // Each reader counts its file's bytes, all of them by the end.
    expect([bs.bytes, ts.bytes]).toEqual([statSync(out).size, statSync(SAMPLE).size]);
  });
});
