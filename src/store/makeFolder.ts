/**
 * Folders (reports, a ledger's) made one level at a time. Node's `mkdirSync(dir, { recursive:
 * true })` loops forever where a folder exists but takes no new entry with ENOENT (Linux's /proc):
 * a folder that cannot be made must fail with its name, never hang the process.
 */
import { mkdirSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Makes `dir` and every missing folder above it; throws the first failure (naming its path). */
export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !isFolder(at); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const at of missing.reverse()) {
    try {
      mkdirSync(at);
    } catch (err) {
      // Made meanwhile by another process: fine when it is a folder.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isFolder(at)) throw err;
    }
  }
}

function isFolder(at: string): boolean {
  try {
    return statSync(at).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Makes and removes a probe folder in the existing folder `at`: the error code when nothing can be
 * made there, else undefined. Root passes every access() check, yet a pseudo file system such as
 * /proc or /sys takes no new entry.
 */
export function newEntryFailure(at: string): string | undefined {
  let probe: string;
  try {
    probe = mkdtempSync(path.join(at, '.kancil-probe-'));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  }
  rmdirSync(probe);
  return undefined;
}
