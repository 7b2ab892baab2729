/**
 * The identity of a strategy's code for queued sweep jobs: a hash of its source file and of every
 * local module it imports, transitively. A sweep re-run after a change in a helper module the
 * strategy imports must run again, not be answered from Redis with results of the old code.
 * Packages (bare specifiers) are not followed: they are pinned by the project's lockfile, and
 * kancil itself by the version in each job's id.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Static imports and re-exports, side-effect imports, dynamic imports and require of a literal
// relative path. A match inside a comment at worst adds a file to the hash.
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** ESM sources name a TypeScript module by its compiled name (`./x.js` for `./x.ts`). */
const ALTERNATES: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '': ['.ts', '.js', '.mjs', '/index.ts', '/index.js'] };

function isFile(f: string): boolean {
  return existsSync(f) && statSync(f).isFile();
}

/** The file a relative specifier names, or undefined when none is found (left out of the hash). */
function resolveLocal(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  if (isFile(base)) return base;
  const ext = path.extname(base);
  const stem = ext in ALTERNATES ? base.slice(0, base.length - ext.length) : base;
  for (const alt of ALTERNATES[ext in ALTERNATES ? ext : ''] ?? []) if (isFile(stem + alt)) return stem + alt;
  return undefined;
}

/** The local modules `file` imports, transitively, itself first, then in the order found. */
export function localModules(file: string): string[] {
  const seen = new Set<string>([path.resolve(file)]);
  const queue = [path.resolve(file)];
  for (let i = 0; i < queue.length; i++) {
    const f = queue[i] as string;
    for (const m of readFileSync(f, 'utf8').matchAll(SPECIFIERS)) {
      const dep = resolveLocal(f, m[2] as string);
      if (dep !== undefined && !seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return queue;
}

/** Hash of a strategy's source and its local imports (paths relative to the strategy's folder, so a checkout elsewhere hashes the same). */
export function sourceHash(file: string): string {
  const root = path.dirname(path.resolve(file));
  const h = createHash('sha256');
  for (const f of localModules(file).sort()) h.update(`${path.relative(root, f)}\0`).update(readFileSync(f)).update('\0');
  return h.digest('hex').slice(0, 32);
}
