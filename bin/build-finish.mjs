// Last step of `npm run build` (after tsc). The compiled example strategies in dist/strategies
// import `kancil` by its package name, which the package's `exports` resolve by condition (the
// TypeScript sources under `kancil-source`); pointing those imports at the compiled modules by
// path lets the compiled CLI load its own strategies whatever the conditions, without module
// hooks (their loader thread costs ~0.06 s CPU at every start).
// The packages made of many small modules are bundled into dist/vendor (vendor-deps.mjs), and the
// compiled modules the entries reach into one script in dist/src/bundle with its code cache,
// warmed by a backtest of config/market-maker.yaml (bundle-dist.mjs), which is what the CLI, the
// package's `exports` and the linked strategies load. Then dist/BUILT records when the
// build finished (bin/kancil.mjs compares it with the sources).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleDist, warmScriptCache } from './bundle-dist.mjs';
import { bundleVendored, linkVendored, writeCodeCaches } from './vendor-deps.mjs';

// An incremental tsc leaves a strategy it did not recompile as the last build linked it: to the
// unbundled entries of builds before the bundle.
const UNBUNDLED = { '../src/index.js': 'kancil', '../src/testing.js': 'kancil/testing', '../src/indicators.js': 'kancil/indicators' };
const TARGETS = { kancil: '../src/bundle/index.js', 'kancil/testing': '../src/bundle/testing.js', 'kancil/indicators': '../src/bundle/indicators.js' };

/** Rewrites `kancil`, `kancil/testing` and `kancil/indicators` imports of the .js files in `<dist>/strategies`; returns the files changed. */
export function linkCompiledStrategies(dist) {
  const dir = `${dist}/strategies`;
  const changed = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.js')) continue;
    const file = `${dir}/${name}`;
    const text = readFileSync(file, 'utf8');
    const linked = text.replace(/(\bfrom\s*|\bimport\s*\(?\s*)(['"])(kancil(?:\/testing|\/indicators)?|\.\.\/src\/(?:index|testing|indicators)\.js)\2/g, (_, lead, q, spec) => `${lead}${q}${TARGETS[spec] ?? TARGETS[UNBUNDLED[spec]]}${q}`);
    if (linked !== text) {
      writeFileSync(file, linked);
      changed.push(name);
    }
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = fileURLToPath(new URL('../dist', import.meta.url));
  linkCompiledStrategies(dist);
  const root = fileURLToPath(new URL('..', import.meta.url));
  await bundleVendored(dist, root);
  linkVendored(dist);
  await bundleDist(dist);
  writeCodeCaches(dist, root);
  warmScriptCache(dist, ['market-maker', 'sma-crossover'].map((c) => `${root}config/${c}.yaml`));
  writeFileSync(`${dist}/BUILT`, `${new Date().toISOString()}\n`);
}
