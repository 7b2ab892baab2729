/**
 * The build bundles the compiled modules into one script in dist/src/bundle (bin/bundle-dist.mjs),
 * run with its code cache, whose entries the CLI, the package's `exports` and the linked example
 * strategies load: a backtest through bin/kancil.mjs must load no unbundled module, `kancil` must
 * be the bundle's own index (one copy of every class for the CLI and its plugins), the bundling
 * must keep class names and paths relative to the module and share decimal.js and the vendored
 * bundles with a plugin, and a cache V8 refuses must leave the script working.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** Runs `code` as an ES module in a child Node in `cwd` (with V8 `flags`); its stdout, trimmed. */
function node(code: string, cwd = ROOT, flags: readonly string[] = []): string {
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd, encoding: 'utf8' }).trim();
}

/** A compiled tree of a few modules under `<tmp>/<name>/dist`, bundled; returns the dist folder. */
async function bundledTree(name: string): Promise<string> {
  const { BUNDLE_ENTRIES, bundleDist } = await bundler();
  const dist = path.join(tmp, name, 'dist');
  const files: Record<string, string> = {
    // A vendored bundle as bin/vendor-deps.mjs writes it: CommonJS behind an ES module.
    'vendor/zod.cjs': 'exports.z = { vendored: true };\n',
    'vendor/zod.js': "import { loadVendored } from './runtime.js';\nexport const { z } = loadVendored('zod');\n",
    'vendor/runtime.js': readFileSync(path.join(ROOT, 'bin/vendor-runtime.mjs'), 'utf8'),
    // Two classes of one name in two modules: one is renamed in the bundle, its name must not be.
    'src/core/a.js': 'export class Failure extends Error { constructor() { super("a"); this.name = new.target.name; } }\n',
    'src/core/b.js': 'export class Failure {}\nexport const bName = Failure.name;\n',
    'src/core/where.js': "import { fileURLToPath } from 'node:url';\nimport path from 'node:path';\nexport const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');\n",
    'src/core/dec.js': "import { Decimal } from 'decimal.js';\nexport const D = Decimal;\n",
    'src/index.js': "export { Failure } from './core/a.js';\nexport { bName } from './core/b.js';\nexport { z } from '../vendor/zod.js';\nexport { root } from './core/where.js';\nexport { D } from './core/dec.js';\nexport const bundled = typeof KANCIL_BUNDLED !== 'undefined' && KANCIL_BUNDLED;\n",
    'src/testing.js': "export const lazyRan = () => true;\n",
  };
  for (const e of BUNDLE_ENTRIES) files[`src/${e}.js`] ??= "export * from '../index.js';\n".replace('../', e.includes('/') ? '../' : './');
  files['src/bundle/chunk-stale.js'] = 'stale\n';
  writeTree(dist, files);
  // The tree's packages (decimal.js) are the project's.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, name, 'node_modules'));
  const written = await bundleDist(dist);
  expect(written).toEqual(expect.arrayContaining(BUNDLE_ENTRIES.map((e) => `${path.basename(e)}.js`)));
  expect(readdirSync(path.join(dist, 'src/bundle'))).not.toContain('chunk-stale.js');
  return dist;
}

