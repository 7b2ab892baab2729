import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { type WalRestartProbe, walRestarted } from '../core/probes.js';
import { startCheckpointer } from './checkpointer.js';
import { Ledger } from './Ledger.js';

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

describe('the checkpoint worker', () => {
  it('moves the WAL into the database file while the writer never checkpoints', async () => {
    const path = join(tempDir(), 'w.db');
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT)');
    const ins = db.prepare('INSERT INTO t (data) VALUES (?)');
    for (let i = 0; i < 500; i++) ins.run('x'.repeat(200));
    const before = statSync(path).size;
    const failures: string[] = [];
    const c = startCheckpointer(path, (why) => failures.push(why), { intervalMs: 20 });
    try {
      // With autocheckpoint off, only a checkpoint (the worker's) writes pages into the file.
      expect(await eventually(() => statSync(path).size > before, 5000)).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      c.stop();
      db.close();
    }
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
