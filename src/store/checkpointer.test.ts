import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { type WalRestartProbe, walRestarted } from '../core/probes.js';
import { startCheckpointer } from './checkpointer.js';
import { Ledger } from './Ledger.js';
import { testOrder } from './testOrder.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'kancil-checkpoint-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Waits until `ok()` or `ms` pass; returns whether it became true. */
async function eventually(ok: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return ok();
}

/** A WAL database at `path` that never checkpoints on its own, with 500 rows in its log. */
function walWithRows(path: string): { db: BetterSqlite3.Database; ins: BetterSqlite3.Statement } {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT)');
  const ins = db.prepare('INSERT INTO t (data) VALUES (?)');
  for (let i = 0; i < 500; i++) ins.run('x'.repeat(200));
  return { db, ins };
}

/** Expects the worker to write pages into the file (only a checkpoint does, autocheckpoint off) and to report no failure; then `end()`. */
async function expectCheckpointed(path: string, before: number, failures: string[], end: () => void): Promise<void> {
  try {
    expect(await eventually(() => statSync(path).size > before, 5000)).toBe(true);
    expect(failures).toEqual([]);
  } finally {
    end();
  }
}

describe('the checkpoint worker', () => {
  it('moves the WAL into the database file while the writer never checkpoints', async () => {
    const path = join(tempDir(), 'w.db');
    const { db } = walWithRows(path);
    const before = statSync(path).size;
    const failures: string[] = [];
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 20 });
    await expectCheckpointed(path, before, failures, () => (c.stop(), db.close()));
  });

  it('keeps the WAL near its cap while commits never stop, and every commit succeeds', async () => {
    const path = join(tempDir(), 'w.db');
    const cap = 2 * 1024 * 1024;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${cap}`);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT)');
    const ins = db.prepare('INSERT INTO t (data) VALUES (?)');
    const failures: string[] = [];
    const restarts: WalRestartProbe[] = [];
    const onRestart = (m: unknown): void => void restarts.push(m as WalRestartProbe);
    walRestarted.subscribe(onRestart);
    const t0 = performance.now();
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 10, walCapBytes: cap });
    let largest = 0;
    let commits = 0;
    try {
      // ~1 s of commits, ten a millisecond (a page each): a PASSIVE pass alone seldom lets the
      // log start over, so without the RESTART past the cap the file reached 12-16 MB here.
      const until = Date.now() + 1000;
      while (Date.now() < until) {
        for (let i = 0; i < 10; i++) commits += ins.run('x'.repeat(200)).changes;
        largest = Math.max(largest, statSync(`${path}-wal`).size);
        Atomics.wait(pause, 0, 0, 1);
      }
      // The worker's reports of its passes come as messages to this thread's loop.
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      c.stop();
      walRestarted.unsubscribe(onRestart);
    }
    const rows = (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
    db.close();
    expect(failures).toEqual([]);
    // Every commit waited out the RESTART (busy_timeout) instead of failing.
    expect(rows).toBe(commits);
    expect(largest).toBeLessThan(4 * cap);
    // Each RESTART pass is published in this thread's clock, inside the test's span.
    expect(restarts.length).toBeGreaterThan(0);
    for (const r of restarts) expect(t0 <= r.start && r.start <= r.end && r.end <= performance.now()).toBe(true);
  });

  it('makes a log over the cap start over once, not again at every tick while nothing is written', async () => {
    const path = join(tempDir(), 'w.db');
    const cap = 256 * 1024;
    // 500 commits of a page or more each: ~2 MB of log.
    const { db, ins } = walWithRows(path);
    db.pragma('busy_timeout = 5000');
    const failures: string[] = [];
    const restarts: WalRestartProbe[] = [];
    const onRestart = (m: unknown): void => void restarts.push(m as WalRestartProbe);
    walRestarted.subscribe(onRestart);
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 10, walCapBytes: cap });
    try {
      expect(await eventually(() => restarts.length > 0, 5000)).toBe(true);
      // Twenty ticks with no commit: the file is still over the cap (no writer has rewound it), but
      // the log it holds was all copied at that RESTART. Judged by the file's size, each tick
      // restarted it again, holding off writers each time.
      await new Promise((r) => setTimeout(r, 200));
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(cap);
      expect(restarts.length).toBe(1);
      // The next commit rewinds the log; its frames start over and stay under the cap.
      ins.run('x');
      await new Promise((r) => setTimeout(r, 100));
      expect(restarts.length).toBe(1);
    } finally {
      c.stop();
      walRestarted.unsubscribe(onRestart);
      db.close();
    }
    expect(failures).toEqual([]);
  });

  it('never holds a commit while a reader keeps a snapshot of the log', async () => {
    const path = join(tempDir(), 'w.db');
    const cap = 256 * 1024;
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = WAL');
    // Short of the run's 5 s, so that a commit held by the worker fails here at once.
    db.pragma('busy_timeout = 1000');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT)');
    const ins = db.prepare('INSERT INTO t (data) VALUES (?)');
    for (let i = 0; i < 200; i++) ins.run('x'.repeat(2000));
    // The reader's snapshot pins the log: a RESTART can neither copy past it nor rewind.
    const reader = new BetterSqlite3(path, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM t').get();
    for (let i = 0; i < 10; i++) ins.run('x'.repeat(2000));
    const failures: string[] = [];
    const restarts: WalRestartProbe[] = [];
    const onRestart = (m: unknown): void => void restarts.push(m as WalRestartProbe);
    walRestarted.subscribe(onRestart);
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 10, walCapBytes: cap });
    let slowest = 0;
    try {
      // At least 300 ms, and until the worker (slow to start under load) has tried a RESTART.
      const from = Date.now();
      while (Date.now() < from + 300 || (restarts.length === 0 && Date.now() < from + 5000)) {
        const t = performance.now();
        ins.run('x'.repeat(200));
        slowest = Math.max(slowest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 1));
      }
    } finally {
      c.stop();
      walRestarted.unsubscribe(onRestart);
      reader.exec('COMMIT');
      reader.close();
      db.close();
    }
    expect(failures).toEqual([]);
    // The worker tried its RESTART while the reader held the log, and no commit waited on it.
    expect(restarts.length).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(500);
  });

  it('takes a lock held by another connection as a pass to try again, not as its end', async () => {
    const path = join(tempDir(), 'w.db');
    const { db, ins } = walWithRows(path);
    // Exclusive locking: the worker's checkpoints throw SQLITE_BUSY until it is given up.
    db.pragma('locking_mode = EXCLUSIVE');
    ins.run('x');
    const before = statSync(path).size;
    const failures: string[] = [];
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 10 });
    await new Promise((r) => setTimeout(r, 100));
    const whileHeld = statSync(path).size;
    db.pragma('locking_mode = NORMAL');
    db.prepare('SELECT COUNT(*) FROM t').get();
    await expectCheckpointed(path, before, failures, () => (c.stop(), db.close()));
    expect(whileHeld).toBe(before);
  });

  it('lets a commit that reads before it writes wait for the write lock like any other', async () => {
    const path = join(tempDir(), 'ledger.db');
    const ledger = Ledger.open(path);
    try {
      ledger.insertOrder(testOrder('c1'), 'intent');
      // Another connection holds the write lock for 150 ms, as the worker's RESTART does.
      const held = new Int32Array(new SharedArrayBuffer(4));
      const holder = new Worker(
        `const { workerData } = require('node:worker_threads');
        const db = new (require(workerData.sqlite))(workerData.path);
        db.exec('BEGIN IMMEDIATE');
        Atomics.store(workerData.held, 0, 1);
        Atomics.notify(workerData.held, 0);
        Atomics.wait(workerData.held, 0, 1, 150);
        db.exec('COMMIT');
        db.close();`,
        { eval: true, workerData: { path, held, sqlite: createRequire(import.meta.url).resolve('better-sqlite3') } },
      );
      const ended = new Promise((r) => holder.once('exit', r));
      expect(await eventually(() => Atomics.load(held, 0) === 1, 5000)).toBe(true);
      // No record passed: the update reads the row first, then writes.
      expect(ledger.updateOrder('c1', { state: 'NEW', orderId: '1' }, 2, 'stream')?.state).toBe('NEW');
      await ended;
    } finally {
      ledger.close();
    }
  });

  it('reports a ledger it cannot open, so the writer checkpoints again', async () => {
    const failures: string[] = [];
    startCheckpointer(join(tempDir(), 'no-such-dir', 'x.db'), (why) => failures.push(why), { intervalMs: 20 });
    expect(await eventually(() => failures.length > 0, 5000)).toBe(true);
    expect(failures).toHaveLength(1);
  });

  it('runs for a ledger opened with it: orders written below the automatic threshold reach the file', async () => {
    const path = join(tempDir(), 'ledger.db');
    const ledger = Ledger.open(path, { checkpointInWorker: true });
    try {
      const before = statSync(path).size;
      // ~40 orders: a few hundred WAL pages, under SQLite's own 1,000-page threshold.
      for (let i = 0; i < 40; i++) {
        ledger.insertOrder(
          { clientId: `c${i}`, strategy: 's', intentId: `i${i}`, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('1'), quantity: new Decimal('1'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open', orderId: undefined, state: 'PENDING', cumQty: ZERO, cumQuoteQty: ZERO, createdAt: i, sentAt: undefined, updatedAt: i, reason: undefined },
          'intent',
        );
      }
      expect(await eventually(() => statSync(path).size > before, 5000)).toBe(true);
      expect(ledger.order('c39')?.state).toBe('PENDING');
    } finally {
      ledger.close();
    }
    // close() waited for the worker's connection: the files are settled (the WAL gone with the last connection).
    expect(() => statSync(`${path}-wal`)).toThrow();
  });
});
