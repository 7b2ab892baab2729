import type * as FsModule from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { createProgress, etaText, progressLine, totalBytes } from './progress.js';

/** Streams opened per file: a pre-pass over a recording would open it twice. */
const opened = vi.hoisted(() => new Map<string, number>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof FsModule>();
  const createReadStream = ((p: string, o?: object) => {
    opened.set(String(p), (opened.get(String(p)) ?? 0) + 1);
    return fs.createReadStream(p, o as Parameters<typeof fs.createReadStream>[1]);
  }) as typeof fs.createReadStream;
  return { ...fs, createReadStream, default: { ...fs, createReadStream } };
});

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

describe('progress', () => {
  it('the total is the files\' sizes as stored (compressed for gzip), read from stat', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-progress-'));
    try {
      writeFileSync(path.join(dir, 'a.txt'), 'x\ny\nz\n');
      writeFileSync(path.join(dir, 'b.gz'), gzipSync('1\n2\n'.repeat(1000)));
      const gz = statSync(path.join(dir, 'b.gz')).size;
      expect(gz).toBeLessThan(4000);
      expect(await totalBytes([path.join(dir, 'a.txt'), path.join(dir, 'b.gz')])).toBe(6 + gz);
      expect(opened.size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('formats items, bytes read, rate and an ETA from the read rate; no ETA before a rate exists or once all is read', () => {
    expect(progressLine({ bytes: 250e6, items: 500 }, 1000e6, 10_000)).toBe('replayed 500 items, read 250.0 MB of 1000.0 MB (25.0%) 50 items/s ETA 30s');
    expect(progressLine({ bytes: 0, items: 0 }, 0, 0)).toBe('replayed 0 items, read 0.0 MB of 0.0 MB (0.0%) 0 items/s ETA unknown');
    expect(progressLine({ bytes: 0, items: 0 }, 1000, 2000)).toBe('replayed 0 items, read 0.0 MB of 0.0 MB (0.0%) 0 items/s ETA unknown');
    expect(progressLine({ bytes: 1000, items: 1200 }, 1000, 2000)).toBe('replayed 1200 items, read 0.0 MB of 0.0 MB (100.0%) 600 items/s ETA unknown');
    expect(etaText(1, 10_000, 1000)).toBe('2h 46m');
    expect(etaText(100, 10_000, 1000)).toBe('1m 39s');
    expect(progressLine({ bytes: 1000, items: 700 }, 1000, 3500, true)).toBe('replayed 700 items in 3.5s (200 items/s)');
  });

  it('the ETA at a steady read rate is the time left, whatever the items per byte', () => {
    let t = 0;
    const lines: string[] = [];
    const p = createProgress(4000, { isTTY: false, write: (s: string) => lines.push(s) }, 1000, () => t);
    // 100 bytes a second; the items per byte change (book tickers skipped, diffs kept): the ETA does not.
    for (const [s, bytes, items] of [[10, 1000, 90_000], [20, 2000, 100_000], [30, 3000, 300_000]] as const) {
      t = s * 1000;
      p.update({ bytes, items });
    }
    expect(lines.map((l) => l.replace(/.* ETA /, ''))).toEqual(['30s\n', '20s\n', '10s\n']);
  });

  it('writes plain lines at most every interval when not a terminal, and a final line that says what was done', () => {
    let t = 0;
    const lines: string[] = [];
    const p = createProgress(100, { isTTY: false, write: (s: string) => lines.push(s) }, 1000, () => t);
    t = 500;
    p.update({ bytes: 10, items: 5 });
    t = 1000;
    p.update({ bytes: 20, items: 20 });
    t = 1500;
    p.update({ bytes: 30, items: 30 });
    p.stop({ bytes: 100, items: 100 });
    expect(lines).toEqual(['replayed 20 items, read 0.0 MB of 0.0 MB (20.0%) 20 items/s ETA 4s\n', 'replayed 100 items in 1.5s (67 items/s)\n']);
  });

  it('on a terminal: a bar of bytes read with items, a rate and an ETA that is unknown at the start and done at the end, at 100 % even when the run ends early', () => {
    let t = 0;
    let text = '';
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    out.on('data', (b: Buffer) => (text += b.toString()));
    const p = createProgress(2_000_000, out as unknown as { isTTY: boolean; write(s: string): unknown }, 1000, () => t);
    expect(text).toContain('ETA unknown');
    expect(text).toContain('0% of 2.0 MB read | 0 items');
    t = 2000;
    p.stop({ bytes: 1_000_000, items: 400 });
    expect(text).toMatch(/100% of 2\.0 MB read \| 400 items \| 200 items\/s \| ETA done/);
    expect(text).not.toMatch(/NULL|INF|NaN/);
  });

  it('kancil backtest starts without a pass over the recording: the run opens it once, progress goes by its bytes to the end', async () => {
    const { command } = await import('../cli/backtest.js');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-progress-run-'));
    const recording = path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz');
    try {
      const config = path.join(dir, 'mm.yaml');
      writeFileSync(config, readFileSync(path.join(root, 'config/market-maker.yaml'), 'utf8').replace('../backtest-data/btcusdt-sample.ndjson.gz', recording));
      opened.clear();
      const err: string[] = [];
      const code = await command.run([config, '--out', path.join(dir, 'out')], { stdout: () => undefined, stderr: (s) => err.push(s), env: {} });
      expect(code).toBe(0);
      expect(opened.get(recording)).toBe(1);
      expect(err.join('')).toMatch(/^replayed \d+ items in [\d.]+s \(\d+ items\/s\)$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
