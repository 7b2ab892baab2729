import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdentity, queueJobId, stableJson, type JobIdentity } from './jobKey.js';

const job = { index: 0, configFile: '/c.yaml', strategy: 'mm', params: { a: 1, b: 'x' } };
const ident: JobIdentity = { config: { name: 'n', backtest: { fees: { makerBps: 0, takerBps: 7.5 } } }, plugin: 'p1', files: [{ path: '/d.gz', size: 10, head: 'h' }], version: '0.1.0' };

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
      queueJobId(job, { ...ident, files: [{ path: '/d.gz', size: 11, head: 'h' }] }),
      queueJobId(job, { ...ident, version: '0.2.0' }),
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
  });

  it('a file identity is its path, size and a hash of its head', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-jobkey-'));
    try {
      const f = path.join(dir, 'r.ndjson');
      writeFileSync(f, 'x'.repeat(100_000));
      const one = fileIdentity(f);
      expect(one).toMatchObject({ path: f, size: 100_000 });
      writeFileSync(f, `y${'x'.repeat(99_999)}`);
      expect(fileIdentity(f).head).not.toBe(one.head);
      expect(() => fileIdentity(path.join(dir, 'missing'))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
