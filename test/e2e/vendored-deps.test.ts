/**
 * The build bundles zod, yaml, pino and trading-signals (many small modules each) into one file
 * each under dist/vendor, loaded with V8's code cache, and points the compiled imports there
 * (bin/vendor-deps.mjs): the bundles must export what the packages export, their caches must be
 * taken, and no compiled module may still import the packages themselves.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtIsFresh } from './builtFresh.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-vendored-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fresh = builtIsFresh();

interface VendorDeps {
  readonly VENDORED: readonly string[];
  linkVendored(dist: string): string[];
}
const vendorDeps = async (): Promise<VendorDeps> => (await import(pathToFileURL(path.join(ROOT, 'bin/vendor-deps.mjs')).href)) as VendorDeps;

/** The .js files under `dir`, but dist/vendor. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !f.startsWith(path.join(dir, 'vendor')));
}

describe('vendored packages', () => {
  it('imports of zod and yaml point at the bundles, by a path relative to each module', async () => {
    const { linkVendored } = await vendorDeps();
    const dist = path.join(tmp, 'dist');
    mkdirSync(path.join(dist, 'src/config'), { recursive: true });
    writeFileSync(path.join(dist, 'src/config/a.js'), `import { z } from 'zod';\nimport { parseDocument } from "yaml";\nimport { x } from 'zod-extra';\nimport { y } from 'yaml/util';\n`);
    writeFileSync(path.join(dist, 'src/index.js'), `export { z } from 'zod';\nconst y = await import('yaml');\n`);
    writeFileSync(path.join(dist, 'src/b.js'), `import { Decimal } from 'decimal.js';\n`);
    expect(linkVendored(dist)).toEqual([path.join('src', 'config', 'a.js'), path.join('src', 'index.js')]);
    expect(readFileSync(path.join(dist, 'src/config/a.js'), 'utf8')).toBe(`import { z } from '../../vendor/zod.js';\nimport { parseDocument } from "../../vendor/yaml.js";\nimport { x } from 'zod-extra';\nimport { y } from 'yaml/util';\n`);
    expect(readFileSync(path.join(dist, 'src/index.js'), 'utf8')).toBe(`export { z } from '../vendor/zod.js';\nconst y = await import('../vendor/yaml.js');\n`);
    // Linking twice changes nothing.
    expect(linkVendored(dist)).toEqual([]);
  });

  it.skipIf(!fresh)('the built bundles export what the packages do (names and kinds), with their code caches taken, and no compiled module imports the packages (needs a fresh `npm run build`)', async () => {
    const { VENDORED } = await vendorDeps();
    const script = `
const vendor = ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/vendor')).href)};
const { usedVendorCache } = await import(vendor + '/runtime.js');
const out = {};
for (const p of ${JSON.stringify(VENDORED)}) {
  const [pkg, bundle] = [await import(p), await import(vendor + '/' + p + '.js')];
  const kinds = (ns) => Object.keys(ns).filter((k) => k !== '__esModule').sort().map((k) => k + ':' + typeof ns[k]);
  out[p] = { pkg: kinds(pkg), bundle: kinds(bundle), cached: usedVendorCache(p) };
}
console.log(JSON.stringify(out));
`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as Record<string, { pkg: string[]; bundle: string[]; cached: boolean }>;
    for (const p of VENDORED) {
      expect(out[p]?.bundle, p).toEqual(out[p]?.pkg);
      expect(out[p]?.cached, `${p}: code cache taken`).toBe(true);
      expect(out[p]?.bundle.length, p).toBeGreaterThan(1);
    }
    const bare = new RegExp(`(from\\s*|import\\s*\\(?\\s*)['"](${VENDORED.join('|')})['"]`);
    expect(jsFiles(path.join(ROOT, 'dist')).filter((f) => bare.test(readFileSync(f, 'utf8')))).toEqual([]);
  });

  it.skipIf(!fresh)("pino's bundle loads node:assert at its first call, not with the bundle (needs a fresh `npm run build`)", () => {
    const script = `
const pino = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/vendor/pino.js')).href)});
const loaded = () => process.moduleLoadList.includes('NativeModule assert');
const atImport = loaded();
const d = pino.destination({ dest: ${JSON.stringify(path.join(tmp, 'pino.log'))}, sync: true });
d.write('x\\n');
d.on('close', () => console.log(JSON.stringify([atImport, loaded()])));
d.end();
`;
    // Closing a destination asserts on its fd: the stand-in loads node:assert then and calls it.
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }))).toEqual([false, true]);
  });
});
