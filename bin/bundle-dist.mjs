// Step of `npm run build`, after tsc and the vendoring: bundles the compiled modules the package's
// entries reach (the CLI, `kancil`, `kancil/testing`, `kancil/indicators`, the sweep's worker
// thread) into dist/src/bundle, a few dozen files where tsc writes ~420. Node reads, resolves,
// compiles and links every module file on its own, which was most of a short backtest's CPU
// (~0.1 s of 0.45 s at every start, measured side by side). The entries share their chunks, so
// the CLI and the plugins it loads (their `kancil` is the bundle's index.js, through the package's
// `exports` and bin/build-finish.mjs) keep one copy of every class; a module imported lazily is a
// chunk loaded when it is imported, so a backtest still loads no exchange client, console or queue.
// The folder is two levels under dist/ as tsc's modules are, so their paths relative to
// `import.meta.url` (the project root, package.json, node_modules) resolve the same from it.
// Packages stay external (a plugin shares decimal.js and rxjs with kancil), as do the vendored
// bundles (loaded with their code caches). Names are kept: errors report `new.target.name`.
// The unbundled modules stay beside it (tests, and `node dist/src/cli/main.js`, import them).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { asciiOutputs } from './ascii-output.mjs';

/** The modules bundled, relative to dist/src, each written as `<basename>.js` in the bundle. */
export const BUNDLE_ENTRIES = ['cli/main', 'index', 'testing', 'indicators', 'backtest/sweepWorker'];

/** The bundle's folder under dist. */
export const BUNDLE_DIR = 'src/bundle';

/** Keeps imports of the vendored bundles (dist/vendor) external, pointed at them from the bundle's folder. */
function vendorExternal(dist, out) {
  const vendor = path.join(dist, 'vendor');
  return {
    name: 'kancil-vendor-external',
    setup(b) {
      b.onResolve({ filter: /\/vendor\// }, (a) => {
        const abs = path.resolve(a.resolveDir, a.path);
        if (path.dirname(abs) !== vendor) return undefined;
        return { path: path.relative(out, abs).split(path.sep).join('/'), external: true };
      });
    },
  };
}

/** Writes the bundle of `<dist>/src`'s entries into `<dist>/src/bundle` (emptied first: a chunk's name carries its hash); returns the files written. */
export async function bundleDist(dist) {
  const { build } = await import('esbuild');
  const out = path.join(dist, BUNDLE_DIR);
  rmSync(out, { recursive: true, force: true });
  const result = await build({
    entryPoints: BUNDLE_ENTRIES.map((e) => path.join(dist, 'src', `${e}.js`)),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    outdir: out,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    define: { KANCIL_BUNDLED: 'true' },
    plugins: [vendorExternal(dist, out)],
    metafile: true,
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((f) => path.resolve(f));
  await asciiOutputs(files.filter((f) => f.endsWith('.js')));
  return files.map((f) => path.relative(out, f)).sort();
}