describe('bundled dist', () => {
  it('keeps class names, paths relative to the module, and takes decimal.js and the vendored bundles as a plugin imports them', async () => {
    const dist = await bundledTree('names');
    const url = (rel: string): string => JSON.stringify(pathToFileURL(path.join(dist, rel)).href);
    const script = `const m = await import(${url('src/bundle/index.js')}); const { Decimal } = await import('decimal.js'); const v = await import(${url('vendor/zod.js')}); const t = await import(${url('src/bundle/testing.js')});
console.log(JSON.stringify({ a: new m.Failure().name, b: m.bName, z: m.z === v.z, d: m.D === Decimal, root: m.root, bundled: m.bundled, lazy: t.lazyRan() }));`;
    expect(JSON.parse(node(script, path.dirname(dist)))).toEqual({ a: 'Failure', b: 'Failure', z: true, d: true, root: dist, bundled: true, lazy: true });
    expect(readFileSync(path.join(dist, 'src/bundle/kancil.script.js'), 'utf8')).not.toContain('vendored: true');
  });

  it('runs the script with its code cache, and without it when V8 refuses the cache (corrupt, truncated)', async () => {
    const dist = await bundledTree('cache');
    const runtime = JSON.stringify(pathToFileURL(path.join(dist, 'src/bundle/script.js')).href);
    const cache = path.join(dist, 'src/bundle/kancil.script.cache');
    const used = (): unknown => JSON.parse(node(`const r = await import(${runtime}); const m = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'src/bundle/index.js')).href)}); console.log(JSON.stringify([r.scriptCacheUsed(), m.bName]));`));
    expect(used()).toEqual([false, 'Failure']);
    node(`const r = await import(${runtime}); r.writeScriptCache();`);
    expect(used()).toEqual([true, 'Failure']);
    const good = readFileSync(cache);
    writeFileSync(cache, good.subarray(0, good.length >> 1));
    expect(used()).toEqual([false, 'Failure']);
    writeFileSync(cache, Buffer.alloc(good.length, 0x5a));
    expect(used()).toEqual([false, 'Failure']);
  });

  it("takes the cache made under the thread's V8 flags (the heap growth a backtest sets), and refuses the other silently", async () => {
    const dist = await bundledTree('flags');
    const runtime = JSON.stringify(pathToFileURL(path.join(dist, 'src/bundle/script.js')).href);
    const grown = ['--heap-growing-percent=100'];
    const used = (flags: readonly string[]): unknown => JSON.parse(node(`const r = await import(${runtime}); const m = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'src/bundle/index.js')).href)}); console.log(JSON.stringify([r.scriptCacheUsed(), m.bName]));`, ROOT, flags));
    node(`const r = await import(${runtime}); r.writeScriptCache('plain');`);
    expect(used(grown)).toEqual([false, 'Failure']);
    node(`const r = await import(${runtime}); r.writeScriptCache('grown');`, ROOT, grown);
    expect(used(grown)).toEqual([true, 'Failure']);
    expect(used([])).toEqual([true, 'Failure']);
    rmSync(path.join(dist, 'src/bundle/kancil.script.cache'));
    expect(used([])).toEqual([false, 'Failure']);
  });

  it.skipIf(!fresh)('the build writes code caches that V8 takes in a backtest, trading-signals (imported by its plugin) too (needs a fresh `npm run build`)', () => {
    // The CLI sets V8 flags for the replay (cli/replayFlags.ts): a cache compiled after that is refused.
    const preload = path.join(tmp, 'caches.mjs');
    const url = (rel: string): string => JSON.stringify(pathToFileURL(path.join(ROOT, rel)).href);
    writeFileSync(preload, `const [s, v] = [await import(${url('dist/src/bundle/script.js')}), await import(${url('dist/vendor/runtime.js')})];\nprocess.on('exit', () => process.stderr.write(JSON.stringify({ script: s.scriptCacheUsed(), signals: v.usedVendorCache('trading-signals') })));\n`);
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, 'bin/kancil.mjs', 'backtest', 'config/sma-crossover.yaml', '--quiet', '--out', path.join(tmp, 'sma')], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toEqual({ script: true, signals: true });
  });

  it.skipIf(!fresh)("a sweep's worker threads take the code caches of the script and of the packages it loads, started after the CLI set its V8 flags (needs a fresh `npm run build`)", () => {
    // An ES module preload does not reach worker threads on Node 20; a CommonJS one does.
    const preload = path.join(tmp, 'worker-cache.cjs');
    const url = (rel: string): string => JSON.stringify(pathToFileURL(path.join(ROOT, rel)).href);
    writeFileSync(preload, `const { isMainThread } = require('node:worker_threads');\nif (!isMainThread) Promise.all([import(${url('dist/src/bundle/script.js')}), import(${url('dist/vendor/runtime.js')})]).then(([s, v]) => process.stderr.write(\`worker \${JSON.stringify({ script: s.scriptCacheUsed(), zod: v.usedVendorCache('zod'), yaml: v.usedVendorCache('yaml'), pino: v.usedVendorCache('pino') })}\\n\`));\n`);
    const r = spawnSync(process.execPath, ['--require', preload, 'bin/kancil.mjs', 'backtest', 'config/sma-crossover.yaml', '--sweep', 'config/sma-crossover.grid.yaml', '--workers', '2', '--quiet', '--out', path.join(tmp, 'sweep')], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const reports = r.stderr.split('\n').filter((l) => l.startsWith('worker ')).map((l) => JSON.parse(l.slice('worker '.length)) as unknown);
    expect(reports).toEqual([0, 1].map(() => ({ script: true, zod: true, yaml: true, pino: true })));
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
    expect(node(script)).toBe('true');
  });
});
