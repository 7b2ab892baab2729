/**
 * The identity of the engine a queue job runs on: a SHA-256 over kancil's own code as this process
 * runs it (the compiled `dist/src` and `dist/vendor` JavaScript, or the `src/` TypeScript when run
 * through tsx) plus package.json and package-lock.json (the version and the pinned dependencies).
 * Two builds with the same version number but other code (a worker ten hours older) differ here,
 * so their jobs have different ids and neither runs the other's. Strategies are not part of it:
 * each job names its strategy module's own hash (sourceHash.ts). Computed once per process
 * (a few MB read, tens of ms).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../strategy/loader.js';

/** What a job records of the engine that enqueued it, and a worker of the one it runs. */
export interface EngineId {
  /** SHA-256 (hex) of the code, see the module comment. */
  readonly hash: string;
  /** kancil's package version, for messages (the hash decides). */
  readonly version: string;
  /** How the code ran: compiled JavaScript or the TypeScript sources. */
  readonly from: 'dist' | 'src';
}

/** Files of the engine under `dir` (relative to `root`): code only, tests and fixtures left out. */
function codeFiles(root: string, dir: string, ext: RegExp): string[] {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'test-plugins' && e.name !== 'node_modules') out.push(...codeFiles(root, rel, ext));
    } else if (ext.test(e.name) && !/\.test\.[mc]?[jt]s$/.test(e.name)) out.push(rel);
  }
  return out;
}

/**
 * Hash of the engine rooted at `root`, run compiled (`dist`) or from the sources (`src`). Paths
 * are hashed relative to `root`, so the same build in another folder or machine hashes the same.
 */
export function hashEngine(root: string, from: 'dist' | 'src'): string {
  const files = from === 'dist' ? [...codeFiles(root, 'dist/src', /\.(m?js|cjs)$/), ...codeFiles(root, 'dist/vendor', /\.(m?js|cjs)$/)] : codeFiles(root, 'src', /\.(ts|mts|m?js)$/);
  const h = createHash('sha256');
  // Sorted by a fixed order (not the locale): every machine lists the same files the same way.
  for (const rel of [...files, 'package.json', 'package-lock.json'].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const f = path.join(root, rel);
    if (!existsSync(f)) continue;
    h.update(`${rel.split(path.sep).join('/')}\0`).update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

let cached: EngineId | undefined;

/** This process's engine (see the module comment), computed on first use. */
export function engineId(): EngineId {
  if (cached !== undefined) return cached;
  const from = import.meta.url.endsWith('.js') ? 'dist' : 'src';
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // Hashed all the same: the version is only for messages.
  }
  cached = { hash: hashEngine(PACKAGE_ROOT, from), version, from };
  return cached;
}

/** An engine in words: `kancil 0.1.0 engine 1a2b3c4d5e6f (src)`. */
export function engineText(e: EngineId): string {
  return `kancil ${e.version} engine ${e.hash.slice(0, 12)} (${e.from})`;
}
