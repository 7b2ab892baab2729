// Step of `npm run build`: bundles the packages that come as many small modules (zod ~100 files,
// yaml ~70) into one ES module each under dist/vendor, and points the compiled modules' imports of
// them there. Node reads, resolves and compiles every module file separately, so one file per
// package saves ~40 ms CPU at every start of the CLI. The sources (and tsx runs) keep the packages.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The packages bundled, each imported only by its bare name. */
export const VENDORED = ['zod', 'yaml'];

/** The source of a module re-exporting every export of `pkg` by name (CommonJS packages included). */
async function reexports(pkg) {
  // This file sits in the project, so Node resolves `pkg` as the compiled modules do.
  const ns = await import(pkg);
  const names = Object.keys(ns).filter((k) => k !== 'default' && k !== '__esModule');
  const lines = [`export { ${names.join(', ')} } from '${pkg}';`];
  if ('default' in ns) lines.push(`export { default } from '${pkg}';`);
  return `${lines.join('\n')}\n`;
}

/** Writes `<dist>/vendor/<pkg>.js` for each vendored package, bundled from `root`'s node_modules. */
export async function bundleVendored(dist, root) {
  const { build } = await import('esbuild');
  for (const pkg of VENDORED) {
    await build({
      stdin: { contents: await reexports(pkg), resolveDir: root, sourcefile: `${pkg}.vendor.js` },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outfile: path.join(dist, 'vendor', `${pkg}.js`),
      // A bundled CommonJS module's require() of Node built-ins needs a real require.
      banner: { js: "import { createRequire as __vendorRequire } from 'node:module';\nconst require = __vendorRequire(import.meta.url);" },
      logLevel: 'warning',
    });
  }
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
