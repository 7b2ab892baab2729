/**
 * What is wrong with a ledger path before SQLite opens it: SQLite names a folder "unable to open
 * database file" or "disk I/O error", and an unreadable file the same, which tells an operator
 * nothing about what to fix.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { newEntryFailure } from './makeFolder.js';

/** Why the ledger file at `path` cannot be opened (`write`: for a run, which writes it), or undefined. */
export function ledgerFileProblem(path: string, write: boolean): string | undefined {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return undefined; // Missing: the caller creates it or says so.
  }
  if (isDir) return 'is a folder, not a ledger file (storage.path names the SQLite file itself)';
  try {
    accessSync(path, write ? constants.R_OK | constants.W_OK : constants.R_OK);
  } catch (err) {
    return `cannot be ${write ? 'read and written' : 'read'} by this user (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  return undefined;
}

/** Why a run cannot keep its ledger at `path` (the file, or the folder to make for it), or undefined. */
export function ledgerPathProblem(path: string): string | undefined {
  return path === ':memory:' ? undefined : (ledgerFileProblem(path, true) ?? ledgerFolderProblem(path));
}

/**
 * Why the folder of a ledger at `path` cannot be made (a part of it is a file, or the nearest
 * existing folder takes no new entry), or undefined. The second is probed: root passes every
 * access() check, yet /proc takes nothing, and Node's recursive mkdir loops forever there.
 */
export function ledgerFolderProblem(path: string): string | undefined {
  for (let at = dirname(path); ; at = dirname(at)) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch {
      if (dirname(at) === at) return undefined;
      continue;
    }
    if (!isDir) return `cannot be created: ${at} is a file, not a folder`;
    return at === dirname(path) ? undefined : newEntryProblem(at);
  }
}

/** Why nothing can be made in the folder `at`, or undefined. */
function newEntryProblem(at: string): string | undefined {
  const code = newEntryFailure(at);
  return code === undefined ? undefined : `its folder cannot be created: ${at} takes no new entry (${code})`;
}
