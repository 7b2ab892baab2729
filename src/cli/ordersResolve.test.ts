import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import type { OrderRecord } from '../store/records.js';
import { runCli } from './main.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-resolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function order(clientId: string, state: OrderRecord['state'], cumQty = ZERO): OrderRecord {
  return { clientId, strategy: 'mm', intentId: `i-${clientId}`, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('60000.5'), quantity: new Decimal('0.002'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open', orderId: `9${clientId.length}`, state, cumQty, cumQuoteQty: ZERO, createdAt: 1, sentAt: 2, updatedAt: 2, reason: undefined };
}

/** A ledger file holding the given orders, closed (the run stopped). */
function ledgerWith(name: string, orders: readonly OrderRecord[]): string {
  const file = path.join(dir, `${name}.db`);
  const l = Ledger.open(file);
  for (const o of orders) l.insertOrder(o, 'test');
  l.close();
  return file;
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {} });
  return { code, out, err };
}

describe('kancil orders resolve', () => {
  it('closes a live order as canceled, journalled before the change, and it is open no more', async () => {
    const file = ledgerWith('a', [order('mm-1', 'NEW'), order('mm-2', 'UNKNOWN')]);
    const r = await cli('orders', 'resolve', 'mm-1', '--as', 'canceled', '--reason', 'not on the exchange after its restart', '--ledger', file);
    expect(r).toMatchObject({ code: 0, out: 'mm-1: NEW -> CANCELED (not on the exchange after its restart); executed 0\n' });
    const j = await cli('orders', 'resolve', 'mm-2', '--as', 'rejected', '--ledger', file, '--json');
    expect(JSON.parse(j.out)).toMatchObject({ clientId: 'mm-2', state: 'REJECTED', reason: 'OPERATOR: operator decision' });
    const l = Ledger.open(file);
    try {
      expect(l.openOrders()).toEqual([]);
      expect(l.order('mm-1')?.reason).toBe('OPERATOR: not on the exchange after its restart');
      expect(l.countJournal('operatorResolve')).toBe(2);
      expect(l.transitions('mm-1').at(-1)).toMatchObject({ source: 'operator' });
    } finally {
      l.close();
    }
  });

  it('refuses what it cannot honestly do, naming the field: a closed order, "rejected" with fills, an unknown id, a bad --as', async () => {
    const file = ledgerWith('b', [order('mm-1', 'FILLED'), order('mm-2', 'PARTIALLY_FILLED', new Decimal('0.001'))]);
    const closed = await cli('orders', 'resolve', 'mm-1', '--as', 'canceled', '--ledger', file);
    expect(closed.code).toBe(2);
    expect(closed.err).toMatch(/already FILLED/);
    const executed = await cli('orders', 'resolve', 'mm-2', '--as', 'rejected', '--ledger', file);
    expect(executed.code).toBe(2);
    expect(executed.err).toMatch(/--as.*0\.001 of the order executed/);
    expect((await cli('orders', 'resolve', 'nope', '--as', 'canceled', '--ledger', file)).err).toMatch(/clientId.*no order/);
    const typo = await cli('orders', 'resolve', 'mm-1', '--as', 'canceled', '--ledger', path.join(dir, 'typo.db'));
    expect(typo.code).toBe(2);
    expect(existsSync(path.join(dir, 'typo.db'))).toBe(false);
    const bad = await cli('orders', 'resolve', 'mm-2', '--as', 'filled', '--ledger', file);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--as.*filled.*canceled, rejected/);
  });

  it('refuses while a run holds the ledger (exit 1), changing nothing', async () => {
    const file = ledgerWith('c', [order('mm-1', 'NEW')]);
    const running = Ledger.open(file);
    try {
      const r = await cli('orders', 'resolve', 'mm-1', '--as', 'canceled', '--ledger', file);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/in use by another process/);
      expect(running.order('mm-1')?.state).toBe('NEW');
    } finally {
      running.close();
    }
  });
});
