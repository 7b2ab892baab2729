/**
 * The SQLite ledger: intents, risk decisions, orders and their transitions, fills, balances and a
 * free-form journal. Every write is synchronous and committed before the caller acts on it, so a
 * process killed at any instant (SIGKILL) leaves a ledger that names every order it may have sent.
 *
 * WAL mode with synchronous=NORMAL: a committed transaction survives a process crash (the WAL is
 * in the OS page cache); only a power loss could drop the last transactions, which is acceptable
 * because start-up reconciliation with the exchange recovers fills from the exchange anyway. A
 * run's ledger is checkpointed by a worker thread (checkpointer.ts), not in its commits.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { Decimal } from '../core/decimal.js';
import { StateError } from '../core/errors.js';
import { scrubSecretText } from '../core/secretScrub.js';
import type { Balance } from '../core/types.js';
import type { Intent } from '../bus/intents.js';
import { TERMINAL_STATES, type TrackedOrderStateName } from '../bus/events.js';
import type { FillRecord, OrderRecord, QuarantineRecord, RiskDecisionRecord, TransitionRecord } from './records.js';
import { archiveRows, type ArchiveResult } from './archive.js';
import { startCheckpointer, WAL_FILE_LIMIT_BYTES, type Checkpointer } from './checkpointer.js';
import { ledgerFileProblem, ledgerFolderProblem } from './ledgerFile.js';
import { freshLedgerFile, ledgerOpenFailure } from './ledgerOpenFailure.js';
import { checkSchemaVersion, migrateLedger } from './migrate.js';
import { asStored, changedColumns, orderParams, patchedOrder, scrubbed, UPDATE_COLUMNS, type OrderPatch } from './orderColumns.js';
import { fromFillRow, fromOrderRow, type FillRow, type OrderRow } from './rows.js';
import { LEDGER_DDL } from './schema.js';

export { TERMINAL_STATES };
export type { OrderPatch };

/** TERMINAL_STATES as an SQL list, so openOrders() and the set cannot disagree (state names are plain words, safe to inline). */
const TERMINAL_SQL = [...TERMINAL_STATES].map((s) => `'${s}'`).join(', ');

/** The INSERT of an orders row (parameters: orderParams). */
const ORDER_INSERT = `INSERT INTO orders (client_id, strategy, intent_id, symbol, side, order_type, time_in_force, price,
  quantity, quote_order_qty, stop_price, iceberg_qty, stp_mode, venue, order_id, state, cum_qty, cum_quote_qty, created_at,
  sent_at, updated_at, reason) VALUES (@client_id, @strategy, @intent_id, @symbol, @side, @order_type, @time_in_force,
  @price, @quantity, @quote_order_qty, @stop_price, @iceberg_qty, @stp_mode, @venue, @order_id, @state, @cum_qty,
  @cum_quote_qty, @created_at, @sent_at, @updated_at, @reason)`;

/** Decimals become strings in JSON (decimal.js toJSON); everything else is plain data. */
function intentJson(intent: Intent): string {
  return JSON.stringify(intent);
}

/** Options of {@link Ledger.open}. */
export interface LedgerOpenOptions {
  /**
   * Checkpoint the WAL in a worker thread (checkpointer.ts) instead of inside the commit that
   * crosses 1,000 pages: for a run, whose journal writes come before each order is sent.
   */
  readonly checkpointInWorker?: boolean;
  /**
   * Told of every write that fails (a full disk, an I/O error), before the error is thrown to the
   * caller: a running bot stops on it wherever the write was (a REST answer, a poll, a timer),
   * even where the caller handles the error as the exchange's or logs it and goes on.
   */
  readonly onWriteFailure?: (err: unknown) => void;
}

