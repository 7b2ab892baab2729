/** The ledger's lock file: one run per ledger (see holdLock). */
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { StateError } from '../core/errors.js';

/**
 * Takes the ledger's lock: an exclusive SQLite lock on `<path>.lock`, held by this process until
 * close() or its death (the OS drops the lock of a killed process, so a SIGKILL leaves nothing to
 * clean up). A second run on the same ledger (started twice by hand, or by a supervisor while the
 * old process is still shutting down) would place orders of its own beside the first one's and
 * reconcile, adopt and cancel them as if they were its own; it is refused at once instead. The
 * ledger itself stays readable by other tools while a run holds it.
 */
export function holdLock(path: string): Database {
  let lock: Database | undefined;
  try {
    lock = new BetterSqlite3(`${path}.lock`, { timeout: 0 });
    lock.pragma('locking_mode = EXCLUSIVE');
    // A write takes the exclusive lock; in EXCLUSIVE locking mode it is kept after the commit.
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since INTEGER NOT NULL); DELETE FROM holder;');
    lock.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, Date.now());
    return lock;
  } catch (err) {
    lock?.close();
    if (err instanceof BetterSqlite3.SqliteError && err.code === 'SQLITE_BUSY') {
      throw new StateError(`ledger ${path} is in use by another process (another kancil run on this ledger?); refusing to start: two runs would each trade and each take the other's orders for its own`, { cause: err });
    }
    throw new StateError(`ledger ${path}: cannot take its lock file ${path}.lock (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
}
