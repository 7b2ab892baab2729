import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countLines, createProgress, progressLine } from './progress.js';

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

  it('formats rate, percentage and ETA', () => {
    expect(progressLine(500, 1000, 1000)).toBe('replayed 500/1000 (50.0%) 500 events/s ETA 1s');
    expect(progressLine(0, 0, 0)).toBe('replayed 0/0 (0.0%) 0 events/s ETA 0s');
  });

  it('writes plain lines at most every interval when not a terminal', () => {
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
    expect(lines).toEqual(['replayed 20/100 (20.0%) 20 events/s ETA 4s\n', 'replayed 100/100 (100.0%) 67 events/s ETA 0s\n']);
  });
});
