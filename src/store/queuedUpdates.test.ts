import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from './Ledger.js';
import { crashImage } from './testCrashImage.js';
import { fillDisk } from './testFullDisk.js';
import { testOrder } from './testOrder.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file ledger holding order `a`, sent. */
function sentOrder(opts: Parameters<typeof Ledger.open>[1] = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'kancil-queued-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const ledger = Ledger.open(path, opts);
  ledger.insertOrder(testOrder('a'), 'intent');
  const sent = ledger.updateOrder('a', { sentAt: 1500 }, 1500, 'send') ?? testOrder('a');
  return { path, ledger, sent };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('order changes queued for the next commit (Ledger.queueUpdate)', () => {
  it('are committed at the end of the turn, one row write for successive changes, every transition kept in order', async () => {
    const { path, ledger, sent } = sentOrder();
    const reader = new BetterSqlite3(path, { readonly: true });
    const row = () => reader.prepare("SELECT state, order_id AS orderId, reason FROM orders WHERE client_id = 'a'").get();
    const isNew = ledger.queueUpdate({ state: 'NEW', orderId: '7' }, 2000, 'stream', sent);
    const ended = ledger.queueUpdate({ state: 'EXPIRED', reason: 'IOC_NO_FILL' }, 2001, 'stream', isNew);
    expect([isNew.state, ended.state, ended.orderId]).toEqual(['NEW', 'EXPIRED', '7']);
    // Another connection sees the order as it was until the turn ends.
    expect(row()).toEqual({ state: 'PENDING', orderId: null, reason: null });
    await turn();
    expect(row()).toEqual({ state: 'EXPIRED', orderId: '7', reason: 'IOC_NO_FILL' });
    expect(ledger.transitions('a').map((t) => [t.from, t.to, t.ts])).toEqual([[null, 'PENDING', 1000], ['PENDING', 'NEW', 2000], ['NEW', 'EXPIRED', 2001]]);
    reader.close();
    ledger.close();
  });

  it('are written in the commit of any later write, before its rows: a crash never leaves the later row without them', () => {
    const { path, ledger, sent } = sentOrder();
    ledger.queueUpdate({ state: 'EXPIRED', orderId: '7' }, 2000, 'stream', sent);
    ledger.insertOrder({ ...testOrder('b'), createdAt: 2001, updatedAt: 2001 }, 'intent');
    const image = crashImage(path);
    expect(image.order('a')?.state).toBe('EXPIRED');
    expect(image.transitions().map((t) => [t.clientId, t.to])).toEqual([['a', 'PENDING'], ['a', 'EXPIRED'], ['b', 'PENDING']]);
    image.close();
    ledger.close();
  });

  it('are lost by a crash before their commit: the order stays as last committed', () => {
    const { path, ledger, sent } = sentOrder();
    ledger.queueUpdate({ state: 'EXPIRED', orderId: '7' }, 2000, 'stream', sent);
    const image = crashImage(path);
    expect([image.order('a')?.state, image.order('a')?.sentAt]).toEqual(['PENDING', 1500]);
    image.close();
    ledger.close();
  });

  it('are committed by close', () => {
    const { path, ledger, sent } = sentOrder();
    ledger.queueUpdate({ state: 'CANCELED', orderId: '7' }, 2000, 'stream', sent);
    ledger.close();
    const again = Ledger.open(path);
    expect(again.order('a')?.state).toBe('CANCELED');
    again.close();
  });

  it('that cannot be committed at the end of the turn are told to onWriteFailure and kept for the next write', async () => {
    const told: unknown[] = [];
    const { path, ledger, sent } = sentOrder({ onWriteFailure: (err) => told.push(err) });
    const room = fillDisk(path);
    ledger.queueUpdate({ state: 'NEW', orderId: '7' }, 2000, 'stream', sent);
    await turn();
    expect(told.map((e) => (e as Error).message)).toEqual(['database or disk is full']);
    expect(() => ledger.journal(2100, 'marks', {})).toThrow('database or disk is full');
    expect(told).toHaveLength(2);
    room();
    ledger.journal(2200, 'marks', {});
    const image = crashImage(path);
    expect([image.order('a')?.state, image.order('a')?.orderId, image.countJournal('marks')]).toEqual(['NEW', '7', 1]);
    image.close();
    ledger.close();
  });
});
