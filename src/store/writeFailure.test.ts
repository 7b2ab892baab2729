import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ZERO } from '../core/decimal.js';
import { Ledger } from './Ledger.js';
import { fillDisk } from './testFullDisk.js';
import { testOrder } from './testOrder.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a ledger write that fails', () => {
  it('is told to onWriteFailure, then thrown to the caller; reads and later writes are not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-full-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const told: unknown[] = [];
    const ledger = Ledger.open(path, { onWriteFailure: (err) => told.push(err) });
    ledger.insertOrder(testOrder('a'), 'intent');
    const room = fillDisk(path);
    const writes: (() => unknown)[] = [
      () => ledger.journal(2000, 'marks', {}),
      () => ledger.updateOrder('a', { state: 'NEW', orderId: '1' }, 2000, 'rest'),
      () => ledger.insertOrder(testOrder('b'), 'intent'),
      () => ledger.recordBalances(2000, 'rest', [{ asset: 'IDR', free: ZERO, locked: ZERO }]),
    ];
    for (const w of writes) expect(w).toThrow('database or disk is full');
    expect(told.map((e) => (e as Error).name)).toEqual(['SqliteError', 'SqliteError', 'SqliteError', 'SqliteError']);
    expect(ledger.order('a')?.state).toBe('PENDING');
    room();
    ledger.updateOrder('a', { state: 'NEW', orderId: '1' }, 3000, 'rest');
    expect(told).toHaveLength(4);
    ledger.close();
  });
});
