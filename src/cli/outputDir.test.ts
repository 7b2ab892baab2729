import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outputDirProblem } from './outputDir.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-outdir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('outputDirProblem', () => {
  it('accepts an existing folder and one that can be created, creating nothing', () => {
    expect(outputDirProblem(dir)).toBeUndefined();
    expect(outputDirProblem(path.join(dir, 'a', 'b'))).toBeUndefined();
    expect(() => rmSync(path.join(dir, 'a'))).toThrow();
  });

  it('names a file in the way, itself or above', () => {
    const f = path.join(dir, 'file');
    writeFileSync(f, 'x');
    expect(outputDirProblem(f)).toBe('exists and is not a folder');
    expect(outputDirProblem(path.join(f, 'out'))).toBe(`${f} is not a folder`);
  });

  it.skipIf(process.platform !== 'linux')('names a folder that takes no new entry though access() says writable (/proc)', () => {
    expect(outputDirProblem('/proc/kancil-out')).toBe('cannot be created: /proc takes no new entry (ENOENT)');
    expect(outputDirProblem('/proc/kancil-out/a/b')).toBe('cannot be created: /proc takes no new entry (ENOENT)');
  });

  it.skipIf(process.getuid?.() === 0)('names a folder that cannot be written (skipped as root, who may write anywhere)', () => {
    const ro = path.join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    expect(outputDirProblem(ro)).toBe('is not writable');
    expect(outputDirProblem(path.join(ro, 'x'))).toBe(`cannot be created: ${ro} is not writable`);
    chmodSync(ro, 0o700);
  });
});
