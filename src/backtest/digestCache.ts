/**
 * File digests kept across processes, so a backtest re-run over the same recording does not hash
 * it again (a day of binary BTCUSDT is 1.7 GB: ~1.2 s of CPU, about 8 % of the run). An entry is
 * trusted only while the file's device, inode, size, modification and change times all match, the
 * test git's index makes: the change time cannot be set back by a user, so a file rewritten in
 * place, copied over or touched is hashed afresh.
 *
 * Entries live in `$KANCIL_CACHE_DIR/digests` (default `$XDG_CACHE_HOME/kancil`, else
 * `~/.cache/kancil`), one small file per input path, written whole and renamed into place so
 * concurrent runs never read half an entry. `KANCIL_CACHE_DIR=none` turns the cache off. A cache
 * that cannot be read or written is ignored: the digest is then computed as without it.
 */
import { readFileSync, renameSync, type Stats, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { makeFolder } from '../store/makeFolder.js';

/** How recent a change leaves a file unstored. */
const RACY_MS = 3000;

/** A file's size and SHA-256 (hex). */
export interface FileDigest {
  readonly bytes: number;
  readonly sha256: string;
}

/** The folder of the digest entries; undefined when the cache is off. */
function cacheDir(): string | undefined {
  const dir = process.env.KANCIL_CACHE_DIR;
  if (dir === 'none') return undefined;
  const base = dir !== undefined && dir !== '' ? dir : path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'kancil');
  return path.join(base, 'digests');
}

/** What identifies one version of a file: if any of it changes, the entry is stale. */
function stamp(file: string, st: Stats): string {
  return JSON.stringify([path.resolve(file), st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs]);
}

/**
 * The entry's file: the input path's 64-bit FNV-1a hash in hex. Not node:crypto, which a run whose
 * digests are all stored would load for this alone (~3 ms of a start); two paths of one hash
 * only share an entry, whose stamp names the path, so neither is trusted for the other.
 */
function entryPath(dir: string, file: string): string {
  const key = path.resolve(file);
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < key.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(key.charCodeAt(i))) * 0x100000001b3n);
  return path.join(dir, `${h.toString(16).padStart(16, '0')}.json`);
}

/** The stored digest of `file` as `st` describes it, or undefined. */
export function storedDigest(file: string, st: Stats): FileDigest | undefined {
  const dir = cacheDir();
  if (dir === undefined) return undefined;
  try {
    const e = JSON.parse(readFileSync(entryPath(dir, file), 'utf8')) as { stamp?: unknown; bytes?: unknown; sha256?: unknown };
    if (e.stamp !== stamp(file, st) || e.bytes !== st.size || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) return undefined;
    return { bytes: e.bytes, sha256: e.sha256 };
  } catch {
    return undefined;
  }
}

/** Stores `d` as the digest of `file` as `st` describes it (stat taken before hashing), at `now`; best effort. */
export function storeDigest(file: string, st: Stats, d: FileDigest, now = Date.now()): void {
  const dir = cacheDir();
  // A file changed within the last seconds could change again inside the same time stamp
  // (git's "racily clean" case): it is not stored, and the next run hashes it.
  if (dir === undefined || d.bytes !== st.size || now - Math.max(st.mtimeMs, st.ctimeMs) < RACY_MS) return;
  try {
    makeFolder(dir);
    const target = entryPath(dir, file);
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ stamp: stamp(file, st), bytes: d.bytes, sha256: d.sha256 }));
    renameSync(tmp, target);
  } catch {
    // A read-only or full cache folder only costs the next run a re-hash.
  }
}
