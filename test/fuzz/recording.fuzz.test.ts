/**
 * Recordings as hostile files: random, truncated and mutated lines in a text recording, and
 * flipped or cut bytes in a binary one. The invariant: the reader never throws anything but a
 * named error that names the file (a text line that is not an event is reported through
 * onMalformed and skipped), and everything it yields is an event.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readRecording } from '../../src/record/reader.js';
import { writeBinaryRecording } from '../../src/record/binary/writer.js';
import { BinaryRecordingError } from '../../src/record/binary/reader.js';
import { KancilError } from '../../src/core/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-fuzz-rec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = 1_767_000_000_000;

/** A valid recording: a snapshot, then diffs and trades with consecutive ids. */
function validLines(n: number): string[] {
  const lines = [`${T0}000000 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":10,"bids":[["100.00","1.5"]],"asks":[["101.00","2"]]}}`];
  for (let i = 0; i < n; i++) {
    const ns = `${T0 + i + 1}000000`;
    lines.push(
      i % 2 === 0
        ? `${ns} {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":${T0 + i},"s":"BTCUSDT","U":${11 + i},"u":${11 + i},"b":[["100.0${i % 10}","0.${i + 1}"]],"a":[]}}`
        : `${ns} {"stream":"btcusdt@trade","data":{"e":"trade","E":${T0 + i},"s":"BTCUSDT","t":${i},"p":"100.50","q":"0.01","T":${T0 + i},"m":true,"M":true}}`,
    );
  }
  return lines;
}

async function readAll(file: string): Promise<{ items: number; malformed: number; error?: unknown }> {
  let items = 0;
  let malformed = 0;
  try {
    for await (const item of readRecording(file, { onMalformed: () => void malformed++ })) {
      expect(item).toBeTypeOf('object');
      items++;
    }
    return { items, malformed };
  } catch (error) {
    return { items, malformed, error };
  }
}

const garbageLine = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.nat({ max: 5000 }).map((n) => `${T0}000000 ${'['.repeat(n)}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => `${T0}000000 ${JSON.stringify(v)}`),
  fc.record({ stream: fc.constantFrom('btcusdt@trade', 'btcusdt@depth@100ms', 'btcusdt@depthSnapshot', 'x'), data: fc.jsonValue({ maxDepth: 3 }) }).map((o) => `${T0}000000 ${JSON.stringify(o)}`),
  fc.constantFrom('-1 {}', '1e3 {}', '99999999999999999999999 {}', ' {"stream":"a","data":1}', '\u0000\u0001'),
);

describe('recording readers under hostile input', () => {
  it('a text recording: bad lines are reported and skipped, never thrown', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.nat({ max: 40 }).map((i) => validLines(41)[i] as string), garbageLine), { maxLength: 30 }), fc.nat(), async (lines, cut) => {
        const text = lines.join('\n');
        const file = path.join(dir, 'fuzz.ndjson');
        // Sometimes cut mid-line, as a recorder killed while writing leaves it.
        writeFileSync(file, cut % 3 === 0 ? text.slice(0, cut % (text.length + 1)) : text);
        const r = await readAll(file);
        expect(r.error).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it('a binary recording with flipped or cut bytes: read whole, or a named error with the file and offset', async () => {
    const good = path.join(dir, 'good.krb');
    await writeBinaryRecording(good, { source: 'fuzz', licence: 'test' }, validLines(60));
    const bytes = readFileSync(good);
    const whole = await readAll(good);
    expect(whole.error).toBeUndefined();
    expect(whole.items).toBe(61);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }), fc.option(fc.nat()), async (flips, cut) => {
        const b = Buffer.from(bytes);
        for (const [at, v] of flips) b[at % b.length] = v;
        const file = path.join(dir, 'bad.krb');
        writeFileSync(file, cut === null ? b : b.subarray(0, cut % b.length));
        const r = await readAll(file);
        if (r.error !== undefined) {
          expect(r.error instanceof BinaryRecordingError || r.error instanceof KancilError, String(r.error)).toBe(true);
          expect(String((r.error as Error).message)).toContain(file);
        }
      }),
      // A header length and a record length turned into ~2 GB: once a RangeError from a 2 GB buffer.
      { numRuns: 200, examples: [[[[12, 129]], null], [[[13 + bytes.readUInt32LE(9) + 4, 127]], null]] },
    );
  });
});
