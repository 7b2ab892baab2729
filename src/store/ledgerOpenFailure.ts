/**
 * What to say when SQLite cannot open a ledger. A ledger that held data must not be replaced by
 * a fresh one (that would forget every order it says may be live), so the advice is to settle
 * its orders before moving it aside. A ledger that did not exist yet (or was empty) has nothing
 * to forget: when SQLite could not create it for lack of space, a failing disk or a folder it may
 * not write in, the fault is the disk or the folder, and moving the file aside would fix nothing.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { StateError } from '../core/errors.js';

/** True when `path` holds no ledger yet: missing, or an empty file (one a failed create left). */
export function freshLedgerFile(path: string): boolean {
  try {
    return !existsSync(path) || statSync(path).size === 0;
  } catch {
    return false;
  }
}

/** What SQLite's error `code` says about the place a new ledger was to be created, or undefined for other codes. */
function placeFault(code: string, folder: string): string | undefined {
  if (code === 'SQLITE_FULL') return `the disk holding ${folder} is full: free space there or point storage.path at another disk`;
  if (code.startsWith('SQLITE_IOERR')) return `the disk holding ${folder} failed a read or write (full, read-only or failing): check it or point storage.path elsewhere`;
  if (code.startsWith('SQLITE_CANTOPEN')) return `no file can be created in ${folder} (not writable by this user, or read-only): fix its permissions or point storage.path elsewhere`;
  return undefined;
}

/**
 * The message of a ledger at `path` that SQLite could not open with `err`: `fresh` says whether
 * the file was missing or empty before the attempt (see {@link freshLedgerFile}).
 */
export function ledgerOpenFailure(path: string, fresh: boolean, err: unknown): string {
  const detail = err instanceof Error ? err.message : String(err);
  if (err instanceof StateError) return `ledger ${path}: ${detail}; refusing to start (move it aside only once its open orders are settled on the exchange)`;
  const code = (err as { code?: unknown } | null)?.code;
  const fault = fresh && typeof code === 'string' ? placeFault(code, dirname(path)) : undefined;
  if (fault !== undefined) return `ledger ${path}: a new ledger cannot be created (${code as string}: ${detail}): ${fault}`;
  return `ledger ${path}: not a readable kancil ledger (${detail}); refusing to start (move it aside only once its open orders are settled on the exchange)`;
}
