import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeDigest, storedDigest } from './digestCache.js';
import { cachedDigest, fileDigest } from './provenance.js';

const LATER = (): number => Date.now() + 60_000;

describe('digest cache', () => {
  let dir: string;
  let saved: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kancil-digest-'));
    saved = process.env.KANCIL_CACHE_DIR;
    process.env.KANCIL_CACHE_DIR = path.join(dir, 'cache');
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.KANCIL_CACHE_DIR;
    else process.env.KANCIL_CACHE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives back a stored digest while the file is unchanged, and nothing once it is rewritten', () => {
    const f = path.join(dir, 'a.rec');
    writeFileSync(f, 'one');
    const st = statSync(f);
    storeDigest(f, st, fileDigest(f), LATER());
    expect(storedDigest(f, statSync(f))).toEqual(fileDigest(f));
    writeFileSync(f, 'two');
    expect(storedDigest(f, statSync(f))).toBeUndefined();
  });

  it('does not store a file changed in the last seconds, nor anything when turned off', () => {
    const f = path.join(dir, 'b.rec');
    writeFileSync(f, 'fresh');
    storeDigest(f, statSync(f), fileDigest(f));
    expect(storedDigest(f, statSync(f))).toBeUndefined();
    process.env.KANCIL_CACHE_DIR = 'none';
    storeDigest(f, statSync(f), fileDigest(f), LATER());
    expect(readdirSync(dir)).toEqual(['b.rec']);
  });

  it('is what cachedDigest answers from in a new process (an entry it did not compute)', () => {
    const f = path.join(dir, 'c.rec');
    writeFileSync(f, 'abc');
    const planted = { bytes: 3, sha256: 'f'.repeat(64) };
    storeDigest(f, statSync(f), planted, LATER());
    expect(cachedDigest(f)).toEqual(planted);
  });

  it('ignores an entry whose digest is malformed or whose size disagrees', () => {
    const f = path.join(dir, 'd.rec');
    writeFileSync(f, 'abcd');
    storeDigest(f, statSync(f), { bytes: 4, sha256: 'not hex' }, LATER());
    expect(storedDigest(f, statSync(f))).toBeUndefined();
    storeDigest(f, statSync(f), { bytes: 5, sha256: 'e'.repeat(64) }, LATER());
    expect(storedDigest(f, statSync(f))).toBeUndefined();
    expect(cachedDigest(f)).toEqual(fileDigest(f));
  });
});
