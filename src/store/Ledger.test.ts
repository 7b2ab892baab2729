import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { StateError } from '../core/errors.js';
import { Ledger } from './Ledger.js';
import type { FillRecord, OrderRecord } from './records.js';

const here = dirname(fileURLToPath(import.meta.url));

const order = (clientId: string): OrderRecord => ({
  clientId,
  strategy: 's1',
  intentId: `i-${clientId}`,
  symbol: 'BTC_IDR',
  side: 'BUY',
  orderType: 'LIMIT',
  timeInForce: 'GTC',
  price: new Decimal('950000000.5'),
  quantity: new Decimal('0.00012345'),
  quoteOrderQty: undefined,
  stopPrice: undefined,
  icebergQty: undefined,
  stpMode: undefined,
  venue: 'open',
  orderId: undefined,
  state: 'PENDING',
  cumQty: ZERO,
  cumQuoteQty: ZERO,
  createdAt: 1000,
  sentAt: undefined,
  updatedAt: 1000,
  reason: undefined,
});

const fill = (tradeId: number, qty: string): FillRecord => ({
  clientId: 'c1',
  strategy: 's1',
  orderId: '77',
  symbol: 'BTC_IDR',
  side: 'BUY',
  tradeId,
  price: new Decimal('950000000.5'),
  qty: new Decimal(qty),
  quoteQty: new Decimal(qty).mul('950000000.5'),
  commission: new Decimal('0.000000012345'),
  commissionAsset: 'BTC',
  isMaker: true,
  time: 2000,
  source: 'stream',
});

