import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
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
    const c = startCheckpointer(path, (why) => failures.push(why), 20);
    try {
      // With autocheckpoint off, only a checkpoint (the worker's) writes pages into the file.
      expect(await eventually(() => statSync(path).size > before, 5000)).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      c.stop();
      db.close();
    }
  });

  it('reports a ledger it cannot open, so the writer checkpoints again', async () => {
    const failures: string[] = [];
    startCheckpointer(join(tempDir(), 'no-such-dir', 'x.db'), (why) => failures.push(why), 20);
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
