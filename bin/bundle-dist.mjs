// Step of `npm run build`, after tsc and the vendoring: bundles the compiled modules the package's
// entries reach (the CLI, `kancil`, `kancil/testing`, `kancil/indicators`, the sweep's worker
// thread) into ONE script, dist/src/bundle/kancil.script.js, which script.js (copied from
// bin/script-runtime.mjs) runs with V8's cache of its compiled code. Node reads, resolves,
// compiles and links every module file on its own (tsc writes ~420; ~0.1 s of a short backtest's
// 0.45 s when they were loaded one by one), and Node 20 caches the compiled code of no ES module:
// the bundle as ES module chunks still compiled them all at every start, and the functions a
// backtest runs lazily at their first call. The cache is written after a backtest has run through
// the script (warmScriptCache), so those functions come compiled from it (~20 % of a short
// backtest's CPU against the chunks, measured side by side).
// Each entry becomes a small ES module taking its exports from the script, so the CLI and the
// plugins it loads (their `kancil` is the bundle's index.js, through the package's `exports` and
// bin/build-finish.mjs) share one copy of every class. A module imported lazily stays lazy: run
// when imported, compiled at its first call (a backtest still starts no exchange client, console
// or queue). The folder is two levels under dist/ as tsc's modules are, so paths relative to
// `import.meta.url` (the script's) resolve the same. Packages stay external (required), but
// decimal.js, whose ES module a plugin gets (another class than its CommonJS twin), and the
// vendored bundles: the script takes those from script.js, the very objects a plugin's import
// gives. Names are kept: errors report `new.target.name`. The unbundled modules stay beside it
// (tests, and `node dist/src/cli/main.js`, import them).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asciiOutputs } from './ascii-output.mjs';
import { currentFlagHash } from './vendor-runtime.mjs';

/** The modules bundled, relative to dist/src, each standing as `<basename>.js` in the bundle's folder. */
export const BUNDLE_ENTRIES = ['cli/main', 'index', 'testing', 'indicators', 'backtest/sweepWorker'];

/** The bundle's folder under dist. */
export const BUNDLE_DIR = 'src/bundle';

/** The script, its code caches (V8's default flags, the flags a backtest sets) and its runtime, in the bundle's folder. */
export const SCRIPT_FILES = { script: 'kancil.script.js', cache: 'kancil.script.cache', grownCache: 'kancil.script.grown.cache', runtime: 'script.js' };

/** How each entry is taken from the script's exports: at once (a namespace) or loaded when imported (a function), or run (the worker). */
const ENTRY_EXPORTS = { 'cli/main': 'cli', index: 'index', testing: 'testing', indicators: 'indicators', 'backtest/sweepWorker': 'sweepWorker' };
const LAZY = new Set(['testing', 'indicators', 'backtest/sweepWorker']);

/** Packages the script takes from script.js instead of require: a plugin must see the same objects. */
const SHARED_PACKAGES = ['decimal.js'];

const RUNTIME = fileURLToPath(new URL('./script-runtime.mjs', import.meta.url));

/** The script's entry: the CLI and `kancil` at once, the rest when asked for. */
function entrySource() {
  return BUNDLE_ENTRIES.map((e) => (LAZY.has(e) ? `export const ${ENTRY_EXPORTS[e]} = () => import('./${e}.js');` : `export * as ${ENTRY_EXPORTS[e]} from './${e}.js';`)).join('\n');
}

/** Export names (but `default`) and whether there is a default, of the module at `url`. */
async function exportsOf(url) {
  const ns = await import(url);
  return { names: Object.keys(ns).filter((k) => k !== 'default' && k !== '__esModule'), hasDefault: 'default' in ns };
}

/** ES module text exporting `names` (and default) of the object `expr` (names may be reserved words: zod's `enum`). */
function reexports(expr, { names, hasDefault }) {
  const lines = [`const m = ${expr};`];
  names.forEach((n, i) => lines.push(`const v${i} = m[${JSON.stringify(n)}];`));
  if (names.length > 0) lines.push(`export { ${names.map((n, i) => `v${i} as ${n}`).join(', ')} };`);
  if (hasDefault) lines.push('export default m.default;');
  return `${lines.join('\n')}\n`;
}

/**
 * Resolves decimal.js and the vendored bundles to modules reading them from script.js
 * (`__kancilShared`), and strategy/importModule.js to the runtime's import(): a script cannot call
 * import() itself (V8 drops its callback with the code cache).
 */