/** The run's persistent record. One instance per process; not shared between processes. */
export class Ledger {
  readonly #db: Database;
  readonly #st: {
    journal: Statement;
    intent: Statement;
    risk: Statement;
    insertOrder: Statement;
    insertNewOrder: Statement;
    getOrder: Statement;
    byOrderId: Statement;
    openOrders: Statement;
    allOrders: Statement;
    transition: Statement;
    transitions: Statement;
    allTransitions: Statement;
    fill: Statement;
    fillsOf: Statement;
    quarantine: Statement;
    quarantined: Statement;
    allFills: Statement;
    balance: Statement;
    latestBalances: Statement;
  };
  /**
   * The multi-statement writes, wrapped once: better-sqlite3 builds four wrapper functions and
   * defines their properties on every `db.transaction()` call, which cost about as much as a
   * statement per order when made per call. Each begins IMMEDIATE: a deferred transaction that
   * reads before it writes fails at once (SQLITE_BUSY, no busy timeout) if the checkpoint worker
   * holds the write lock at that instant.
   */
  readonly #tx: {
    insertOrder: (o: OrderRecord, source: string) => void;
    updateOrder: (clientId: string, patch: OrderPatch, ts: number, source: string, detail: string | undefined, current: OrderRecord | undefined) => OrderRecord | undefined;
    balances: (ts: number, source: string, balances: readonly Balance[]) => void;
    gate: (ts: number, intent: Intent, d: RiskDecisionRecord, order: OrderRecord | undefined, taken: RiskDecisionRecord | undefined) => boolean;
  };
  /** UPDATE statements of orders by the set of columns they write (see changedColumns). */
  readonly #updates = new Map<number, Statement>();
  /** The lock file's connection, holding its exclusive lock while this ledger is open (see holdLock). */
  readonly #lock: Database | undefined;
  /** The worker that checkpoints a file ledger's WAL (checkpointer.ts); none in memory. */
  #checkpointer: Checkpointer | undefined;
  #closed = false;
  #onWriteFailure: ((err: unknown) => void) | undefined;

  private constructor(db: Database, lock: Database | undefined) {
    this.#db = db;
    this.#lock = lock;
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    checkSchemaVersion(db);
    db.exec(LEDGER_DDL);
    migrateLedger(db);
    this.#st = {
      journal: db.prepare('INSERT INTO journal (ts, kind, data) VALUES (?, ?, ?)'),
      intent: db.prepare(
        'INSERT OR IGNORE INTO intents (intent_id, ts, strategy, kind, symbol, client_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      risk: db.prepare('INSERT INTO risk_decisions (ts, intent_id, accepted, adjusted, reason, message) VALUES (?, ?, ?, ?, ?, ?)'),
      insertOrder: db.prepare(ORDER_INSERT),
      // Only a clientId already taken is passed over (a NOT NULL column still fails the commit).
      insertNewOrder: db.prepare(`${ORDER_INSERT} ON CONFLICT (client_id) DO NOTHING`),
      getOrder: db.prepare('SELECT * FROM orders WHERE client_id = ?'),
      byOrderId: db.prepare('SELECT * FROM orders WHERE order_id = ?'),
      openOrders: db.prepare(`SELECT * FROM orders WHERE state NOT IN (${TERMINAL_SQL}) ORDER BY created_at, client_id`),
      allOrders: db.prepare('SELECT * FROM orders ORDER BY created_at, client_id'),
      transition: db.prepare(
        'INSERT INTO order_transitions (ts, client_id, from_state, to_state, source, detail) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      transitions: db.prepare('SELECT * FROM order_transitions WHERE client_id = ? ORDER BY id'),
      allTransitions: db.prepare('SELECT * FROM order_transitions ORDER BY id'),
      fill: db.prepare(`INSERT OR IGNORE INTO fills (client_id, strategy, order_id, symbol, side, trade_id, price, qty, quote_qty,
        commission, commission_asset, is_maker, time, source) VALUES (@client_id, @strategy, @order_id, @symbol, @side, @trade_id,
        @price, @qty, @quote_qty, @commission, @commission_asset, @is_maker, @time, @source)`),
      fillsOf: db.prepare('SELECT * FROM fills WHERE client_id = ? ORDER BY id'),
      quarantine: db.prepare('INSERT OR IGNORE INTO quarantine (ts, client_id, order_id, trade_id, source, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      quarantined: db.prepare('SELECT * FROM quarantine ORDER BY id'),
      allFills: db.prepare('SELECT * FROM fills ORDER BY id'),
      balance: db.prepare('INSERT INTO balances (ts, source, asset, free, locked) VALUES (?, ?, ?, ?, ?)'),
      latestBalances: db.prepare(
        'SELECT b.asset, b.free, b.locked FROM balances b JOIN (SELECT asset, MAX(id) AS id FROM balances GROUP BY asset) m ON b.id = m.id ORDER BY b.asset',
      ),
    };
    const st = this.#st;
    this.#tx = {
      insertOrder: db.transaction((o: OrderRecord, source: string) => {
        st.insertOrder.run(orderParams(o));
        st.transition.run(o.createdAt, o.clientId, null, o.state, source, scrubbed(o.reason));
      }).immediate,
      updateOrder: db.transaction((clientId: string, patch: OrderPatch, ts: number, source: string, detail: string | undefined, current: OrderRecord | undefined) => {
        let before: OrderRecord;
        // The caller's record is the row (the ledger has one writer) but for a reason, held scrubbed.
        if (current !== undefined) before = current.reason === undefined ? current : asStored(current);
        else {
          const row = st.getOrder.get(clientId) as OrderRow | undefined;
          if (!row) return undefined;
          before = fromOrderRow(row);
        }
        const after = patchedOrder(before, patch, ts);
        const params = orderParams(after);
        if (this.#updateOf(changedColumns(before, after)).run(params).changes === 0) return undefined;
        if (after.state !== before.state) st.transition.run(ts, clientId, before.state, after.state, source, scrubbed(detail ?? after.reason));
        return after;
      }).immediate,
      balances: db.transaction((ts: number, source: string, balances: readonly Balance[]) => {
        for (const b of balances) st.balance.run(ts, source, b.asset, b.free.toFixed(), b.locked.toFixed());
      }).immediate,
      gate: db.transaction((ts: number, intent: Intent, d: RiskDecisionRecord, order: OrderRecord | undefined, taken: RiskDecisionRecord | undefined) => {
        this.recordIntent(ts, intent);
        const fresh = order === undefined || st.insertNewOrder.run(orderParams(order)).changes > 0;
        this.recordRiskDecision(ts, fresh ? d : (taken ?? d));
        if (order !== undefined && fresh) st.transition.run(order.createdAt, order.clientId, null, order.state, 'intent', scrubbed(order.reason));
        return fresh;
      }).immediate,
    };
  }

  /** The UPDATE of an order that writes the columns in `mask` (bits of UPDATE_COLUMNS), prepared once. */
  #updateOf(mask: number): Statement {
    let st = this.#updates.get(mask);
    if (st === undefined) {
      const set = UPDATE_COLUMNS.filter((_, i) => (mask & (1 << i)) !== 0).map(({ column }) => `${column} = @${column}`);
      st = this.#db.prepare(`UPDATE orders SET ${set.join(', ')} WHERE client_id = @client_id`);
      this.#updates.set(mask, st);
    }
    return st;
  }

  /**
   * Leaves checkpoints to a worker thread, so no commit of the run stalls on one; if the worker
   * fails, SQLite's own checkpoint in the commits (every 1,000 pages) takes over again.
   */
  #checkpointInWorker(path: string): void {
    const db = this.#db;
    db.pragma('wal_autocheckpoint = 0');
    // A log the worker made start over is cut back on disk when the next commit rewinds it, but
    // only past its steady high-water (see WAL_FILE_LIMIT_BYTES).
    db.pragma(`journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`);
    this.#checkpointer = startCheckpointer(path, () => {
      this.#checkpointer = undefined;
      if (!this.#closed) db.pragma('wal_autocheckpoint = 1000');
    });
  }

  /** Opens (creating if needed) the ledger at `path`; ':memory:' for tests. Creates the parent folder. */
  static open(path: string, options: LedgerOpenOptions = {}): Ledger {
    const problem = path === ':memory:' ? undefined : (ledgerFileProblem(path, true) ?? ledgerFolderProblem(path));
    if (problem !== undefined) throw new StateError(`ledger ${path}: ${problem}`);
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    } catch (err) {
      throw new StateError(`ledger ${path}: its folder cannot be created (${err instanceof Error ? err.message : String(err)})`, { cause: err });
    }
    const lock = path === ':memory:' ? undefined : holdLock(path);
    let db: Database | undefined;
    const fresh = freshLedgerFile(path);
    try {
      db = new BetterSqlite3(path);
      const ledger = new Ledger(db, lock);
      ledger.#onWriteFailure = options.onWriteFailure;
      if (path !== ':memory:' && options.checkpointInWorker === true) ledger.#checkpointInWorker(path);
      return ledger;
    } catch (err) {
      db?.close();
      lock?.close();
      // Starting on a fresh ledger instead would forget every order the old one says may be live.
      throw new StateError(ledgerOpenFailure(path, fresh, err), { cause: err });
    }
  }

  /**
   * Appends a free-form journal line (operator commands, reconciliation summaries, start/stop).
   * Its data can quote anything (a plugin's error message): secret values are scrubbed here.
   */
  journal(ts: number, kind: string, data: unknown): void {
    try {
      this.#st.journal.run(ts, kind, scrubSecretText(JSON.stringify(data ?? null)));
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /** Records an intent as the strategy emitted it (idempotent on intentId). */
  recordIntent(ts: number, intent: Intent): void {
    const symbol = intent.kind === 'cancelAll' ? (intent.symbol ?? null) : intent.symbol;
    const clientId = intent.kind === 'cancelAll' ? null : intent.clientId;
    this.#st.intent.run(intent.intentId, ts, intent.strategy, intent.kind, symbol, clientId, intentJson(intent));
  }

  /** Records the risk checker's verdict on an intent. */
  recordRiskDecision(ts: number, d: RiskDecisionRecord): void {
    this.#st.risk.run(ts, d.intentId, d.accepted ? 1 : 0, d.adjusted ? 1 : 0, d.reason ?? null, scrubbed(d.message));
  }

  /**
   * Records an intent and the risk checker's verdict on it in one commit, all rows or none: each
   * commit takes and drops the WAL's file locks (four to six fcntl calls) and SQLite's
   * per-transaction work, on the path of every order before it is sent. With `order` (a placement
   * the verdict lets through, normally PENDING), the order and its first transition are in the same
   * commit, unless the ledger already has an order under its clientId: then no order is written,
   * `taken` is recorded as the verdict instead of `d`, and the result is false.
   */
  recordGate(ts: number, intent: Intent, d: RiskDecisionRecord, order?: OrderRecord, taken?: RiskDecisionRecord): boolean {
    try {
      return this.#tx.gate(ts, intent, d, order, taken);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /** Journals a new order (normally PENDING, before its request is sent) and its first transition, atomically. */
  insertOrder(o: OrderRecord, source: string): void {
    try {
      this.#tx.insertOrder(o, source);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /**
   * Applies a patch to an order and records the transition when the state changed, atomically.
   * Returns the updated record, or undefined when the order is not in the ledger. `current` is
   * the order as this ledger last returned it, when the caller keeps it: the ledger has one
   * writer (its lock), so the row equals it and is not read back and parsed again (an order's
   * journal writes it three times or more, once on the way to the exchange).
   */
  updateOrder(clientId: string, patch: OrderPatch, ts: number, source: string, detail?: string, current?: OrderRecord): OrderRecord | undefined {
    try {
      return this.#tx.updateOrder(clientId, patch, ts, source, detail, current);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /** Records a fill; returns false (and changes nothing) when (orderId, tradeId) was already recorded. */
  recordFill(f: FillRecord): boolean {
    try {
      return this.#recordFill(f);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  #recordFill(f: FillRecord): boolean {
    const r = this.#st.fill.run({
      client_id: f.clientId,
      strategy: f.strategy,
      order_id: f.orderId,
      symbol: f.symbol,
      side: f.side,
      trade_id: f.tradeId,
      price: f.price.toFixed(),
      qty: f.qty.toFixed(),
      quote_qty: f.quoteQty.toFixed(),
      commission: f.commission.toFixed(),
      commission_asset: f.commissionAsset,
      is_maker: f.isMaker ? 1 : 0,
      time: f.time,
      source: f.source,
    });
    return r.changes > 0;
  }

  /** Keeps an inconsistent fill out of the fills (see {@link QuarantineRecord}); false when this exact one was kept already. */
  quarantineFill(ts: number, f: FillRecord, reason: string): boolean {
    const data = { price: f.price.toString(), qty: f.qty.toString(), quoteQty: f.quoteQty.toString(), commission: f.commission.toString(), commissionAsset: f.commissionAsset, isMaker: f.isMaker, time: f.time };
    try {
      return this.#st.quarantine.run(ts, f.clientId, f.orderId, f.tradeId, f.source, scrubSecretText(reason), scrubSecretText(JSON.stringify(data))).changes > 0;
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /**
   * Keeps an inconsistent exchange order snapshot out of the orders (its tradeId is ""); false
   * when this exact one was kept already.
   */
  quarantineOrder(ts: number, clientId: string, orderId: string, source: string, reason: string, data: QuarantineRecord['data']): boolean {
    try {
      return this.#st.quarantine.run(ts, clientId, orderId, '', source, scrubSecretText(reason), scrubSecretText(JSON.stringify(data))).changes > 0;
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /** The quarantined fills and order snapshots, oldest first. */
  quarantined(): QuarantineRecord[] {
    const rows = this.#st.quarantined.all() as { ts: number; client_id: string; order_id: string; trade_id: string; source: string; reason: string; data: string }[];
    return rows.map((r) => ({ ts: r.ts, clientId: r.client_id, orderId: r.order_id, tradeId: r.trade_id, source: r.source, reason: r.reason, data: JSON.parse(r.data) as QuarantineRecord['data'] }));
  }

  /** Records a balance snapshot (from the exchange, an account stream update or the simulator). */
  recordBalances(ts: number, source: string, balances: readonly Balance[]): void {
    try {
      this.#tx.balances(ts, source, balances);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /** A failed write, told to `onWriteFailure` (see LedgerOpenOptions); returned to be thrown on. */
  #failed(err: unknown): unknown {
    this.#onWriteFailure?.(err);
    return err;
  }

  /** One order by clientId. */
  order(clientId: string): OrderRecord | undefined {
    const row = this.#st.getOrder.get(clientId) as OrderRow | undefined;
    return row ? fromOrderRow(row) : undefined;
  }

  /** One order by exchange orderId. */
  orderByOrderId(orderId: string): OrderRecord | undefined {
    const row = this.#st.byOrderId.get(orderId) as OrderRow | undefined;
    return row ? fromOrderRow(row) : undefined;
  }

  /** Orders not in a terminal state (including PENDING and UNKNOWN), oldest first. */
  openOrders(): OrderRecord[] {
    return (this.#st.openOrders.all() as OrderRow[]).map(fromOrderRow);
  }

  /** Every order, oldest first. */
  orders(): OrderRecord[] {
    return (this.#st.allOrders.all() as OrderRow[]).map(fromOrderRow);
  }

  /**
   * State transitions of one order, or of every order, in recording order (reports and tests:
   * no index serves one order's, so each call reads the whole table).
   */
  transitions(clientId?: string): TransitionRecord[] {
    const rows = (clientId === undefined ? this.#st.allTransitions.all() : this.#st.transitions.all(clientId)) as {
      ts: number;
      client_id: string;
      from_state: string | null;
      to_state: string;
      source: string;
      detail: string | null;
    }[];
    return rows.map((r) => ({
      clientId: r.client_id,
      ts: r.ts,
      from: r.from_state as TrackedOrderStateName | null,
      to: r.to_state as TrackedOrderStateName,
      source: r.source,
      detail: r.detail ?? undefined,
    }));
  }

  /** Fills of one order, or all fills, in recording order. */
  fills(clientId?: string): FillRecord[] {
    const rows = (clientId === undefined ? this.#st.allFills.all() : this.#st.fillsOf.all(clientId)) as FillRow[];
    return rows.map(fromFillRow);
  }

  /** Latest recorded balance of every asset. */
  latestBalances(): Balance[] {
    const rows = this.#st.latestBalances.all() as { asset: string; free: string; locked: string }[];
    return rows.map((r) => ({ asset: r.asset, free: new Decimal(r.free), locked: new Decimal(r.locked) }));
  }

  /** Number of rows in a ledger table (reports and tests). */
  count(table: 'intents' | 'risk_decisions' | 'orders' | 'order_transitions' | 'fills' | 'balances' | 'journal' | 'quarantine'): number {
    const r = this.#db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number };
    return r.n;
  }

  /** Number of journal lines of one kind (e.g. 'start': how many runs used this ledger). */
  countJournal(kind: string): number {
    const r = this.#db.prepare('SELECT COUNT(*) AS n FROM journal WHERE kind = ?').get(kind) as { n: number };
    return r.n;
  }

  /** The journal lines of one kind, oldest first, their data parsed (reports and tests). */
  journalEntries(kind: string): { ts: number; data: unknown }[] {
    const rows = this.#db.prepare('SELECT ts, data FROM journal WHERE kind = ? ORDER BY id').all(kind) as { ts: number; data: string | null }[];
    return rows.map((r) => ({ ts: r.ts, data: r.data === null ? null : (JSON.parse(r.data) as unknown) }));
  }

  /** Moves the rows a restart does not need, older than `before` (epoch ms), to the SQLite file `file` (archive.ts says which). */
  archive(before: number, file: string): ArchiveResult {
    return archiveRows(this.#db, this.#db.name, before, file);
  }

  /** Checkpoints the WAL into the main file and closes the database. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#checkpointer?.stop();
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
    this.#db.close();
    this.#lock?.close();
  }
}

/**
 * Takes the ledger's lock: an exclusive SQLite lock on `<path>.lock`, held by this process until
 * close() or its death (the OS drops the lock of a killed process, so a SIGKILL leaves nothing to
 * clean up). A second run on the same ledger (started twice by hand, or by a supervisor while the
 * old process is still shutting down) would place orders of its own beside the first one's and
 * reconcile, adopt and cancel them as if they were its own; it is refused at once instead. The
 * ledger itself stays readable by other tools while a run holds it.
 */
function holdLock(path: string): Database {
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
