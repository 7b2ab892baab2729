/**
 * Upgrades a ledger written by an earlier version in place, on open, before any statement is
 * prepared: a bot restarted after an upgrade must still find the orders and fills it journalled.
 * Each step runs in one transaction, so a crash mid-migration leaves the old ledger intact.
 */
import type { Database } from 'better-sqlite3';
import { StateError } from '../core/errors.js';
import { FILLS_INDEX, LEDGER_SCHEMA_VERSION, fillsTable } from './schema.js';

const FILL_COLUMNS =
  'id, client_id, strategy, order_id, symbol, side, trade_id, price, qty, quote_qty, commission, commission_asset, is_maker, time, source';

/**
 * Brings `db` (already through LEDGER_DDL) to {@link LEDGER_SCHEMA_VERSION}. Version 1 had
 * fills.trade_id INTEGER: the table is rebuilt with TEXT ids, every row copied with its id (an
 * integer's digits, exactly: the old code only stored safe integers) and its row id.
 */
export function migrateLedger(db: Database): void {
  // SQLite cannot change a column's type: the column's declared type says which schema this is.
  const col = db.prepare("SELECT type FROM pragma_table_info('fills') WHERE name = 'trade_id'").get() as { type: string } | undefined;
  const stale = col !== undefined && col.type.toUpperCase() !== 'TEXT';
  db.transaction(() => {
    if (stale) {
      db.exec(fillsTable('fills_v2'));
      db.exec(`INSERT INTO fills_v2 (${FILL_COLUMNS}) SELECT ${FILL_COLUMNS.replace('trade_id', 'CAST(trade_id AS TEXT)')} FROM fills ORDER BY id`);
      db.exec('DROP TABLE fills');
      db.exec('ALTER TABLE fills_v2 RENAME TO fills');
      db.exec(FILLS_INDEX);
    }
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run('schema_version', String(LEDGER_SCHEMA_VERSION));
  })();
}

/**
 * Refuses a ledger written by a newer kancil (its tables may mean something this version would
 * misread) or whose version is not a number; a file without a meta table is new or pre-versioning.
 */
export function checkSchemaVersion(db: Database): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) return;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: unknown } | undefined;
  if (row === undefined) return;
  const v = Number(row.value);
  if (!Number.isSafeInteger(v) || v < 1) throw new StateError(`schema_version=${JSON.stringify(row.value)} is not a version this kancil knows`);
  if (v > LEDGER_SCHEMA_VERSION) throw new StateError(`schema_version=${v} was written by a newer kancil (this one reads up to ${LEDGER_SCHEMA_VERSION})`);
}
