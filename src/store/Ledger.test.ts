import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { StateError } from '../core/errors.js';
import { addSecretValues } from '../core/secretScrub.js';
import { Ledger } from './Ledger.js';
import { LedgerReader } from './LedgerReader.js';
import type { FillRecord, OrderRecord } from './records.js';
import { testOrder } from './testOrder.js';
import { LEDGER_DDL, LEDGER_SCHEMA_VERSION } from './schema.js';

const here = dirname(fileURLToPath(import.meta.url));

const order = testOrder;

const fill = (tradeId: number | string, qty: string): FillRecord => ({
  clientId: 'c1',
  strategy: 's1',
  orderId: '77',
  symbol: 'BTC_IDR',
  side: 'BUY',
  tradeId: String(tradeId),
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

  it('an update given the current record returns and writes what reading the row back would (reason scrubbed, extra fields dropped)', () => {
    const secret = 'ledgerCurrentSecret-51c0e2';
    addSecretValues([secret]);
    const readBack = Ledger.open(':memory:');
    const passed = Ledger.open(':memory:');
    const steps: { patch: Parameters<Ledger['updateOrder']>[1]; ts: number }[] = [
      { patch: { venue: 'open', sentAt: 1050 }, ts: 1050 },
      { patch: { state: 'UNKNOWN', reason: `timeout, key ${secret}` }, ts: 1100 },
      { patch: { orderId: '77', state: 'NEW' }, ts: 1200 },
      { patch: { cumQty: new Decimal('0.0001'), cumQuoteQty: new Decimal('95000.00005'), state: 'PARTIALLY_FILLED' }, ts: 1300 },
    ];
    readBack.insertOrder(order('c1'), 'intent');
    passed.insertOrder(order('c1'), 'intent');
    let current: OrderRecord = { ...order('c1'), extra: 'not journalled' } as OrderRecord;
    for (const { patch, ts } of steps) {
      const a = readBack.updateOrder('c1', patch, ts, 'rest');
      const b = passed.updateOrder('c1', patch, ts, 'rest', undefined, current);
      expect(b).toEqual(a);
      current = b!;
    }
    const next = passed.updateOrder('c1', { state: 'CANCELED' }, 1400, 'stream', undefined, current);
    expect(next?.reason).toBe('timeout, key [redacted]');
    expect(next).toEqual(readBack.updateOrder('c1', { state: 'CANCELED' }, 1400, 'stream'));
    expect(passed.order('c1')).toEqual(readBack.order('c1'));
    expect(passed.transitions('c1')).toEqual(readBack.transitions('c1'));
    expect(passed.updateOrder('nope', { state: 'NEW' }, 1, 'x', undefined, { ...order('nope') })).toBeUndefined();
    readBack.close();
    passed.close();
  });

  it('an update writes every column it changes, and the send only the row: no index page of state or order_id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const file = join(dir, 'ledger.db');
    const l = Ledger.open(file);
    l.insertOrder(order('c1'), 'intent');
    const steps: Parameters<Ledger['updateOrder']>[1][] = [
      { venue: 'legacy' },
      { sentAt: 1050 },
      { orderId: '77' },
      { state: 'NEW' },
      { cumQty: new Decimal('0.0001') },
      { cumQuoteQty: new Decimal('95000.00005') },
      { reason: 'late report' },
    ];
    let ts = 1000;
    for (const patch of steps) {
      const after = l.updateOrder('c1', patch, ++ts, 'rest');
      expect(l.order('c1')).toEqual(after);
    }
    expect(l.order('c1')).toMatchObject({ venue: 'legacy', sentAt: 1050, orderId: '77', state: 'NEW', reason: 'late report', updatedAt: ts });
    // The row's page alone, where setting state and order_id again rewrote both indexes' pages too.
    const wal = (): number => statSync(`${file}-wal`).size;
    const before = wal();
    l.updateOrder('c1', { sentAt: 1060 }, ++ts, 'send');
    const page = new BetterSqlite3(file, { readonly: true });
    const frame = 24 + (page.pragma('page_size', { simple: true }) as number);
    page.close();
    expect(wal() - before).toBe(frame);
    l.close();
  });

  it('records an intent and its verdict in one commit: both rows, or neither when one cannot be written', () => {
    const l = Ledger.open(':memory:');
    const intent = { kind: 'place', intentId: 'i-1', clientId: 'c-1', strategy: 's', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('1'), quantity: new Decimal('1') } as const;
    l.recordGate(5, intent, { intentId: 'i-1', accepted: false, adjusted: false, reason: 'MIN_NOTIONAL', message: 'too small' });
    expect([l.count('intents'), l.count('risk_decisions')]).toEqual([1, 1]);
    // A verdict the table refuses (intent_id NOT NULL) takes the intent's row back with it.
    const next = { ...intent, intentId: 'i-2', clientId: 'c-2' };
    expect(() => l.recordGate(6, next, { intentId: null as unknown as string, accepted: true, adjusted: false, reason: undefined, message: undefined })).toThrow(/NOT NULL/);
    expect([l.count('intents'), l.count('risk_decisions')]).toEqual([1, 1]);
    l.close();
  });

  it('records a placement let through with its intent and verdict: all rows in one commit, or none; a clientId taken records the refusal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const l = Ledger.open(join(dir, 'ledger.db'));
    const intent = { kind: 'place', intentId: 'i-c1', clientId: 'c1', strategy: 's1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('1'), quantity: new Decimal('1') } as const;
    const ok = { intentId: 'i-c1', accepted: true, adjusted: false, reason: undefined, message: undefined };
    const taken = { intentId: 'i-c1', accepted: false, adjusted: false, reason: 'DUPLICATE_CLIENT_ID', message: 'taken' };
    // An order the table refuses (strategy NOT NULL) takes the intent and the verdict back with it.
    const bad = { ...order('c1'), strategy: null as unknown as string };
    expect(() => l.recordGate(5, intent, ok, bad, taken)).toThrow(/NOT NULL/);
    expect([l.count('intents'), l.count('risk_decisions'), l.count('orders'), l.count('order_transitions')]).toEqual([0, 0, 0, 0]);
    expect(l.recordGate(5, intent, ok, order('c1'), taken)).toBe(true);
    expect(l.order('c1')).toEqual(order('c1'));
    expect(l.transitions('c1').map((t) => [t.from, t.to, t.source])).toEqual([[null, 'PENDING', 'intent']]);
    // The same clientId again: no second order, and the verdict recorded is the refusal.
    const again = { ...intent, intentId: 'i-again', price: new Decimal('2') };
    expect(l.recordGate(6, again, { ...ok, intentId: 'i-again' }, { ...order('c1'), intentId: 'i-again', price: new Decimal('2') }, { ...taken, intentId: 'i-again' })).toBe(false);
    expect([l.count('intents'), l.count('risk_decisions'), l.count('orders'), l.count('order_transitions')]).toEqual([2, 2, 1, 1]);
    expect(l.order('c1')?.intentId).toBe('i-c1');
    l.close();
    const db = new BetterSqlite3(join(dir, 'ledger.db'), { readonly: true });
    const verdicts = db.prepare('SELECT intent_id, accepted, reason FROM risk_decisions ORDER BY id').all();
    db.close();
    expect(verdicts).toEqual([{ intent_id: 'i-c1', accepted: 1, reason: null }, { intent_id: 'i-again', accepted: 0, reason: 'DUPLICATE_CLIENT_ID' }]);
  });

  it('keeps no index on order state: a ledger that has one loses it at its next open, its orders intact', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const file = join(dir, 'ledger.db');
    const l = Ledger.open(file);
    l.insertOrder(order('c1'), 'intent');
    l.close();
    const raw = new BetterSqlite3(file);
    raw.exec('CREATE INDEX orders_state ON orders(state)');
    raw.close();
    const indexes = (): string[] => {
      const db = new BetterSqlite3(file, { readonly: true });
      const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL").all() as { name: string }[]).map((r) => r.name);
      db.close();
      return names;
    };
    expect(indexes()).toContain('orders_state');
    const again = Ledger.open(file);
    expect(again.openOrders().map((o) => o.clientId)).toEqual(['c1']);
    again.close();
    expect(indexes()).toEqual(['orders_order_id_known']);
  });

  it('indexes exchange order ids only and no transitions, replacing the indexes an older ledger has', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-'));
    dirs.push(dir);
    const file = join(dir, 'ledger.db');
    const l = Ledger.open(file);
    l.insertOrder(order('c1'), 'intent');
    l.insertOrder(order('c2'), 'intent');
    l.updateOrder('c2', { orderId: '77', state: 'NEW' }, 2, 'rest');
    l.close();
    const raw = new BetterSqlite3(file);
    raw.exec('DROP INDEX orders_order_id_known; CREATE INDEX orders_order_id ON orders(order_id)');
    raw.exec('CREATE INDEX order_transitions_client ON order_transitions(client_id)');
    raw.close();
    const again = Ledger.open(file);
    expect(again.orderByOrderId('77')?.clientId).toBe('c2');
    expect(again.transitions('c2').map((t) => t.to)).toEqual(['PENDING', 'NEW']);
    expect(again.transitions().map((t) => `${t.clientId} ${t.to}`)).toEqual(['c1 PENDING', 'c2 PENDING', 'c2 NEW']);
    again.close();
    const db = new BetterSqlite3(file, { readonly: true });
    // Transitions keep no index of their own: nothing a run asks reads one order's.
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('orders', 'order_transitions') AND sql IS NOT NULL").all();
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM orders WHERE order_id = ?').all('77') as { detail: string }[];
    db.close();
    expect(indexes).toEqual([{ name: 'orders_order_id_known', sql: 'CREATE INDEX orders_order_id_known ON orders(order_id) WHERE order_id IS NOT NULL' }]);
    expect(plan.map((p) => p.detail)).toEqual(['SEARCH orders USING INDEX orders_order_id_known (order_id=?)']);
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
    expect(l2.fills().map((f) => f.tradeId)).toEqual(['9']);
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
      const newer = LEDGER_SCHEMA_VERSION + 1;
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(newer));
      db.close();
      expect(refusal(path).message).toContain(`schema_version=${newer} was written by a newer kancil (this one reads up to ${LEDGER_SCHEMA_VERSION})`);
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

    it('a folder where the file should be, to a run and to the ledger commands', () => {
      const path = ledgerPath();
      mkdirSync(path);
      // SQLite says "unable to open database file" or "disk I/O error": nothing an operator can act on.
      expect(refusal(path).message).toBe(`ledger ${path}: is a folder, not a ledger file (storage.path names the SQLite file itself)`);
      expect(() => LedgerReader.open(path)).toThrow(`ledger ${path}: is a folder, not a ledger file`);
    });

    it('a path below a file, or where no lock file can be made: a sentence naming it, not a stack', () => {
      const file = ledgerPath();
      writeFileSync(file, 'x');
      expect(refusal(join(file, 'sub', 'ledger.db')).message).toBe(`ledger ${join(file, 'sub', 'ledger.db')}: cannot be created: ${file} is a file, not a folder`);
      // Linux's /proc takes no new file: SQLite's "unable to open database file" came out as a bare SqliteError.
      if (process.platform === 'linux') expect(refusal('/proc/kancil-ledger.db').message).toMatch(/^ledger \/proc\/kancil-ledger\.db: cannot take its lock file \/proc\/kancil-ledger\.db\.lock \(/);
      // A folder to make there: Node's recursive mkdir never returned.
      if (process.platform === 'linux') expect(refusal('/proc/kancil/ledger.db').message).toBe('ledger /proc/kancil/ledger.db: its folder cannot be created: /proc takes no new entry (ENOENT)');
    });

    it.skipIf(process.getuid?.() === 0)('a file this user cannot read (skipped as root, who reads every file)', () => {
      const path = ledgerPath();
      Ledger.open(path).close();
      chmodSync(path, 0o200);
      expect(refusal(path).message).toBe(`ledger ${path}: cannot be read and written by this user (EACCES)`);
      expect(() => LedgerReader.open(path)).toThrow(`ledger ${path}: cannot be read by this user (EACCES)`);
    });
  });
});

