import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { countLines, createProgress, etaText, progressLine } from './progress.js';

describe('progress', () => {
  it('counts lines of plain and gzip files', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-progress-'));
    try {
      writeFileSync(path.join(dir, 'a.txt'), 'x\ny\nz\n');
      writeFileSync(path.join(dir, 'b.gz'), gzipSync('1\n2\n'));
      expect(await countLines([path.join(dir, 'a.txt'), path.join(dir, 'b.gz')])).toBe(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('formats rate, percentage and ETA; no ETA before a rate exists or past the count', () => {
    expect(progressLine(500, 1000, 1000)).toBe('replayed 500/1000 (50.0%) 500 items/s ETA 1s');
    expect(progressLine(0, 0, 0)).toBe('replayed 0/0 (0.0%) 0 items/s ETA unknown');
    expect(progressLine(0, 1000, 2000)).toBe('replayed 0/1000 (0.0%) 0 items/s ETA unknown');
    expect(progressLine(1200, 1000, 2000)).toBe('replayed 1200/1000 (100.0%) 600 items/s ETA unknown');
    expect(etaText(1, 10_000, 1000)).toBe('2h 46m');
    expect(etaText(100, 10_000, 1000)).toBe('1m 39s');
    expect(progressLine(700, 1000, 3500, true)).toBe('replayed 700 items in 3.5s (200 items/s)');
  });

  it('writes plain lines at most every interval when not a terminal, and a final line that says what was done', () => {
    let t = 0;
    const lines: string[] = [];
    const p = createProgress(100, { isTTY: false, write: (s: string) => lines.push(s) }, 1000, () => t);
    t = 500;
    p.update(10);
    t = 1000;
    p.update(20);
    t = 1500;
    p.update(30);
    p.stop(100);
    expect(lines).toEqual(['replayed 20/100 (20.0%) 20 items/s ETA 4s\n', 'replayed 100 items in 1.5s (67 items/s)\n']);
  });

  it('on a terminal: a bar with a rate and an ETA that is unknown at the start and done at the end, at 100 % even when the run ends early', () => {
    let t = 0;
    let text = '';
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    out.on('data', (b: Buffer) => (text += b.toString()));
    const p = createProgress(1000, out as unknown as { isTTY: boolean; write(s: string): unknown }, 1000, () => t);
    expect(text).toContain('ETA unknown');
    t = 2000;
    p.stop(400);
    expect(text).toMatch(/100% 400\/400 items \| 200 items\/s \| ETA done/);
    expect(text).not.toMatch(/NULL|INF|NaN/);
  });
});
