/**
 * Read-only access to a ledger file for the operator's commands (`kancil status`, `orders`,
 * `trades`, `profit`): opened without the run's lock and with SQLite's read-only flag, so it can
 * read while a run holds the ledger (WAL readers never block the writer) and can never change it.
 */
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { Decimal } from '../core/decimal.js';
import { StateError } from '../core/errors.js';
import type { Balance } from '../core/types.js';
import { TERMINAL_STATES } from '../bus/events.js';
import type { FillRecord, OrderRecord } from './records.js';
import { ledgerFileProblem } from './ledgerFile.js';
import { fromFillRow, fromOrderRow, type FillRow, type OrderRow } from './rows.js';

/** Filters of the order and fill queries; each one left out matches everything. */
export interface LedgerQuery {
  readonly strategy?: string | undefined;
  readonly symbol?: string | undefined;
  /** Epoch ms: created (orders) or executed (fills) at or after. */
  readonly since?: number | undefined;
  /** The newest `limit` rows (still returned oldest first). */
  readonly limit?: number | undefined;
}

/** One journal line. */
export interface JournalEntry {
  readonly id: number;
  readonly ts: number;
  readonly kind: string;
  readonly data: unknown;
}

/** A refused intent with the risk checker's reason. */
export interface RejectionRow {
  readonly ts: number;
  readonly intentId: string;
  readonly strategy: string;
  readonly kind: string;
  readonly symbol: string | null;
  readonly reason: string | null;
  readonly message: string | null;
}

const TERMINAL_SQL = [...TERMINAL_STATES].map((s) => `'${s}'`).join(', ');

/** A ledger opened read-only. */
export class LedgerReader {
  readonly #db: Database;

  private constructor(db: Database) {
    this.#db = db;
  }

  /** Opens the ledger at `path` read-only; a missing or unreadable file is a StateError naming it. */
  static open(path: string): LedgerReader {
    if (!existsSync(path)) throw new StateError(`ledger ${path}: no such file (give the run's storage.path, or its config)`);
    const problem = ledgerFileProblem(path, false);
    if (problem !== undefined) throw new StateError(`ledger ${path}: ${problem}`);
    let db: Database | undefined;
    try {
      db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.prepare('SELECT 1 FROM orders LIMIT 1').get();
      return new LedgerReader(db);
    } catch (err) {
      db?.close();
      throw new StateError(`ledger ${path}: not a readable kancil ledger (${err instanceof Error ? err.message : String(err)})`, { cause: err });
    }
  }

  /** Orders (all, or only those not in a terminal state), oldest first. */
  orders(q: LedgerQuery & { readonly open?: boolean } = {}): OrderRecord[] {
    const { where, args } = filters(q, 'created_at');
    if (q.open === true) where.push(`state NOT IN (${TERMINAL_SQL})`);
    return this.#newest<OrderRow>('orders', where, args, 'created_at DESC, client_id DESC', q.limit).map(fromOrderRow).reverse();
  }

  /** Fills, oldest first. */
  fills(q: LedgerQuery = {}): FillRecord[] {
    const { where, args } = filters(q, 'time');
    return this.#newest<FillRow>('fills', where, args, 'id DESC', q.limit).map(fromFillRow).reverse();
  }

  /** Latest recorded balance of every asset. */
  latestBalances(): Balance[] {
    const rows = this.#db
      .prepare('SELECT b.asset, b.free, b.locked FROM balances b JOIN (SELECT asset, MAX(id) AS id FROM balances GROUP BY asset) m ON b.id = m.id ORDER BY b.asset')
      .all() as { asset: string; free: string; locked: string }[];
    return rows.map((r) => ({ asset: r.asset, free: new Decimal(r.free), locked: new Decimal(r.locked) }));
  }

  /**
   * The marks a run last journalled (kind `marks`: { symbol: price }), for PnL read from the ledger
   * alone at the run's own mark. Empty when no run journalled any.
   */
  latestMarks(): Map<string, Decimal> {
    const row = this.#db.prepare("SELECT data FROM journal WHERE kind = 'marks' ORDER BY id DESC LIMIT 1").get() as { data: string } | undefined;
    const data = row === undefined ? undefined : parseJson(row.data);
    const out = new Map<string, Decimal>();
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return out;
    for (const [symbol, v] of Object.entries(data as Record<string, unknown>)) {
      if (typeof v !== 'string') continue;
      try {
        out.set(symbol, new Decimal(v));
      } catch {
        // A value that is no decimal is left out: the symbol's last fill price stands in.
      }
    }
    return out;
  }

  /** Journal lines of the given kinds (all kinds when empty), newest `limit`, oldest first. */
  journal(kinds: readonly string[] = [], limit = 50): JournalEntry[] {
    const where = kinds.length > 0 ? `WHERE kind IN (${kinds.map(() => '?').join(', ')})` : '';
    const rows = this.#db.prepare(`SELECT id, ts, kind, data FROM journal ${where} ORDER BY id DESC LIMIT ?`).all(...kinds, limit) as { id: number; ts: number; kind: string; data: string }[];
    return rows.reverse().map((r) => ({ id: r.id, ts: r.ts, kind: r.kind, data: parseJson(r.data) }));
  }

  /** Refused intents with reasons, newest `limit`, oldest first. */
  rejections(limit = 50): RejectionRow[] {
    const rows = this.#db
      .prepare(
        `SELECT r.ts, r.intent_id AS intentId, i.strategy, i.kind, i.symbol, r.reason, r.message FROM risk_decisions r
         JOIN intents i ON i.intent_id = r.intent_id WHERE r.accepted = 0 ORDER BY r.id DESC LIMIT ?`,
      )
      .all(limit) as RejectionRow[];
    return rows.reverse();
  }

  /** Rejections counted by reason. */
  rejectionCounts(): Record<string, number> {
    const rows = this.#db.prepare('SELECT COALESCE(reason, \'?\') AS reason, COUNT(*) AS n FROM risk_decisions WHERE accepted = 0 GROUP BY reason ORDER BY n DESC').all() as { reason: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.reason, r.n]));
  }

  /** Orders counted by state. */
  orderCounts(): Record<string, number> {
    const rows = this.#db.prepare('SELECT state, COUNT(*) AS n FROM orders GROUP BY state ORDER BY state').all() as { state: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  /** Closes the connection. */
  close(): void {
    this.#db.close();
  }

  #newest<R>(table: string, where: string[], args: unknown[], order: string, limit: number | undefined): R[] {
    const sql = `SELECT * FROM ${table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order}${limit !== undefined ? ' LIMIT ?' : ''}`;
    return this.#db.prepare(sql).all(...args, ...(limit !== undefined ? [limit] : [])) as R[];
  }
}

function filters(q: LedgerQuery, timeColumn: string): { where: string[]; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (clause: string, value: unknown): void => {
    where.push(clause);
    args.push(value);
  };
  if (q.strategy !== undefined) add('strategy = ?', q.strategy);
  if (q.symbol !== undefined) add('symbol = ?', q.symbol);
  if (q.since !== undefined) add(`${timeColumn} >= ?`, q.since);
  return { where, args };
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
}
