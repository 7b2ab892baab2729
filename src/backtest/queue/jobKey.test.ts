import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdentity, queueJobId, stableJson, type JobIdentity } from './jobKey.js';

const job = { index: 0, configFile: '/c.yaml', strategy: 'mm', params: { a: 1, b: 'x' } };
const ident: JobIdentity = { config: { name: 'n', backtest: { fees: { makerBps: 0, takerBps: 7.5 } } }, plugin: 'p1', files: [{ path: '/d.gz', bytes: 10, sha256: 'h' }], engine: 'e1' };

describe('queue job ids', () => {
  it('are stable: key order and the job index do not change them', () => {
    const a = queueJobId(job, ident);
    expect(a).toMatch(/^kancil-[0-9a-f]{40}$/);
    expect(queueJobId({ ...job, index: 7, params: { b: 'x', a: 1 } }, { ...ident, config: { backtest: { fees: { takerBps: 7.5, makerBps: 0 } }, name: 'n' } })).toBe(a);
    expect(stableJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });

  it('change with anything that decides the result', () => {
    const a = queueJobId(job, ident);
    const others = [
      queueJobId({ ...job, params: { a: 2, b: 'x' } }, ident),
      queueJobId({ ...job, window: { end: 5 } }, ident),
      queueJobId({ ...job, recording: 1 }, ident),
      queueJobId({ ...job, strategy: 'other' }, ident),
      queueJobId(job, { ...ident, config: { name: 'm' } }),
      queueJobId(job, { ...ident, plugin: 'p2' }),
      queueJobId(job, { ...ident, files: [{ path: '/d.gz', bytes: 10, sha256: 'h2' }] }),
      queueJobId(job, { ...ident, files: [...ident.files, { path: '/latency.csv', bytes: 1, sha256: 'l' }] }),
      queueJobId(job, { ...ident, engine: 'e2' }),
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
  });

  it('a file identity is its path, size and a hash of all of it: a change past the first 64 KiB counts', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-jobkey-'));
    try {
      const f = path.join(dir, 'r.ndjson');
      writeFileSync(f, 'x'.repeat(100_000));
      const one = fileIdentity(f);
      expect(one).toMatchObject({ path: f, bytes: 100_000 });
      expect(one.sha256).toMatch(/^[0-9a-f]{64}$/);
      // Same size, one byte changed near the end (with an mtime of its own, as an edit has).
      writeFileSync(f, `${'x'.repeat(99_999)}y`);
      utimesSync(f, new Date(), new Date(Date.now() + 5000));
      const two = fileIdentity(f);
      expect(two.bytes).toBe(100_000);
      expect(two.sha256).not.toBe(one.sha256);
      expect(() => fileIdentity(path.join(dir, 'missing'))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
