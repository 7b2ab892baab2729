import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NumberSpool, RecordSpool } from './spool.js';

// Spill files go to the OS temp folder: this file's own (a fork of its own: other files cannot add to it).
const tmp = mkdtempSync(path.join(tmpdir(), 'kancil-spool-test-'));
const saved = process.env.TMPDIR;
process.env.TMPDIR = tmp;
afterAll(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  rmSync(tmp, { recursive: true, force: true });
});
const spillDirs = (): string[] => readdirSync(tmp).filter((f) => f.startsWith('kancil-spool-'));

describe('NumberSpool', () => {
  it('reads back every row in order, from memory and from its spill file, as often as asked', () => {
    const before = spillDirs().length;
    const s = new NumberSpool(3, { chunkRows: 4, memChunks: 1 });
    expect(s.last(0)).toBeUndefined();
    expect([...s.column(0)]).toEqual([]);
    const rows = Array.from({ length: 23 }, (_, i) => [i, i * 1.5 - 7, 1 / (i + 1)]);
    for (const [i, r] of rows.entries()) {
      s.push(r);
      expect(s.last(2)).toBe(r[2]);
      expect(s.length).toBe(i + 1);
    }
    expect(spillDirs().length).toBe(before + 1);
    for (let pass = 0; pass < 2; pass++) {
      const back: number[][] = [];
      for (const { data, rows: n } of s.chunks()) for (let r = 0; r < n; r++) back.push(Array.from(data.subarray(3 * r, 3 * r + 3)));
      expect(back).toEqual(rows);
    }
    expect([...s.column(1)]).toEqual(rows.map((r) => r[1]));
    // The last row when it sits at the end of the spill file (a full chunk just written).
    const t = new NumberSpool(2, { chunkRows: 2, memChunks: 0 });
    t.push([1, 2]);
    t.push([3, 4]);
    expect(t.last(0)).toBe(3);
    expect(t.last(1)).toBe(4);
    s.dispose();
    t.dispose();
    expect(spillDirs().length).toBe(before);
    expect(s.length).toBe(0);
  });
});

describe('RecordSpool', () => {
  it('reads back what JSON gives back, in order, across its spill file and buffer', () => {
    const before = spillDirs().length;
    const s = new RecordSpool<{ i: number; text: string; n: null }>({ bufferBytes: 64 });
    const xs = Array.from({ length: 100 }, (_, i) => ({ i, text: `fill ${i} é€😀\n"quoted"`, n: null }));
    for (const x of xs) s.push(x);
    expect(s.length).toBe(100);
    expect(spillDirs().length).toBe(before + 1);
    expect([...s]).toEqual(xs);
    expect([...s]).toEqual(xs);
    s.dispose();
    expect([...s]).toEqual([]);
    expect(spillDirs().length).toBe(before);
  });

  it('reads back characters that straddle one read of its spill file and the next', () => {
    // Lines of mostly multi-byte characters over several 64 KiB reads: read boundaries fall inside characters.
    const s = new RecordSpool<{ i: number; text: string }>({ bufferBytes: 64 });
    const xs = Array.from({ length: 3000 }, (_, i) => ({ i, text: 'é€😀'.repeat(7 + (i % 5)) }));
    for (const x of xs) s.push(x);
    expect([...s]).toEqual(xs);
    s.dispose();
  });

  it('never touches the disk below its buffer', () => {
    const before = spillDirs().length;
    const s = new RecordSpool<number>();
    for (let i = 0; i < 1000; i++) s.push(i);
    expect(spillDirs().length).toBe(before);
    expect([...s]).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
