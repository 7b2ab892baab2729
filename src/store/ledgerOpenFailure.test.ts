import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StateError } from '../core/errors.js';
import { freshLedgerFile, ledgerOpenFailure } from './ledgerOpenFailure.js';

const dir = mkdtempSync(join(tmpdir(), 'kancil-openfail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An error as better-sqlite3 throws it: a message and SQLite's (extended) result code. */
const sqlite = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const at = '/var/lib/kancil/run.db';
const MOVE_ASIDE = /not a readable kancil ledger .*move it aside only once its open orders are settled/;

describe('ledgerOpenFailure', () => {
  it('blames the disk or the folder, naming it, when a new ledger cannot be created', () => {
    expect(ledgerOpenFailure(at, true, sqlite('SQLITE_FULL', 'database or disk is full'))).toBe(
      'ledger /var/lib/kancil/run.db: a new ledger cannot be created (SQLITE_FULL: database or disk is full): the disk holding /var/lib/kancil is full: free space there or point storage.path at another disk',
    );
    expect(ledgerOpenFailure(at, true, sqlite('SQLITE_IOERR_WRITE', 'disk I/O error'))).toMatch(/^ledger \/var\/lib\/kancil\/run\.db: a new ledger cannot be created \(SQLITE_IOERR_WRITE: disk I\/O error\): the disk holding \/var\/lib\/kancil failed/);
    expect(ledgerOpenFailure(at, true, sqlite('SQLITE_CANTOPEN', 'unable to open database file'))).toMatch(/no file can be created in \/var\/lib\/kancil /);
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN']) expect(ledgerOpenFailure(at, true, sqlite(code, 'x'))).not.toMatch(/move it aside/);
  });

  it('keeps the move-aside advice for a ledger that held data, whatever the code', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_READ', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB']) expect(ledgerOpenFailure(at, false, sqlite(code, 'x'))).toMatch(MOVE_ASIDE);
  });

  it('keeps it for a fresh file that fails any other way', () => {
    expect(ledgerOpenFailure(at, true, sqlite('SQLITE_NOTADB', 'file is not a database'))).toMatch(MOVE_ASIDE);
    expect(ledgerOpenFailure(at, true, new Error('no code'))).toMatch(MOVE_ASIDE);
    expect(ledgerOpenFailure(at, true, new StateError('schema_version=9 was written by a newer kancil'))).toBe('ledger /var/lib/kancil/run.db: schema_version=9 was written by a newer kancil; refusing to start (move it aside only once its open orders are settled on the exchange)');
  });

  it('counts a missing or empty file as fresh, one with bytes as not', () => {
    const file = join(dir, 'l.db');
    expect(freshLedgerFile(file)).toBe(true);
    writeFileSync(file, '');
    expect(freshLedgerFile(file)).toBe(true);
    writeFileSync(file, 'x');
    expect(freshLedgerFile(file)).toBe(false);
  });
});
