import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineId, engineText, hashEngine } from './engineHash.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-engine-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(root: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

describe('engine hash', () => {
  const a = path.join(dir, 'a');
  write(a, 'package.json', '{"version":"0.1.0"}');
  write(a, 'src/core/fees.ts', 'export const bps = 10;\n');
  write(a, 'src/core/fees.test.ts', 'test\n');
  write(a, 'src/strategy/test-plugins/p.ts', 'fixture\n');
  write(a, 'dist/src/core/fees.js', 'export const bps = 10;\n');
  write(a, 'dist/vendor/zod.js', 'z\n');

  it('is the same for a copy of the build elsewhere, and ignores tests and fixtures', () => {
    const b = path.join(dir, 'b');
    cpSync(a, b, { recursive: true });
    expect(hashEngine(b, 'src')).toBe(hashEngine(a, 'src'));
    write(b, 'src/core/fees.test.ts', 'another test\n');
    write(b, 'src/strategy/test-plugins/p.ts', 'another fixture\n');
    expect(hashEngine(b, 'src')).toBe(hashEngine(a, 'src'));
    expect(hashEngine(b, 'dist')).toBe(hashEngine(a, 'dist'));
  });

  it('changes with one byte of code, the version, the lockfile, a new module; each run mode hashes its own code', () => {
    const base = { src: hashEngine(a, 'src'), dist: hashEngine(a, 'dist') };
    const c = path.join(dir, 'c');
    const variants: [string, (root: string) => void][] = [
      ['code', (r) => appendFileSync(path.join(r, 'src/core/fees.ts'), ' ')],
      ['version', (r) => write(r, 'package.json', '{"version":"0.1.1"}')],
      ['lockfile', (r) => write(r, 'package-lock.json', '{}')],
      ['module', (r) => write(r, 'src/core/extra.ts', 'export {};\n')],
    ];
    for (const [what, change] of variants) {
      rmSync(c, { recursive: true, force: true });
      cpSync(a, c, { recursive: true });
      change(c);
      expect(hashEngine(c, 'src'), what).not.toBe(base.src);
    }
    rmSync(c, { recursive: true, force: true });
    cpSync(a, c, { recursive: true });
    appendFileSync(path.join(c, 'dist/vendor/zod.js'), ' ');
    expect(hashEngine(c, 'dist')).not.toBe(base.dist);
    expect(hashEngine(c, 'src')).toBe(base.src);
  });

  it("this process's engine is computed once and named in words", () => {
    const e = engineId();
    expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(engineId()).toBe(e);
    expect(engineText(e)).toMatch(/^kancil \S+ engine [0-9a-f]{12} \((src|dist)\)$/);
  });
});
