import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { MAGIC } from '../record/binary/format.js';
import { loadRecording, type RecordedEvent } from './recording.js';
import { RecordingStream } from './recording-stream.js';

const sample = path.resolve(import.meta.dirname, '../../backtest-data/btcusdt-sample.ndjson.gz');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-recording-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Takes a whole pass, waiting for the reader when it runs dry; notes the most it held. */
async function drain(s: RecordingStream): Promise<{ events: RecordedEvent[]; maxBuffered: number }> {
  const events: RecordedEvent[] = [];
  let maxBuffered = 0;
  while (!s.done) {
    maxBuffered = Math.max(maxBuffered, s.buffered);
    const ev = s.take();
    if (ev === undefined) await s.ready();
    else events.push(ev);
  }
  return { events, maxBuffered };
}

const key = (e: RecordedEvent): string => `${e.kind} ${e.ms} ${e.kind === 'trade' ? e.price.toFixed() : e.kind === 'diff' ? e.u : e.lastUpdateId}`;

describe('RecordingStream', () => {
  it('a .gz cut short ends the pass with an error naming the file, the line reached and the bytes read', async () => {
    const cut = path.join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, readFileSync(sample).subarray(0, 100_000));
    const s = await RecordingStream.open(cut, 'BTCUSDT', 64);
    await drain(s);
    expect(s.lastError).toMatch(new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line \\d+: the gzip data is cut short or corrupt \\(unexpected end of file\\) within the first 100000 bytes of the file$`));
    s.close();
  });

  it('a .gz cut short before its snapshot is a config error naming the file once', async () => {
    const cut = path.join(dir, 'cut-early.ndjson.gz');
    writeFileSync(cut, readFileSync(sample).subarray(0, 5000));
    const err = await RecordingStream.open(cut, 'BTCUSDT', 64).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line \\d+: the gzip data is cut short`));
  });

  it('hands out the sample from its snapshot on, as the whole-file reader does, holding no more than its read-ahead and a chunk', async () => {
    const all = loadRecording(sample, 'BTCUSDT');
    const want = all.slice(all.findIndex((e) => e.kind === 'snapshot')).map(key);
    const s = await RecordingStream.open(sample, 'BTCUSDT', 64);
    const first = await drain(s);
    expect(first.events.map(key)).toEqual(want);
    // One gunzip chunk (16 KiB of text) is at most a few hundred lines.
    expect(first.maxBuffered).toBeLessThan(64 + 400);
    expect(want.length).toBeGreaterThan(3000);
    // The trades span just under two minutes (from 23:54:15): a looped pass is two minutes.
    expect(s.passLength).toBe(120_000);
    s.rewind();
    const again = await drain(s);
    expect(again.events.map(key)).toEqual(want);
    s.close();
  });

  it('refuses a file it cannot replay, naming it; a bad line after the snapshot is skipped and counted with its line', async () => {
    const at = (name: string, content: string | Buffer): string => {
      const f = path.join(dir, name);
      writeFileSync(f, content);
      return f;
    };
    const snapshot = '1723161254206 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":10,"bids":[["1","1"]],"asks":[["2","1"]]}}\n';
    const trade = (t: number) => `1723161254${t} {"stream":"btcusdt@trade","data":{"e":"trade","E":1,"s":"BTCUSDT","t":${t},"p":"1.5","q":"1","T":${t},"m":false,"M":true}}\n`;
    await expect(RecordingStream.open(path.join(dir, 'absent.gz'), 'BTCUSDT')).rejects.toThrow(/absent\.gz.*cannot read recording/);
    await expect(RecordingStream.open(at('r.krb', Buffer.concat([Buffer.from(MAGIC, 'latin1'), Buffer.alloc(16)])), 'BTCUSDT')).rejects.toThrow(/r\.krb.*binary/);
    await expect(RecordingStream.open(at('none.gz', gzipSync(trade(300))), 'BTCUSDT')).rejects.toThrow(/none\.gz.*no depth snapshot for BTCUSDT/);
    await expect(RecordingStream.open(at('early.txt', `${trade(300)}1723161254300 {"stream":\n${snapshot}`), 'BTCUSDT')).rejects.toThrow(/early\.txt.*line 2/);
    const s = await RecordingStream.open(at('late.txt', `${snapshot}${trade(301)}oops\n${trade(302)}`), 'BTCUSDT');
    const { events } = await drain(s);
    expect(events.map((e) => e.kind)).toEqual(['snapshot', 'trade', 'trade']);
    expect(s.badLines).toBe(1);
    expect(s.lastError).toMatch(/late\.txt line 3/);
    s.close();
  });
});
