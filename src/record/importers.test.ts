import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { ParseError } from '../core/errors.js';
import { convertCryptofeed, convertKlineCsv, convertNsLines, recordingLines, secondsToNs, writeRecording } from './importers.js';
import { type RecordedItem, readRecording } from './reader.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(file: string): Promise<RecordedItem[]> {
  const out: RecordedItem[] = [];
  for await (const it of readRecording(file, { onMalformed: (e) => { throw e; } })) out.push(it);
  return out;
}

const TRADE = (n: number): string => `170000000000000000${n} {"stream":"btcusdt@trade","data":{"e":"trade","E":${n},"s":"BTCUSDT","t":${n},"p":"1.10","q":"2","T":${n},"m":true,"M":true}}`;

describe('--from recording', () => {
  it('writes one line per event (each terminated) and reads back every event', async () => {
    const src = path.join(dir, 'rec.txt');
    writeFileSync(src, `# {"format":"kancil-recording","version":1}\n${[1, 2, 3].map(TRADE).join('\n')}`);
    const out = path.join(dir, 'rec.rec.gz');
    expect(await writeRecording(out, { source: 't', licence: 'MIT' }, recordingLines([src]))).toBe(3);
    expect((await collect(out)).map((i) => (i.kind === 'market' ? i.event.E : -1))).toEqual([1, 2, 3]);
  });

  it('a raw <ns> <json> file (bare snapshot line included) is written one line per event and reads back whole', async () => {
    const src = path.join(dir, 'raw.txt');
    writeFileSync(src, `${TRADE(1)}\n1700000000000000002 {"lastUpdateId":9,"bids":[["1.00","3"]],"asks":[["1.20","4"]]}\n${TRADE(3)}\n`);
    const out = path.join(dir, 'raw.rec.gz');
    expect(await writeRecording(out, { source: 't', licence: 'MIT' }, recordingLines([src]))).toBe(3);
    expect((await collect(out)).map((i) => i.kind)).toEqual(['market', 'snapshot', 'market']);
  });

  it('a line that is not <time> <json> is refused naming the file and the line; nothing is written', async () => {
    const src = path.join(dir, 'bad.txt');
    writeFileSync(src, `${TRADE(1)}\n${TRADE(2)}${TRADE(3)}\n`);
    const out = path.join(dir, 'bad.rec.gz');
    const err = await writeRecording(out, { source: 't', licence: 'MIT' }, recordingLines([src])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toContain(`${src}:2`);
    expect(existsSync(out)).toBe(false);
  });

  it('zero events is an error and leaves no file', async () => {
    const src = path.join(dir, 'empty.txt');
    writeFileSync(src, '# only a comment\n\n');
    const out = path.join(dir, 'empty.rec.gz');
    await expect(writeRecording(out, { source: 't', licence: 'MIT', importedFrom: [src] }, recordingLines([src]))).rejects.toThrow(/no data line to import/);
    expect(existsSync(out)).toBe(false);
  });

  it('lines handed over without their newline are still written one per line', async () => {
    async function* bare(): AsyncGenerator<string> {
      yield TRADE(1);
      yield TRADE(2);
    }
    const out = path.join(dir, 'bare.rec.gz');
    expect(await writeRecording(out, { source: 't', licence: 'MIT' }, bare())).toBe(2);
    expect(await collect(out)).toHaveLength(2);
  });
});

describe('importers', () => {
  it('seconds to ns exactly', () => {
    expect(secondsToNs('1617566591.326123')).toBe('1617566591326123000');
    expect(secondsToNs('1617566592.1065369')).toBe('1617566592106536900');
    expect(secondsToNs('12')).toBe('12000000000');
  });

  it('<ns> <json> lines: envelopes verbatim, bare snapshot wrapped with the symbol of the file', async () => {
    const src = path.join(dir, 'ns.txt');
    writeFileSync(
      src,
      [
        '1700000000000000001 {"stream":"btcusdt@trade","data":{"e":"trade","E":1,"s":"BTCUSDT","t":5,"p":"1.10","q":"2","T":1,"m":true,"M":true}}',
        '1700000000000000002 {"lastUpdateId":9,"bids":[["1.00","3"]],"asks":[["1.20","4"]]}',
      ].join('\n'),
    );
    const out = path.join(dir, 'ns.rec.gz');
    expect(await writeRecording(out, { source: 'test', licence: 'MIT' }, convertNsLines([src]))).toBe(2);
    const items = await collect(out);
    expect(items[0]).toMatchObject({ kind: 'market', stream: 'btcusdt@trade', event: { type: 'trade', tradeId: '5' } });
    expect(items[1]).toMatchObject({ kind: 'snapshot', symbol: 'BTCUSDT', snapshot: { lastUpdateId: 9 } });
    expect(items[0]?.recvTime).toBe(1_700_000_000_000); // sub-ms ns digits are below double precision here
  });

  it('cryptofeed: URL line skipped, stream lines timed in ns, REST lines become snapshots', async () => {
    const src = path.join(dir, 'cf.txt');
    writeFileSync(
      src,
      [
        'wss://stream.example/stream?streams=dotusdt@depth@100ms <-> 1617566590.378895',
        '1617566591.326123: {"stream":"dotusdt@depth@100ms","data":{"e":"depthUpdate","E":1617566591307,"s":"DOTUSDT","U":10,"u":12,"b":[["43.50830000","7.00000000"]],"a":[]}}',
        'https://www.example.com/api/v1/depth?symbol=DOTUSDT&limit=1000 -> 1617566592.1065369: {"lastUpdateId":11,"bids":[["43.5","1"]],"asks":[["43.6","1"]]}',
      ].join('\n'),
    );
    const out = path.join(dir, 'cf.rec.gz');
    expect(await writeRecording(out, { source: 'cryptofeed', licence: 'x' }, convertCryptofeed(src))).toBe(2);
    const items = await collect(out);
    expect(items[0]).toMatchObject({ kind: 'market', event: { type: 'depthDiff', firstUpdateId: 10 } });
    expect(items[0]?.recvTime).toBe(1617566591326.123);
    expect(items[1]).toMatchObject({ kind: 'snapshot', symbol: 'DOTUSDT', snapshot: { lastUpdateId: 11 } });
  });

  it('kline CSV: one closed kline per row with exact values; bad values refused', async () => {
    const src = path.join(dir, 'k.csv');
    writeFileSync(src, '1722470400000,64628.01000000,64670.01000000,64601.00000000,64634.01000000,36.77990000,1722470459999,2377477.74237530,3399,13.19798000,853026.66151230,0\n');
    const out = path.join(dir, 'k.rec.gz');
    expect(await writeRecording(out, { source: 'csv', licence: 'MIT' }, convertKlineCsv(src, 'BTCUSDT', '1m'))).toBe(1);
    const [item] = await collect(out);
    expect(item).toMatchObject({ kind: 'market', stream: 'btcusdt@kline_1m', event: { type: 'kline', interval: '1m', openTime: 1722470400000, closeTime: 1722470459999, trades: 3399, closed: true, E: 1722470460000 } });
    if (item?.kind === 'market' && item.event.type === 'kline') expect(item.event.takerBuyQuoteVolume.toFixed()).toBe('853026.6615123');
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(bad, '1,2",3,4,5,6,7,8,9,10,11,0\n');
    await expect(writeRecording(path.join(dir, 'bad.rec.gz'), { source: 'x', licence: 'x' }, convertKlineCsv(bad, 'BTCUSDT', '1m'))).rejects.toThrow(/not a plain decimal/);
  });
});
