// Step of `npm run build`: bundles the packages that come as many small modules (zod ~100 files,
// yaml ~70, pino and its dependencies ~35, trading-signals ~190) into one file each under
// dist/vendor, and points the compiled modules' imports of them there. Node reads, resolves and
// compiles every module file separately, so one file per package saves ~40 ms CPU at every start
// of the CLI (trading-signals alone ~0.1 s of a run whose strategy computes an indicator). Each
// bundle is CommonJS behind a small ES module (`<pkg>.js`, the same named exports), loaded by
// vendor-runtime.mjs with V8's cache of its compiled code, written after the build has run a
// config load, a log line and two indicators through it (~20 ms less again). pino's transports
// (worker threads started from its files) are not used here, and would not work from the bundle.
// A plugin's `trading-signals` is the bundle too (linked here, or mapped by the plugin hooks for
// one outside the tree: strategy/loader.ts), so its classes and errors are kancil's. Packages
// whose classes a plugin may pass to kancil (decimal.js, rxjs) stay unbundled.
// The sources (and tsx runs) keep the packages.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asciiOutputs } from './ascii-output.mjs';

/** The packages bundled, each imported only by its bare name. */
export const VENDORED = ['zod', 'yaml', 'pino', 'trading-signals'];

const RUNTIME = fileURLToPath(new URL('./vendor-runtime.mjs', import.meta.url));

/**
 * Node modules a bundle requires when it loads but calls only later, loaded at their first use:
 * pino's stream modules take node:assert (~12 M instructions, ~2 ms of every start) for checks
 * of streams kancil does not create (sonic-boom, thread-stream).
 */
const LAZY_BUILTINS = /^(?:node:)?(assert)$/;

/** Resolves the {@link LAZY_BUILTINS} to a stand-in that requires the module at its first call or property read. */
function lazyBuiltins() {
  return {
    name: 'kancil-lazy-builtins',
    setup(b) {
      // The stand-in's own require is the module itself.
      b.onResolve({ filter: LAZY_BUILTINS }, (a) => (a.namespace === 'kancil-lazy-builtin' ? { path: a.path, external: true } : { path: LAZY_BUILTINS.exec(a.path)[1], namespace: 'kancil-lazy-builtin' }));
      b.onLoad({ filter: /.*/, namespace: 'kancil-lazy-builtin' }, (a) => ({
        contents: `let m;\nconst get = () => (m ??= require('node:${a.path}'));\nmodule.exports = new Proxy(function () {}, { apply: (_, self, args) => Reflect.apply(get(), self, args), get: (_, key) => get()[key] });\n`,
        loader: 'js',
      }));
    },
  };
}

/** The export names of `pkg` but the default (CommonJS packages included). */
async function exportNames(pkg) {
  // This file sits in the project, so Node resolves `pkg` as the compiled modules do.
  const ns = await import(pkg);
  return { names: Object.keys(ns).filter((k) => k !== 'default' && k !== '__esModule'), hasDefault: 'default' in ns };
}

/** The ES module standing for the bundle of `pkg`: its named exports (and default) taken from the loaded bundle. */
function facade(pkg, names, hasDefault) {
  const lines = ["import { loadVendored } from './runtime.js';", '', `const m = loadVendored(${JSON.stringify(pkg)});`];
  names.forEach((n, i) => lines.push(`const v${i} = m[${JSON.stringify(n)}];`));
  lines.push(`export { ${names.map((n, i) => `v${i} as ${n}`).join(', ')} };`);
  if (hasDefault) lines.push('export default m.default;');
  return `${lines.join('\n')}\n`;
}

