/**
 * What is wrong with a ledger path before SQLite opens it: SQLite names a folder "unable to open
 * database file" or "disk I/O error", and an unreadable file the same, which tells an operator
 * nothing about what to fix.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';

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

/** Why the folder of a ledger at `path` cannot be made (a part of it is a file), or undefined. */
export function ledgerFolderProblem(path: string): string | undefined {
  for (let at = dirname(path); ; at = dirname(at)) {
    try {
      return statSync(at).isDirectory() ? undefined : `cannot be created: ${at} is a file, not a folder`;
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}
