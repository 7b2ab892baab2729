// Copied by the build to dist/vendor/runtime.js: loads a vendored package's bundle (a CommonJS
// file) with V8's cache of its compiled code, which the build wrote beside it. Node 20 has no
// compile cache for modules, and compiling zod alone is ~15 ms of every start. V8 refuses a cache
// made under other V8 flags or another Node (the bundle then compiles as usual); the build writes
// bundle and cache together, so they always match. A sweep's worker threads start after the CLI
// has set its V8 flags (cli/replayFlags.ts): the build writes a second cache under those flags
// (`<name>.grown.cache`), and each thread takes the cache made under its flags.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Bytes 12..16 of V8's code-cache header hold the hash of the flags the cache was made under. */
const flagHash = (data) => data.subarray(12, 16);

/** The flag hash a cache made now, under this thread's V8 flags, would carry. */
export const currentFlagHash = () => flagHash(new vm.Script('0').createCachedData());

/** Of the cache `files` (V8's default flags first), the one made under this thread's V8 flags, else the first found (V8 refuses it, the code compiles as usual); undefined when none is found. */
export function cacheForFlags(files) {
  // Asked at each load: the CLI may set its V8 flags between two (a plugin's package).
  const current = currentFlagHash();
  let first;
  for (const file of files) {
    let data;
    try {
      data = readFileSync(file);
    } catch {
      continue;
    }
    if (flagHash(data).equals(current)) return data;
    first ??= data;
  }
  return first;
}

/** The cache file of `name` in `dir` made under V8's default flags ('plain') or the flags a backtest sets ('grown', cli/replayFlags.ts). */
export const cacheFile = (dir, name, variant) => path.join(dir, variant === 'grown' ? `${name}.grown.cache` : `${name}.cache`);

const scripts = new Map();
const loaded = new Map();

/** The exports of the vendored bundle `<name>.cjs`, compiled from `<name>.cache` when V8 accepts it; once per thread (its facade and the one-script bundle share them). */
export function loadVendored(name) {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  const file = path.join(here, `${name}.cjs`);
  const cachedData = cacheForFlags([cacheFile(here, name, 'plain'), cacheFile(here, name, 'grown')]);
  // ASCII-only (bin/ascii-output.mjs): latin1 reads the same text without UTF-8's decoding.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'latin1')}\n})`;
  const script = new vm.Script(source, { filename: file, cachedData });
  scripts.set(name, script);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, here);
  loaded.set(name, module.exports);
  return module.exports;
}

/** Writes the code cache of every bundle loaded so far (with the functions run so far compiled in), made under the current V8 flags (`variant`: 'plain' or 'grown'); used by the build. */
export function writeVendorCaches(variant = 'plain') {
  for (const [name, script] of scripts) writeFileSync(cacheFile(here, name, variant), script.createCachedData());
  return [...scripts.keys()];
}

/** Whether V8 took the code cache of bundle `name` (loaded in this thread); false when there was none or it was refused. */
export function usedVendorCache(name) {
  const script = scripts.get(name);
  return script !== undefined && script.cachedDataRejected === false;
}
