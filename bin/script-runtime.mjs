// Copied by the build to dist/src/bundle/script.js: runs the one-script bundle of kancil
// (bin/bundle-dist.mjs) with V8's cache of its compiled code, once per thread, and hands out its
// exports (the CLI, `kancil`, `kancil/testing`, `kancil/indicators`, the sweep's worker). The
// build writes the cache after a backtest has run through the script, so the functions a start
// runs are compiled in it. V8 refuses a cache made under other V8 flags or another Node, or
// truncated; the script then compiles as usual (`scriptCacheUsed()` says which). A backtest or a
// sweep sets its V8 flags (cli/replayFlags.ts) before a sweep starts its threads, so the build
// writes a second cache under those flags, and each thread takes the cache made under its flags.
import * as decimal from 'decimal.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { cacheFile, cacheForFlags, loadVendored } from '../../vendor/runtime.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = 'kancil.script';
const file = path.join(here, `${SCRIPT}.js`);
let cachedData = cacheForFlags([cacheFile(here, SCRIPT, 'plain'), cacheFile(here, SCRIPT, 'grown')]);
const hadCache = cachedData !== undefined;
// The packages a plugin imports as ES modules too: the script must use that copy (decimal.js has a
// CommonJS twin, the vendored bundles are loaded once per thread).
const shared = (id) => (id === 'decimal.js' ? decimal : loadVendored(id));
// The build writes the script ASCII-only (bin/ascii-output.mjs): read as latin1, the same text
// without UTF-8's decoding (~3 ms of its 1.8 MB at every start).
const source = `(function (exports, require, module, __filename, __dirname, __kancilUrl, __kancilShared, __kancilImport) {${readFileSync(file, 'latin1')}\n})`;
const script = new vm.Script(source, { filename: file, cachedData });
const module = { exports: {} };
// V8 has taken what it needs of the cache (1.2 MB): do not keep it.
cachedData = undefined;
script.runInThisContext()(module.exports, createRequire(file), module, file, here, pathToFileURL(file).href, shared, (specifier) => import(specifier));

/** The script's exports: `cli`, `index` (namespaces), `testing`, `indicators`, `sweepWorker` (loaders). */
export const kancil = module.exports;

/** Whether V8 took the script's code cache in this thread. */
export function scriptCacheUsed() {
  return hadCache && script.cachedDataRejected === false;
}

/** Writes the script's code cache, made under the current V8 flags, with every function compiled so far; used by the build (`variant`: 'plain' or 'grown'). */
export function writeScriptCache(variant = 'plain') {
  writeFileSync(cacheFile(here, SCRIPT, variant), script.createCachedData());
}
