import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localModules, sourceHash } from './sourceHash.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-source-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const f = path.join(dir, rel);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, text);
  return f;
}

describe('sourceHash', () => {
  const main = write('s/strategy.ts', ["import { z } from 'kancil';", "import { edge } from './lib/edge.js';", "export * from '../shared/util';", "const late = await import('./lib/late.mjs');", 'export default { edge, late, z };'].join('\n'));
  write('s/lib/edge.ts', "import { k } from './consts.js';\nexport const edge = k * 2;\n");
  write('s/lib/consts.ts', 'export const k = 1;\n');
  write('s/lib/late.mjs', "import './edge.js';\nexport default 1;\n");
  write('shared/util.ts', 'export const u = 1;\n');

  it('follows relative imports transitively (.js naming .ts, no extension, dynamic), not packages', () => {
    expect(localModules(main).map((f) => path.relative(dir, f))).toEqual(['s/strategy.ts', 's/lib/edge.ts', 'shared/util.ts', 's/lib/late.mjs', 's/lib/consts.ts']);
  });

  it('changes when a module the strategy imports changes, however deep', () => {
    const before = sourceHash(main);
    expect(sourceHash(main)).toBe(before);
    write('s/lib/consts.ts', 'export const k = 2;\n');
    expect(sourceHash(main)).not.toBe(before);
    write('s/lib/consts.ts', 'export const k = 1;\n');
    expect(sourceHash(main)).toBe(before);
  });

  it('is the same for a copy of the folder elsewhere', () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'kancil-source-hash-copy-'));
    try {
      for (const rel of ['s/strategy.ts', 's/lib/edge.ts', 's/lib/consts.ts', 's/lib/late.mjs', 'shared/util.ts']) {
        mkdirSync(path.dirname(path.join(other, rel)), { recursive: true });
        writeFileSync(path.join(other, rel), readFileSync(path.join(dir, rel)));
      }
      expect(sourceHash(path.join(other, 's/strategy.ts'))).toBe(sourceHash(main));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
