// Copied by the build to dist/vendor/runtime.js: loads a vendored package's bundle (a CommonJS
// file) with V8's cache of its compiled code, which the build wrote beside it. Node 20 has no
// compile cache for modules, and compiling zod alone is ~15 ms of every start. V8 refuses a cache
// made under other V8 flags or another Node (the bundle then compiles as usual); the build writes
// bundle and cache together, so they always match.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = path.dirname(fileURLToPath(import.meta.url));
const scripts = new Map();
const loaded = new Map();

/** The exports of the vendored bundle `<name>.cjs`, compiled from `<name>.cache` when V8 accepts it; once per thread (its facade and the one-script bundle share them). */
export function loadVendored(name) {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  const file = path.join(here, `${name}.cjs`);
  let cachedData;
  try {
    cachedData = readFileSync(path.join(here, `${name}.cache`));
  } catch {
    cachedData = undefined;
  }
  // ASCII-only (bin/ascii-output.mjs): latin1 reads the same text without UTF-8's decoding.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'latin1')}\n})`;
  const script = new vm.Script(source, { filename: file, cachedData });
  scripts.set(name, script);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, here);
  loaded.set(name, module.exports);
  return module.exports;
}

/** Writes the code cache of every bundle loaded so far (with the functions run so far compiled in); used by the build. */
export function writeVendorCaches() {
  for (const [name, script] of scripts) writeFileSync(path.join(here, `${name}.cache`), script.createCachedData());
  return [...scripts.keys()];
}

/** Whether V8 took the code cache of bundle `name` (loaded in this thread); false when there was none or it was refused. */
export function usedVendorCache(name) {
  const script = scripts.get(name);
  return script !== undefined && script.cachedDataRejected === false;
}
