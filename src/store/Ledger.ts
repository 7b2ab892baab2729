/**
 * The SQLite ledger: intents, risk decisions, orders and their transitions, fills, balances and a
 * free-form journal. Every write is synchronous and committed before the caller acts on it, so a
 * process killed at any instant (SIGKILL) leaves a ledger that names every order it may have sent;
 * but for order changes the exchange can tell again (queueUpdate), committed with the next write
 * or at the end of the turn, never after a row written later.
 *
 * WAL mode with synchronous=NORMAL: a committed transaction survives a process crash (the WAL is
 * in the OS page cache); only a power loss could drop the last transactions, which is acceptable
 * because start-up reconciliation with the exchange recovers fills from the exchange anyway. A
 * run's ledger is checkpointed by a worker thread (checkpointer.ts), not in its commits.
 */
import { makeFolder } from './makeFolder.js';
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
import { ledgerPathProblem } from './ledgerFile.js';
import { holdLock } from './ledgerLock.js';
import { freshLedgerFile, ledgerOpenFailure } from './ledgerOpenFailure.js';
import { checkSchemaVersion, migrateLedger } from './migrate.js';
import { asStored, changedColumns, orderParams, patchedOrder, scrubbed, UPDATE_COLUMNS, type OrderPatch } from './orderColumns.js';
import { QueuedPatches, type QueuedBatch } from './queuedPatches.js';
import { fromFillRow, fromOrderRow, type FillRow, type OrderRow } from './rows.js';
import { prepareStatements, type LedgerStatements } from './ledgerStatements.js';
import { LEDGER_DDL } from './schema.js';

export { TERMINAL_STATES };
export type { OrderPatch };

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

/** The ledger's multi-statement writes, each one commit (see Ledger.#tx). */
interface LedgerWrites {
  insertOrder: (o: OrderRecord, source: string) => void;
  updateOrder: (clientId: string, patch: OrderPatch, ts: number, source: string, detail: string | undefined, current: OrderRecord | undefined) => OrderRecord | undefined;
  balances: (ts: number, source: string, balances: readonly Balance[]) => void;
  gate: (ts: number, intent: Intent, d: RiskDecisionRecord, order: OrderRecord | undefined, taken: RiskDecisionRecord | undefined) => boolean;
}