/** Writes `<dist>/vendor/<pkg>.cjs` (bundled from `root`'s node_modules) and its ES module `<pkg>.js` for each vendored package, and the runtime. */
export async function bundleVendored(dist, root) {
  const { build } = await import('esbuild');
  const dir = path.join(dist, 'vendor');
  for (const pkg of VENDORED) {
    const { names, hasDefault } = await exportNames(pkg);
    const reexport = `export { ${names.join(', ')} } from '${pkg}';\n${hasDefault ? `export { default } from '${pkg}';\n` : ''}`;
    await build({
      stdin: { contents: reexport, resolveDir: root, sourcefile: `${pkg}.vendor.js` },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      outfile: path.join(dir, `${pkg}.cjs`),
      plugins: [lazyBuiltins()],
      logLevel: 'warning',
    });
    writeFileSync(path.join(dir, `${pkg}.js`), facade(pkg, names, hasDefault));
  }
  await asciiOutputs(VENDORED.map((pkg) => path.join(dir, `${pkg}.cjs`)));
  copyFileSync(RUNTIME, path.join(dir, 'runtime.js'));
}

/** Rewrites the imports of vendored packages in `text` (a module at `file` under `dist`) to the bundles. */
export function linkVendoredText(text, file, dist) {
  const names = VENDORED.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const re = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(?\\s*)(['"])(${names})\\2`, 'g');
  return text.replace(re, (_, lead, q, pkg) => {
    let rel = path.relative(path.dirname(file), path.join(dist, 'vendor', `${pkg}.js`)).split(path.sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${lead}${q}${rel}${q}`;
  });
}

/** Points the imports of vendored packages in every .js file under `dist` (but dist/vendor) at the bundles; returns the files changed. */
export function linkVendored(dist) {
  const changed = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (file !== path.join(dist, 'vendor')) walk(file);
      } else if (e.name.endsWith('.js')) {
        const text = readFileSync(file, 'utf8');
        const linked = linkVendoredText(text, file, dist);
        if (linked !== text) {
          writeFileSync(file, linked);
          changed.push(path.relative(dist, file));
        }
      }
    }
  };
  walk(dist);
  return changed.sort();
}

/**
 * Validates the project's example configs through the compiled config modules, logs a line
 * through the run logger and feeds two indicators, then writes the bundles' code caches: the
 * functions a start runs are then compiled in the caches too (one under V8's default flags, one under the V8 flags a sweep sets). A config that does not validate
 * still runs the code; nothing is reported. Run in a process of Node's default V8 flags (V8 takes a cache only under the flags it
 * was made with).
 */
async function cacheCompiledCode(dist, root) {
  const runtime = await import(pathToFileURL(path.join(dist, 'vendor', 'runtime.js')).href);
  const { parseConfig } = await import(pathToFileURL(path.join(dist, 'src', 'config', 'loadConfig.js')).href);
  const configs = path.join(root, 'config');
  for (const name of readdirSync(configs).filter((n) => n.endsWith('.yaml') && !n.includes('.grid.'))) {
    try {
      parseConfig(readFileSync(path.join(configs, name), 'utf8'), path.join(configs, name));
    } catch {
      // Only the code it ran matters here.
    }
  }
  const { createLogger } = await import(pathToFileURL(path.join(dist, 'src', 'config', 'logger.js')).href);
  createLogger({ pretty: false, secrets: ['not-a-secret'], destination: { write: () => true } }).info({ apiKey: 'k', nested: { token: 't' } }, 'code cache');
  const { SMA, EMA } = await import(pathToFileURL(path.join(dist, 'src', 'indicators.js')).href);
  for (const ind of [new SMA(2), new EMA(2)]) for (const price of [1, 2, 3]) ind.update(price, false);
  runtime.writeVendorCaches('plain');
  // Then under the V8 flags the CLI sets before a sweep starts its threads.
  const { setReplayFlags } = await import(pathToFileURL(path.join(dist, 'src', 'cli', 'replayFlags.js')).href);
  setReplayFlags();
  return runtime.writeVendorCaches('grown');
}

/** Writes the code caches of the bundled packages (in a child process without NODE_OPTIONS); returns the packages cached. */
export function writeCodeCaches(dist, root) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), dist, root], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`writing the vendored code caches failed:\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dist, root] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await cacheCompiledCode(dist, root)));
}
