import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolder } from './makeFolder.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-makefolder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('makeFolder', () => {
  it('makes every missing level and accepts a folder that exists', () => {
    const deep = path.join(dir, 'a', 'b', 'c');
    makeFolder(deep);
    makeFolder(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('throws naming the path when a file is in the way', () => {
    const f = path.join(dir, 'file');
    writeFileSync(f, 'x');
    expect(() => makeFolder(f)).toThrow(/EEXIST.*file/);
    expect(() => makeFolder(path.join(f, 'x'))).toThrow(`EEXIST: file already exists, mkdir '${f}'`);
  });

  // Node's recursive mkdir never returns here.
  it.skipIf(process.platform !== 'linux')('throws at once in a folder that takes no new entry (/proc)', () => {
    expect(() => makeFolder('/proc/kancil-out/x')).toThrow(/ENOENT.*\/proc\/kancil-out/);
  });
});
