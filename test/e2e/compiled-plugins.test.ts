/**
 * The compiled CLI loads its own strategies (dist/strategies) without module hooks, whose loader
 * thread would cost every start: the build points their `kancil` imports at the compiled modules
 * (bin/build-finish.mjs). A plugin outside the tree still gets the hooks and the compiled `kancil`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtIsFresh } from './builtFresh.js';

const root = ROOT;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-compiled-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fresh = builtIsFresh();

describe('compiled strategies', () => {
  it('the build links `kancil` imports of dist/strategies to the bundled entries', async () => {
    const { linkCompiledStrategies } = (await import(pathToFileURL(path.join(root, 'bin/build-finish.mjs')).href)) as { linkCompiledStrategies: (dist: string) => string[] };
    const dist = path.join(tmp, 'dist');
    mkdirSync(path.join(dist, 'strategies'), { recursive: true });
    writeFileSync(path.join(dist, 'strategies/a.js'), `import { z, defineStrategy } from 'kancil';\nimport { fakeContext } from "kancil/testing";\nimport { SMA } from 'kancil/indicators';\nimport { EMA } from 'trading-signals';\nconst m = await import('kancil');\n`);
    writeFileSync(path.join(dist, 'strategies/b.js'), `import { x } from 'kancil-extra';\n`);
    // As a build before the bundle linked it (an incremental tsc does not write it again).
    writeFileSync(path.join(dist, 'strategies/c.js'), `import { z } from '../src/index.js';\nimport { SMA } from "../src/indicators.js";\nimport { y } from '../src/other.js';\n`);
    expect(linkCompiledStrategies(dist)).toEqual(['a.js', 'c.js']);
    expect(readFileSync(path.join(dist, 'strategies/a.js'), 'utf8')).toBe(`import { z, defineStrategy } from '../src/bundle/index.js';\nimport { fakeContext } from "../src/bundle/testing.js";\nimport { SMA } from '../src/bundle/indicators.js';\nimport { EMA } from 'trading-signals';\nconst m = await import('../src/bundle/index.js');\n`);
    expect(readFileSync(path.join(dist, 'strategies/b.js'), 'utf8')).toBe(`import { x } from 'kancil-extra';\n`);
    expect(readFileSync(path.join(dist, 'strategies/c.js'), 'utf8')).toBe(`import { z } from '../src/bundle/index.js';\nimport { SMA } from "../src/bundle/indicators.js";\nimport { y } from '../src/other.js';\n`);
    // Linking twice changes nothing.
    expect(linkCompiledStrategies(dist)).toEqual([]);
  });

  it.skipIf(!fresh)('an in-tree plugin loads with no loader thread, one outside the tree with the hooks (needs a fresh `npm run build`)', () => {
    const dir = path.join(tmp, 'outside');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    // Its trading-signals is kancil's copy (the vendored bundle): one class per indicator.
    writeFileSync(path.join(dir, 'p.js'), `import { defineStrategy, z } from 'kancil';\nimport { SMA } from 'kancil/indicators';\nimport { SMA as PackageSma } from 'trading-signals';\nexport default defineStrategy({ name: 'p', description: String(SMA === PackageSma), params: z.object({}), create: () => ({}) });\n`);
    const script = `
const { loadPlugin, plainErrorAt } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/src/strategy/loader.js')).href)});
const at = plainErrorAt('cfg.yaml');
const mm = await loadPlugin('market-maker', ${JSON.stringify(root)}, at, ['strategies', 0]);
const inTree = process.report.getReport().workers.length;
const p = await loadPlugin(${JSON.stringify(path.join(dir, 'p.js'))}, ${JSON.stringify(dir)}, at, ['strategies', 1]);
console.log(JSON.stringify({ mm: mm.name, p: p.name, sameSma: p.description, inTree, outside: process.report.getReport().workers.length }));
`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ mm: 'market-maker', p: 'p', sameSma: 'true', inTree: 0, outside: 1 });
  });
});