/** Version 1's DDL: today's with the one column that changed as it was then. */
const V1_DDL = LEDGER_DDL.replace('trade_id TEXT NOT NULL', 'trade_id INTEGER NOT NULL');

describe('ledger migration', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function v1Ledger(): string {
    const dir = mkdtempSync(join(tmpdir(), 'kancil-migrate-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = WAL');
    db.exec(V1_DDL);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
    const ins = db.prepare(`INSERT INTO fills (client_id, strategy, order_id, symbol, side, trade_id, price, qty, quote_qty, commission,
      commission_asset, is_maker, time, source) VALUES ('c1', 's1', ?, 'BTC_IDR', 'BUY', ?, '950000000.5', '0.0001', '95000.00005', '0.0000001', 'BTC', 1, 2000, 'stream')`);
    // As version 1 bound them: JS numbers into an INTEGER column.
    ins.run('77', 9);
    ins.run('77', Number.MAX_SAFE_INTEGER);
    db.close();
    return path;
  }

  it('opens a version 1 ledger: its fills keep their ids (as exact text), order and dedupe; the schema is version 2', () => {
    const path = v1Ledger();
    const l = Ledger.open(path);
    expect(l.fills().map((f) => f.tradeId)).toEqual(['9', '9007199254740991']);
    // The same fill arriving again (a REST reconciliation after the upgrade) is still a duplicate.
    expect(l.recordFill(fill('9', '0.0001'))).toBe(false);
    expect(l.recordFill(fill('9007199254740991', '0.0001'))).toBe(false);
    expect(l.recordFill(fill('9223372036854775807', '0.0001'))).toBe(true);
    expect(l.recordFill(fill('9223372036854775807', '0.0001'))).toBe(false);
    l.close();

    const db = new BetterSqlite3(path, { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(LEDGER_SCHEMA_VERSION));
    expect(db.prepare("SELECT type FROM pragma_table_info('fills') WHERE name = 'trade_id'").pluck().get()).toBe('TEXT');
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'fills_client'").pluck().get()).toBe(1);
    // Row ids carried over and the new fill came after them (ignored duplicates may use up ids).
    const rows = db.prepare('SELECT id, typeof(trade_id) AS t FROM fills ORDER BY id').all() as { id: number; t: string }[];
    expect(rows.slice(0, 2)).toEqual([
      { id: 1, t: 'text' },
      { id: 2, t: 'text' },
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[2]?.id).toBeGreaterThan(2);
    expect(rows[2]?.t).toBe('text');
    db.close();
  });

  it('reopening a migrated ledger changes nothing; 20-digit ids survive a restart exactly', () => {
    const path = v1Ledger();
    Ledger.open(path).close();
    const l = Ledger.open(path);
    expect(l.recordFill({ ...fill('18446744073709551615', '0.0001'), orderId: '88' })).toBe(true);
    l.close();
    const again = Ledger.open(path);
    expect(again.fills().map((f) => f.tradeId)).toEqual(['9', '9007199254740991', '18446744073709551615']);
    expect(again.recordFill({ ...fill('18446744073709551615', '0.0001'), orderId: '88' })).toBe(false);
    again.close();
  });

  it('a new ledger is created at version 2 with text ids', () => {
    const l = Ledger.open(':memory:');
    expect(l.recordFill(fill('9223372036854775807', '0.0001'))).toBe(true);
    expect(l.fills()[0]?.tradeId).toBe('9223372036854775807');
    l.close();
  });
});
