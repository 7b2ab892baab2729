import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { RecordingWriter } from './writer.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('RecordingWriter', () => {
  it('a file that cannot be written is kept as its failure (no unhandled rejection); later lines are dropped, close() still resolves', async () => {
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    // What the writer will name its first file, taken by a folder: its write stream fails (EISDIR), as on a full disk.
    const blocked = path.join(dir, 'rec-20260101T000000Z-0000.rec.gz');
    mkdirSync(blocked);
    const w = new RecordingWriter({ dir, prefix: 'rec', header: { source: 'test', symbols: ['BTC_USDT'] }, clock });
    w.write('1 {"stream":"x","data":{}}\n');
    const failure = await w.failed;
    expect(failure.file).toBe(blocked);
    expect(failure.error.message).toMatch(/EISDIR/);
    expect(w.failure).toBe(failure);
    const lines = w.lines;
    expect(() => w.write('2 {"stream":"x","data":{}}\n')).not.toThrow();
    expect(w.lines).toBe(lines);
    await expect(w.close()).resolves.toBeUndefined();
  });
});