/** The run's persistent record. One instance per process; not shared between processes. */
export class Ledger {
  readonly #db: Database;
  readonly #st: LedgerStatements;
  /**
   * The multi-statement writes, wrapped once: better-sqlite3 builds four wrapper functions and
   * defines their properties on every `db.transaction()` call, which cost about as much as a
   * statement per order when made per call. Each begins IMMEDIATE: a deferred transaction that
   * reads before it writes fails at once (SQLITE_BUSY, no busy timeout) if the checkpoint worker
   * holds the write lock at that instant.
   */
  readonly #tx: LedgerWrites & {
    /** The queued order changes, then `run` (a write), in one commit. */
    withQueued: (batch: QueuedBatch, run: () => unknown) => unknown;
  };
  /** The same writes' bodies, to run inside withQueued's commit. */
  readonly #body: LedgerWrites;
  /** Order changes waiting for the next commit (see queueUpdate). */
  readonly #queued = new QueuedPatches();
  #flushDue = false;
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
    this.#st = prepareStatements(db);
    const st = this.#st;
    const body: LedgerWrites = {
      insertOrder: (o, source) => {
        st.insertOrder.run(orderParams(o));
        st.transition.run(o.createdAt, o.clientId, null, o.state, source, scrubbed(o.reason));
      },
      updateOrder: (clientId, patch, ts, source, detail, current) => {
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
      },
      balances: (ts, source, balances) => {
        for (const b of balances) st.balance.run(ts, source, b.asset, b.free.toFixed(), b.locked.toFixed());
      },
      gate: (ts, intent, d, order, taken) => {
        this.#intent(ts, intent);
        const fresh = order === undefined || st.insertNewOrder.run(orderParams(order)).changes > 0;
        this.#risk(ts, fresh ? d : (taken ?? d));
        if (order !== undefined && fresh) st.transition.run(order.createdAt, order.clientId, null, order.state, 'intent', scrubbed(order.reason));
        return fresh;
      },
    };
    this.#body = body;
    this.#tx = {
      insertOrder: db.transaction(body.insertOrder).immediate,
      updateOrder: db.transaction(body.updateOrder).immediate,
      balances: db.transaction(body.balances).immediate,
      gate: db.transaction(body.gate).immediate,
      withQueued: db.transaction((batch: QueuedBatch, run: () => unknown) => {
        for (const r of batch.rows.values()) this.#updateOf(changedColumns(r.before, r.after)).run(orderParams(r.after));
        for (const t of batch.transitions) st.transition.run(t.ts, t.clientId, t.from, t.to, t.source, t.detail);
        return run();
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
    const problem = ledgerPathProblem(path);
    if (problem !== undefined) throw new StateError(`ledger ${path}: ${problem}`);
    try {
      if (path !== ':memory:') makeFolder(dirname(path));
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
    this.#write(() => this.#st.journal.run(ts, kind, scrubSecretText(JSON.stringify(data ?? null))));
  }

  /** Records an intent as the strategy emitted it (idempotent on intentId). */
  recordIntent(ts: number, intent: Intent): void {
    this.#write(() => this.#intent(ts, intent));
  }

  #intent(ts: number, intent: Intent): void {
    const symbol = intent.kind === 'cancelAll' ? (intent.symbol ?? null) : intent.symbol;
    const clientId = intent.kind === 'cancelAll' ? null : intent.clientId;
    this.#st.intent.run(intent.intentId, ts, intent.strategy, intent.kind, symbol, clientId, intentJson(intent));
  }

  /** Records the risk checker's verdict on an intent. */
  recordRiskDecision(ts: number, d: RiskDecisionRecord): void {
    this.#write(() => this.#risk(ts, d));
  }

  #risk(ts: number, d: RiskDecisionRecord): void {
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
    return this.#write(() => this.#body.gate(ts, intent, d, order, taken), () => this.#tx.gate(ts, intent, d, order, taken));
  }

  /** Journals a new order (normally PENDING, before its request is sent) and its first transition, atomically. */
  insertOrder(o: OrderRecord, source: string): void {
    this.#write(() => this.#body.insertOrder(o, source), () => this.#tx.insertOrder(o, source));
  }

  /**
   * Applies a patch to an order and records the transition when the state changed, atomically.
   * Returns the updated record, or undefined when the order is not in the ledger. `current` is
   * the order as this ledger last returned it, when the caller keeps it: the ledger has one
   * writer (its lock), so the row equals it and is not read back and parsed again (an order's
   * journal writes it three times or more, once on the way to the exchange).
   */
  updateOrder(clientId: string, patch: OrderPatch, ts: number, source: string, detail?: string, current?: OrderRecord): OrderRecord | undefined {
    return this.#write(() => this.#body.updateOrder(clientId, patch, ts, source, detail, current), () => this.#tx.updateOrder(clientId, patch, ts, source, detail, current));
  }

  /** Records a fill; returns false (and changes nothing) when (orderId, tradeId) was already recorded. */
  recordFill(f: FillRecord): boolean {
    return this.#write(() => this.#recordFill(f));
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
    return this.#write(() => this.#st.quarantine.run(ts, f.clientId, f.orderId, f.tradeId, f.source, scrubSecretText(reason), scrubSecretText(JSON.stringify(data))).changes > 0);
  }

  /**
   * Keeps an inconsistent exchange order snapshot out of the orders (its tradeId is ""); false
   * when this exact one was kept already.
   */
  quarantineOrder(ts: number, clientId: string, orderId: string, source: string, reason: string, data: QuarantineRecord['data']): boolean {
    return this.#write(() => this.#st.quarantine.run(ts, clientId, orderId, '', source, scrubSecretText(reason), scrubSecretText(JSON.stringify(data))).changes > 0);
  }

  /** The quarantined fills and order snapshots, oldest first. */
  quarantined(): QuarantineRecord[] {
    const rows = this.#st.quarantined.all() as { ts: number; client_id: string; order_id: string; trade_id: string; source: string; reason: string; data: string }[];
    return rows.map((r) => ({ ts: r.ts, clientId: r.client_id, orderId: r.order_id, tradeId: r.trade_id, source: r.source, reason: r.reason, data: JSON.parse(r.data) as QuarantineRecord['data'] }));
  }

  /** Records a balance snapshot (from the exchange, an account stream update or the simulator). */
  recordBalances(ts: number, source: string, balances: readonly Balance[]): void {
    this.#write(() => this.#body.balances(ts, source, balances), () => this.#tx.balances(ts, source, balances));
  }

  /**
   * Applies a patch to an order in memory and queues its row and transition for the next commit:
   * any write, or read of orders, that comes first, else the end of this turn of the event loop
   * (setImmediate), or close. Successive changes of one order coalesce into one row write. For
   * changes the exchange can tell again (a report's state without a fill): a crash before that
   * commit leaves the order as it was, which restart reconciliation resolves by its clientId.
   * `current` is the order as this ledger holds it, with the changes queued so far.
   */
  queueUpdate(patch: OrderPatch, ts: number, source: string, current: OrderRecord): OrderRecord {
    if (this.#closed) throw this.#failed(new StateError(`ledger closed: order ${current.clientId}'s change cannot be journalled`));
    const before = current.reason === undefined ? current : asStored(current);
    const after = patchedOrder(before, patch, ts);
    const transition = after.state === before.state ? undefined : { ts, clientId: after.clientId, from: before.state, to: after.state, source, detail: scrubbed(after.reason) };
    this.#queued.add(before, after, transition);
    if (!this.#flushDue) {
      this.#flushDue = true;
      setImmediate(this.#flushTurn);
    }
    return after;
  }

  /** The end of a turn that queued changes; a failure is told to onWriteFailure, the queue kept for the next write. */
  readonly #flushTurn = (): void => {
    this.#flushDue = false;
    if (this.#closed) return;
    try {
      this.#flush();
    } catch {
      // Told to onWriteFailure (a run stops on it); the next write or close tries again.
    }
  };

  /** Commits the queued order changes, if any. */
  #flush(): void {
    if (!this.#queued.empty) this.#write(() => undefined);
  }

  /**
   * Runs a write as its own commit (`tx`), or, with order changes queued, as `run` in the commit
   * that writes them first: no row is ever in the ledger without the changes queued before it. A
   * failure is told to onWriteFailure and thrown; the queued changes stay for the next commit.
   */
  #write<T>(run: () => T, tx: () => T = run): T {
    try {
      if (this.#queued.empty) return tx();
      const batch = this.#queued.take();
      try {
        return this.#tx.withQueued(batch, run) as T;
      } catch (err) {
        this.#queued.restore(batch);
        throw err;
      }
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
    this.#flush();
    const row = this.#st.getOrder.get(clientId) as OrderRow | undefined;
    return row ? fromOrderRow(row) : undefined;
  }

  /** One order by exchange orderId. */
  orderByOrderId(orderId: string): OrderRecord | undefined {
    this.#flush();
    const row = this.#st.byOrderId.get(orderId) as OrderRow | undefined;
    return row ? fromOrderRow(row) : undefined;
  }

  /** Orders not in a terminal state (including PENDING and UNKNOWN), oldest first. */
  openOrders(): OrderRecord[] {
    this.#flush();
    return (this.#st.openOrders.all() as OrderRow[]).map(fromOrderRow);
  }

  /** Every order, oldest first. */
  orders(): OrderRecord[] {
    this.#flush();
    return (this.#st.allOrders.all() as OrderRow[]).map(fromOrderRow);
  }

  /**
   * State transitions of one order, or of every order, in recording order (reports and tests:
   * no index serves one order's, so each call reads the whole table).
   */
  transitions(clientId?: string): TransitionRecord[] {
    this.#flush();
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
    this.#flush();
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
    this.#flush();
    return archiveRows(this.#db, this.#db.name, before, file);
  }

  /** Checkpoints the WAL into the main file and closes the database. Idempotent. */
  close(): void {
    if (this.#closed) return;
    let unwritten: unknown;
    try {
      this.#flush();
    } catch (err) {
      // Told to onWriteFailure; the ledger still closes, and the caller hears of it after.
      unwritten = err;
    }
    this.#closed = true;
    this.#checkpointer?.stop();
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
    this.#db.close();
    this.#lock?.close();
    if (unwritten !== undefined) throw unwritten;
  }
}
