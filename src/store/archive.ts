/**
 * Moves a ledger's old rows into a separate SQLite file (same schema) so a bot that runs for
 * months keeps a small working ledger. What a restart and reconciliation read stays:
 *
 * - every fill: a live restart rebuilds each strategy's position and budget from all of its fills
 *   (runSession), and the daily loss limit reads today's; fills are also the smallest table;
 * - every order that is not terminal (open, pending, of unknown outcome: reconciliation adopts or
 *   resolves them) with its intent and transitions; a terminal order moves once its last update
 *   is older than the cutoff;
 * - the `start` and `stop` journal lines (run numbers and `kancil status`' last run), the newest
 *   balance row of each source and asset, and the quarantine (evidence of mismatches).
 *
 * Everything else older than the cutoff moves: terminal orders, their transitions, intents and
 * risk decisions, journal lines, older balance snapshots. The copy is committed before the delete:
 * a crash between the two leaves rows in both files, and running the archive again finishes the
 * move (rows keep their keys, so a second copy is ignored). Nothing is lost at any instant.
 */
import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { TERMINAL_STATES } from '../bus/events.js';
import { LEDGER_DDL, LEDGER_SCHEMA_VERSION } from './schema.js';

/** Rows moved per table. */
export interface ArchiveCounts {
  readonly orders: number;
  readonly order_transitions: number;
  readonly intents: number;
  readonly risk_decisions: number;
  readonly journal: number;
  readonly balances: number;
}

/** What an archive did. */
export interface ArchiveResult {
  readonly file: string;
  /** False when nothing was old enough to move (no file is written then). */
  readonly written: boolean;
  readonly before: number;
  readonly moved: ArchiveCounts;
  /** Rows that stay although older than the cutoff, and why. */
  readonly kept: { readonly fills: number; readonly openOrders: number };
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

const TERMINAL_SQL = [...TERMINAL_STATES].map((s) => `'${s}'`).join(', ');

/** Per table: its key column and the temp table naming the keys that move (built in {@link markRows}). */
const MOVES: readonly { readonly table: keyof ArchiveCounts; readonly key: string }[] = [
  { table: 'orders', key: 'client_id' },
  { table: 'order_transitions', key: 'id' },
  { table: 'intents', key: 'intent_id' },
  { table: 'risk_decisions', key: 'id' },
  { table: 'journal', key: 'id' },
  { table: 'balances', key: 'id' },
];

/** Fills the temp tables `mv_<table>` with the keys of the rows that move. */
function markRows(db: Database, before: number): void {
  const run = (sql: string): void => void db.prepare(sql).run({ before });
  for (const { table } of MOVES) db.exec(`DROP TABLE IF EXISTS temp.mv_${table}`);
  run(`CREATE TEMP TABLE mv_orders AS SELECT client_id AS k FROM orders WHERE state IN (${TERMINAL_SQL}) AND updated_at < @before`);
  // Orders that stay keep their intents (and, below, those intents' risk decisions).
  run(`CREATE TEMP TABLE mv_intents AS SELECT intent_id AS k FROM intents WHERE ts < @before
       AND (client_id IS NULL OR client_id NOT IN (SELECT client_id FROM orders WHERE client_id NOT IN (SELECT k FROM temp.mv_orders)))
       AND intent_id NOT IN (SELECT intent_id FROM orders WHERE client_id NOT IN (SELECT k FROM temp.mv_orders))`);
  run(`CREATE TEMP TABLE mv_risk_decisions AS SELECT id AS k FROM risk_decisions WHERE ts < @before
       AND intent_id NOT IN (SELECT intent_id FROM intents WHERE intent_id NOT IN (SELECT k FROM temp.mv_intents))`);
  run(`CREATE TEMP TABLE mv_order_transitions AS SELECT id AS k FROM order_transitions WHERE ts < @before
       AND client_id NOT IN (SELECT client_id FROM orders WHERE client_id NOT IN (SELECT k FROM temp.mv_orders))`);
  run(`CREATE TEMP TABLE mv_journal AS SELECT id AS k FROM journal WHERE ts < @before AND kind NOT IN ('start', 'stop')`);
  run(`CREATE TEMP TABLE mv_balances AS SELECT id AS k FROM balances WHERE ts < @before
       AND id NOT IN (SELECT MAX(id) FROM balances GROUP BY source, asset)`);
}

/** Creates (or reopens) the archive file with the ledger's schema and notes where its rows came from. */
function prepareArchive(file: string, from: string, before: number): void {
  const arc = new BetterSqlite3(file);
  try {
    arc.exec(LEDGER_DDL);
    const put = arc.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    put.run('schema_version', String(LEDGER_SCHEMA_VERSION));
    put.run('archive_of', from);
    put.run('archived_before', new Date(before).toISOString());
  } finally {
    arc.close();
  }
}

/**
 * Moves the rows of `db` (the open ledger at `from`, its lock held by the caller) older than
 * `before` into `file`, then compacts the ledger (VACUUM) so the disk space is returned.
 */
export function archiveRows(db: Database, from: string, before: number, file: string): ArchiveResult {
  const bytesBefore = fileBytes(from);
  markRows(db, before);
  const count = (table: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM temp.mv_${table}`).get() as { n: number }).n;
  const moved = Object.fromEntries(MOVES.map(({ table }) => [table, count(table)])) as unknown as ArchiveCounts;
  const kept = (): ArchiveResult['kept'] => ({
    fills: (db.prepare('SELECT COUNT(*) AS n FROM fills WHERE time < ?').get(before) as { n: number }).n,
    openOrders: (db.prepare(`SELECT COUNT(*) AS n FROM orders WHERE state NOT IN (${TERMINAL_SQL})`).get() as { n: number }).n,
  });
  if (Object.values(moved).every((n) => n === 0)) {
    // Nothing to move: no empty archive file, no compaction.
    for (const { table } of MOVES) db.exec(`DROP TABLE temp.mv_${table}`);
    return { file, written: false, before, moved, kept: kept(), bytesBefore, bytesAfter: bytesBefore };
  }
  prepareArchive(file, from, before);
  db.prepare('ATTACH DATABASE ? AS arc').run(file);
  try {
    // Copy first and commit: only then may the ledger lose the rows.
    db.transaction(() => {
      for (const { table, key } of MOVES) db.exec(`INSERT OR IGNORE INTO arc.${table} SELECT * FROM main.${table} WHERE ${key} IN (SELECT k FROM temp.mv_${table})`);
    })();
    db.transaction(() => {
      for (const { table, key } of MOVES) db.exec(`DELETE FROM main.${table} WHERE ${key} IN (SELECT k FROM temp.mv_${table})`);
    })();
    for (const { table } of MOVES) db.exec(`DROP TABLE temp.mv_${table}`);
  } finally {
    db.exec('DETACH DATABASE arc');
  }
  const left = kept();
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { file, written: true, before, moved, kept: left, bytesBefore, bytesAfter: fileBytes(from) };
}

/** The ledger's size on disk: the file and its write-ahead log. */
function fileBytes(path: string): number {
  const size = (p: string): number => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return size(path) + size(`${path}-wal`);
}
