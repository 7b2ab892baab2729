/**
 * Test fixture: what a process killed at this instant leaves of a ledger file: its database and
 * write-ahead log copied while the run holds it (WAL mode: the copy has every committed
 * transaction and nothing queued in memory), opened as a ledger of its own.
 */
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ledger } from './Ledger.js';

/** A ledger opened on a copy of the files of the open ledger at `path`, beside it. */
export function crashImage(path: string): Ledger {
  const to = join(mkdtempSync(join(dirname(path), 'crash-')), 'ledger.db');
  copyFileSync(path, to);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${to}-wal`);
  return Ledger.open(to);
}