describe('Ledger', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('round-trips orders exactly and records each state transition', () => {
    const l = Ledger.open(':memory:');
    l.insertOrder(order('c1'), 'intent');
    l.updateOrder('c1', { orderId: '77', state: 'NEW' }, 1100, 'rest');
    l.updateOrder('c1', { cumQty: new Decimal('0.0001') }, 1200, 'stream');
    const o = l.order('c1');
    expect(o?.price?.toFixed()).toBe('950000000.5');
    expect(o?.quantity?.toFixed()).toBe('0.00012345');
    expect(o?.cumQty.toFixed()).toBe('0.0001');
    expect(o?.orderId).toBe('77');
    expect(l.orderByOrderId('77')?.clientId).toBe('c1');
    expect(l.transitions('c1').map((t) => `${t.from}->${t.to}`)).toEqual(['null->PENDING', 'PENDING->NEW']);
    expect(l.updateOrder('nope', { state: 'NEW' }, 1, 'x')).toBeUndefined();
    l.close();
  });

  it('counts a fill once per (orderId, tradeId)', () => {
    const l = Ledger.open(':memory:');
    expect(l.recordFill(fill(1, '0.0001'))).toBe(true);
    expect(l.recordFill(fill(1, '0.0001'))).toBe(false);
    expect(l.recordFill(fill(2, '0.00002345'))).toBe(true);
    const total = l.fills('c1').reduce((a, f) => a.plus(f.qty), ZERO);
    expect(total.toFixed()).toBe('0.00012345');
    expect(l.fills()[0]?.commission.toFixed()).toBe('0.000000012345');
    l.close();
  });

  it('lists an order as open in every state but FILLED, CANCELED, REJECTED and EXPIRED', () => {
    const l = Ledger.open(':memory:');
    const states = ['PENDING', 'NEW', 'PARTIALLY_FILLED', 'UNKNOWN', 'FILLED', 'CANCELED', 'REJECTED', 'EXPIRED'] as const;
    for (const st of states) {
      l.insertOrder(order(st), 'intent');
      if (st !== 'PENDING') l.updateOrder(st, { state: st }, 1, 'rest');
    }
    expect(l.openOrders().map((o) => o.clientId).sort()).toEqual(['NEW', 'PARTIALLY_FILLED', 'PENDING', 'UNKNOWN']);
    l.close();
  });

  it('lists only non-terminal orders as open, and keeps the latest balance per asset', () => {
    const l = Ledger.open(':memory:');
    l.insertOrder(order('a'), 'intent');
    l.insertOrder(order('b'), 'intent');
    l.updateOrder('b', { state: 'FILLED' }, 1, 'rest');
    expect(l.openOrders().map((o) => o.clientId)).toEqual(['a']);
    l.recordBalances(1, 'rest', [{ asset: 'IDR', free: new Decimal('100.5'), locked: ZERO }]);
    l.recordBalances(2, 'stream', [{ asset: 'IDR', free: new Decimal('90'), locked: new Decimal('10.5') }]);
    expect(l.latestBalances().map((b) => `${b.asset}:${b.free.toFixed()}/${b.locked.toFixed()}`)).toEqual(['IDR:90/10.5']);
    l.close();
  });

  it('persists across a process killed without closing (what a restart after a crash sees), and is refused to a second process while one holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const path = join(dir, 'sub', 'ledger.db');
    // The child journals an order, a fill and a journal line, says so, and waits to be killed.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { Ledger } from ${JSON.stringify(pathToFileURL(join(here, 'Ledger.ts')).href)};
      import { Decimal } from ${JSON.stringify(pathToFileURL(join(here, '../core/decimal.ts')).href)};
      const o = JSON.parse(process.argv[1]);
      const f = JSON.parse(process.argv[2]);
      const l = Ledger.open(${JSON.stringify(path)});
      for (const k of ['price', 'quantity', 'cumQty', 'cumQuoteQty']) o[k] = new Decimal(o[k]);
      for (const k of ['price', 'qty', 'quoteQty', 'commission']) f[k] = new Decimal(f[k]);
      l.insertOrder(o, 'intent');
      l.recordFill(f);
      l.journal(5, 'start', { pid: 1 });
      process.stdout.write('ready\\n');
      setInterval(() => undefined, 1000);
    `, JSON.stringify(order('c1')), JSON.stringify(fill(9, '0.0001'))], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => (c.toString().includes('ready') ? resolve() : undefined));
        child.on('exit', (code) => reject(new Error(`child exited ${String(code)}`)));
      });
      // A second run on the same ledger would trade beside the first and take its orders for its own.
      expect(() => Ledger.open(path)).toThrow(/is in use by another process/);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    // The OS dropped the dead process's lock: nothing to clean up before the restart.
    const l2 = Ledger.open(path);
    expect(l2.openOrders().map((o) => o.clientId)).toEqual(['c1']);
    expect(l2.order('c1')?.price?.toFixed()).toBe('950000000.5');
    expect(l2.fills().map((f) => f.tradeId)).toEqual([9]);
    expect(l2.count('journal')).toBe(1);
    l2.close();
  }, 20_000);

  it('refuses a second open in the same process until the first is closed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const l1 = Ledger.open(path);
    let err: unknown;
    try {
      Ledger.open(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateError);
    expect((err as Error).message).toBe(`ledger ${path} is in use by another process (another kancil run on this ledger?); refusing to start: two runs would each trade and each take the other's orders for its own`);
    l1.close();
    Ledger.open(path).close();
  });

  describe('refuses to start on a ledger it cannot trust (a fresh one would forget the open orders)', () => {
    const ledgerPath = (): string => {
      const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
      dirs.push(dir);
      return join(dir, 'ledger.db');
    };
    const refusal = (path: string): StateError => {
      try {
        Ledger.open(path).close();
      } catch (err) {
        expect(err).toBeInstanceOf(StateError);
        return err as StateError;
      }
      throw new Error(`Ledger.open(${path}) did not refuse`);
    };

    it('a file that is not an SQLite database', () => {
      const path = ledgerPath();
      writeFileSync(path, 'not a database, just bytes '.repeat(200));
      const err = refusal(path);
      expect(err.message).toContain(path);
      expect(err.message).toMatch(/not a readable kancil ledger.*file is not a database.*refusing to start/);
    });

    it('a ledger written by a newer schema version, with its orders left untouched', () => {
      const path = ledgerPath();
      const l = Ledger.open(path);
      l.insertOrder(order('c1'), 'intent');
      l.close();
      const db = new BetterSqlite3(path);
      db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
      db.close();
      expect(refusal(path).message).toMatch(/schema_version=2 was written by a newer kancil \(this one reads up to 1\)/);
      const raw = new BetterSqlite3(path, { readonly: true });
      expect(raw.prepare('SELECT client_id FROM orders').all()).toEqual([{ client_id: 'c1' }]);
      raw.close();
    });

    it('a schema version that is not a number', () => {
      const path = ledgerPath();
      Ledger.open(path).close();
      const db = new BetterSqlite3(path);
      db.prepare("UPDATE meta SET value = 'x' WHERE key = 'schema_version'").run();
      db.close();
      expect(refusal(path).message).toContain('schema_version="x" is not a version this kancil knows');
    });

    it('another application\'s database whose tables have other columns', () => {
      const path = ledgerPath();
      const db = new BetterSqlite3(path);
      db.exec('CREATE TABLE orders (x TEXT)');
      db.close();
      expect(refusal(path).message).toMatch(/not a readable kancil ledger \(no such column/);
    });
  });
});
