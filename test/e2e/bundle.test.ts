/**
 * The build bundles the compiled modules into dist/src/bundle (bin/bundle-dist.mjs), which the
 * CLI, the package's `exports` and the linked example strategies load: a backtest through
 * bin/kancil.mjs must load no unbundled module, `kancil` must be the bundle's own index (one copy
 * of every class for the CLI and its plugins), and the bundling must keep class names, vendored
 * imports and paths relative to the module.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtIsFresh } from './builtFresh.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fresh = builtIsFresh();

interface BundleDist {
  readonly BUNDLE_ENTRIES: readonly string[];
  bundleDist(dist: string): Promise<string[]>;
}
const bundler = async (): Promise<BundleDist> => (await import(pathToFileURL(path.join(ROOT, 'bin/bundle-dist.mjs')).href)) as BundleDist;

/** Writes `files` (path under `dir` -> text). */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
}

describe('bundled dist', () => {
  it('keeps class names, vendored bundles external and paths relative to the module, and empties the folder first', async () => {
    const { BUNDLE_ENTRIES, bundleDist } = await bundler();
    const dist = path.join(tmp, 'dist');
    const files: Record<string, string> = {
      'vendor/zod.js': 'export const z = "vendored";\n',
      // Two classes of one name in two modules: one is renamed in the bundle, its name must not be.
      'src/core/a.js': 'export class Failure extends Error { constructor() { super("a"); this.name = new.target.name; } }\n',
      'src/core/b.js': 'export class Failure {}\nexport const bName = Failure.name;\n',
      'src/core/where.js': "import { fileURLToPath } from 'node:url';\nimport path from 'node:path';\nexport const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');\n",
      'src/index.js': "export { Failure } from './core/a.js';\nexport { bName } from './core/b.js';\nexport { z } from '../vendor/zod.js';\nexport { root } from './core/where.js';\nexport const bundled = typeof KANCIL_BUNDLED !== 'undefined' && KANCIL_BUNDLED;\n",
    };
    for (const e of BUNDLE_ENTRIES) files[`src/${e}.js`] ??= "export * from '../index.js';\n".replace('../', e.includes('/') ? '../' : './');
    files['src/bundle/chunk-stale.js'] = 'stale\n';
    writeTree(dist, files);
    const written = await bundleDist(dist);
    expect(written).toEqual(expect.arrayContaining(BUNDLE_ENTRIES.map((e) => `${path.basename(e)}.js`)));
    expect(readdirSync(path.join(dist, 'src/bundle'))).not.toContain('chunk-stale.js');
    const script = `const m = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'src/bundle/index.js')).href)}); console.log(JSON.stringify({ a: new m.Failure().name, b: m.bName, z: m.z, root: m.root, bundled: m.bundled }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(out).toEqual({ a: 'Failure', b: 'Failure', z: 'vendored', root: dist, bundled: true });
    const texts = readdirSync(path.join(dist, 'src/bundle')).map((f) => readFileSync(path.join(dist, 'src/bundle', f), 'utf8'));
    expect(texts.some((t) => t.includes('"../../vendor/zod.js"'))).toBe(true);
  });

  it.skipIf(!fresh)('a backtest through bin/kancil.mjs loads only bundled modules, and `kancil` is the bundle (needs a fresh `npm run build`)', () => {
    const log = path.join(tmp, 'loaded.txt');
    const hooks = path.join(tmp, 'hooks.mjs');
    writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`);
    const preload = path.join(tmp, 'preload.mjs');
    writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    execFileSync(process.execPath, ['--import', pathToFileURL(preload).href, 'bin/kancil.mjs', 'backtest', 'config/market-maker.yaml', '--quiet', '--out', path.join(tmp, 'out')], { cwd: ROOT, encoding: 'utf8' });
    const loaded = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:'));
    const dist = pathToFileURL(path.join(ROOT, 'dist')).href;
    expect(loaded).toContain(`${dist}/src/bundle/main.js`);
    expect(loaded).toContain(`${dist}/strategies/market-maker.js`);
    expect(loaded.filter((u) => u.startsWith(`${dist}/src/`) && !u.startsWith(`${dist}/src/bundle/`))).toEqual([]);

    const script = `const [a, b] = [await import('kancil'), await import(${JSON.stringify(`${dist}/src/bundle/index.js`)})]; console.log(typeof a.CappedOrders === 'function' && a.CappedOrders === b.CappedOrders && a.defineStrategy === b.defineStrategy);`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe('true');
  });
});
