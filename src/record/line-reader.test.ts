import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordingError } from '../core/errors.js';
import { readLines } from './line-reader.js';
import { readRecordingBatches } from './reader.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-line-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../backtest-data/btcusdt-sample.ndjson.gz');

/** The error a full read throws, or undefined. */
async function failureOf(read: () => AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const x of read()) void x;
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('a recording cut short or corrupt', () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `${1_700_000_000_000_000_000 + i} {"stream":"btcusdt@trade","data":{"e":"trade","E":${i},"s":"BTCUSDT","t":${i},"p":"1.00","q":"1","T":${i},"m":true}}`).join('\n');
  const whole = gzipSync(`${lines}\n`);
  const cut = path.join(dir, 'cut.ndjson.gz');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));

  it('a truncated .gz read as lines names the file, the line it reached and the bytes read', async () => {
    const err = await failureOf(() => readLines(cut));
    expect(err).toBeInstanceOf(RecordingError);
    expect((err as Error).message).toMatch(new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line \\d+: the gzip data is cut short or corrupt \\(unexpected end of file\\) within the first ${Math.floor(whole.length / 2)} bytes of the file$`));
  });

  it('the typed reader (backtests, the sandbox) says the same, at the line it reached', async () => {
    const sample = path.join(dir, 'sample.ndjson.gz');
    const bytes = readFileSync(SAMPLE);
    writeFileSync(sample, bytes.subarray(0, 100_000));
    const err = await failureOf(() => readRecordingBatches(sample));
    expect(err).toBeInstanceOf(RecordingError);
    const m = /: line (\d+): the gzip data is cut short/.exec((err as Error).message);
    expect(Number(m?.[1])).toBeGreaterThan(1);
  });

  it('corrupt gzip bytes in the middle are named too', async () => {
    const bad = path.join(dir, 'bad.ndjson.gz');
    copyFileSync(SAMPLE, bad);
    const b = readFileSync(bad);
    b.fill(0x55, 5_000, 6_000);
    writeFileSync(bad, b);
    const err = await failureOf(() => readRecordingBatches(bad, { onMalformed: () => undefined }));
    expect(err).toBeInstanceOf(RecordingError);
    expect((err as Error).message).toContain(`${bad}: line `);
  });
});