function scriptHooks(dist) {
  const vendor = path.join(dist, 'vendor');
  return {
    name: 'kancil-script',
    setup(b) {
      b.onResolve({ filter: /^decimal\.js$|\/vendor\// }, (a) => {
        if (SHARED_PACKAGES.includes(a.path)) return { path: a.path, namespace: 'kancil-shared', pluginData: import.meta.resolve(a.path) };
        const abs = path.resolve(a.resolveDir, a.path);
        return path.dirname(abs) === vendor ? { path: path.basename(abs, '.js'), namespace: 'kancil-shared', pluginData: pathToFileURL(abs).href } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'kancil-shared' }, async (a) => ({ contents: reexports(`__kancilShared(${JSON.stringify(a.path)})`, await exportsOf(a.pluginData)), loader: 'js' }));
      b.onLoad({ filter: /[\\/]strategy[\\/]importModule\.js$/ }, () => ({ contents: 'export const importModule = (specifier) => __kancilImport(specifier);\n', loader: 'js' }));
    },
  };
}

/** The ES module standing for entry `e` in the bundle's folder. */
async function facade(dist, e) {
  const head = "import { kancil } from './script.js';\n\n";
  if (e === 'backtest/sweepWorker') return `${head}await kancil.${ENTRY_EXPORTS[e]}();\n`;
  const shape = await exportsOf(pathToFileURL(path.join(dist, 'src', `${e}.js`)).href);
  return head + reexports(LAZY.has(e) ? `await kancil.${ENTRY_EXPORTS[e]}()` : `kancil.${ENTRY_EXPORTS[e]}`, shape);
}

/** Writes the script of `<dist>/src`'s entries, its runtime and the entries' modules into `<dist>/src/bundle` (emptied first: no cache of an older script stays); returns the files written. */
export async function bundleDist(dist) {
  const { build } = await import('esbuild');
  const out = path.join(dist, BUNDLE_DIR);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    stdin: { contents: entrySource(), resolveDir: path.join(dist, 'src'), sourcefile: 'kancil.script.entry.js' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    outfile: path.join(out, SCRIPT_FILES.script),
    define: { KANCIL_BUNDLED: 'true', 'import.meta.url': '__kancilUrl' },
    plugins: [scriptHooks(dist)],
    logLevel: 'warning',
  });
  await asciiOutputs([path.join(out, SCRIPT_FILES.script)]);
  copyFileSync(RUNTIME, path.join(out, SCRIPT_FILES.runtime));
  for (const e of BUNDLE_ENTRIES) writeFileSync(path.join(out, `${path.basename(e)}.js`), await facade(dist, e));
  return readdirSync(out).sort();
}

/**
 * Runs a backtest of each of `configs` through the script (its output thrown away), then writes the
 * script's code caches. V8 takes a cache only under the flags it was made with: the backtest sets
 * its V8 flags (cli/replayFlags.ts), as a sweep does before its threads start; one cache is
 * written under those flags, then, the flags reset, one under V8's defaults.
 */
async function warm(dist, configs) {
  const defaults = currentFlagHash();
  const { kancil, writeScriptCache } = await import(pathToFileURL(path.join(dist, BUNDLE_DIR, SCRIPT_FILES.runtime)).href);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-warm-'));
  try {
    const io = { stdout: () => {}, stderr: (t) => process.stderr.write(t), env: process.env };
    for (const config of configs) {
      const code = await kancil.cli.runCli(['backtest', config, '--quiet', '--out', tmp], io);
      if (code !== 0) throw new Error(`the warm-up backtest of ${config} exited ${code}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // The vendored bundles' caches too: the backtests ran more of zod, yaml and pino (a plugin's
  // params, child loggers) than the build's config check (bin/vendor-deps.mjs), whose functions
  // come compiled from the caches they were loaded with.
  const { writeVendorCaches } = await import(pathToFileURL(path.join(dist, 'vendor', 'runtime.js')).href);
  writeScriptCache('grown');
  writeVendorCaches('grown');
  const { setFlagsFromString } = await import('node:v8');
  const { REPLAY_FLAG_DEFAULTS } = await import(pathToFileURL(path.join(dist, 'src', 'cli', 'replayFlags.js')).href);
  for (const [flag, value] of REPLAY_FLAG_DEFAULTS) setFlagsFromString(`${flag}=${value}`);
  // A default written wrong (another Node) would leave every start without its cache, silently.
  if (!currentFlagHash().equals(defaults)) throw new Error(`resetting ${REPLAY_FLAG_DEFAULTS.map(([f]) => f).join(', ')} to REPLAY_FLAG_DEFAULTS (src/cli/replayFlags.ts) did not restore V8's default flags: is a default different in this Node?`);
  writeScriptCache('plain');
  writeVendorCaches('plain');
}

/** Writes the script's code cache, warmed by backtests of `configs`, in a child process of Node's default V8 flags (without NODE_OPTIONS). */
export function warmScriptCache(dist, configs) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), dist, ...configs], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`writing the script's code cache failed:\n${r.stderr}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dist, ...configs] = process.argv.slice(2);
  await warm(dist, configs);
}
