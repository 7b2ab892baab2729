import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import type { OrderRecord } from '../store/records.js';
import { runCli } from './main.js';

const DAY = 86_400_000;
// The CLI's --keep-days reads the clock too: from noon UTC, no midnight falls between the dates
// written here and the ones the CLI works out, as one could on the real clock.
vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 15, 12), shouldAdvanceTime: true });
afterAll(() => vi.useRealTimers());
const now = Date.now();

function order(clientId: string, state: OrderRecord['state'], t: number): OrderRecord {
  return { clientId, strategy: 'mm', intentId: `i-${clientId}`, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('60000.5'), quantity: new Decimal('0.002'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'sim', orderId: undefined, state, cumQty: ZERO, cumQuoteQty: ZERO, createdAt: t, sentAt: undefined, updatedAt: t, reason: undefined };
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {} });
  return { code, out, err };
}

/** A ledger whose first run (10 days ago) left a filled and an open order; the second run started yesterday. */
function ledgerFile(dir: string): string {
  const db = path.join(dir, 'live.db');
  const l = Ledger.open(db);
  l.journal(now - 10 * DAY, 'start', { run: 1 });
  l.insertOrder(order('mm-1', 'FILLED', now - 10 * DAY), 'test');
  l.insertOrder(order('mm-2', 'NEW', now - 10 * DAY), 'test');
  l.journal(now - 9 * DAY, 'reconciled', { live: 1 });
  l.journal(now - DAY, 'start', { run: 2 });
  l.close();
  return db;
}

describe('kancil ledger archive', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const temp = (): string => {
    const d = mkdtempSync(path.join(tmpdir(), 'kancil-ledger-archive-'));
    dirs.push(d);
    return d;
  };

  it('moves the old rows to a dated file beside the ledger and says what it kept', async () => {
    const dir = temp();
    const db = ledgerFile(dir);
    const day = new Date(now - 5 * DAY).toISOString().slice(0, 10);
    const r = await cli('ledger', 'archive', '--before', day, '--ledger', db);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const file = path.join(dir, `live.archive-${day}.db`);
    expect(r.out).toContain(`to ${file}`);
    expect(r.out).toMatch(/moved: orders 1, order_transitions 1, intents 0, risk_decisions 0, journal 1, balances 0/);
    expect(r.out).toMatch(/kept: 0 older fills .*, 1 order not yet terminal/);
    expect(existsSync(file)).toBe(true);
    const l = Ledger.open(db);
    expect(l.orders().map((o) => o.clientId)).toEqual(['mm-2']);
    expect(l.countJournal('start')).toBe(2);
    l.close();
    // --keep-days 5: midnight UTC five days ago, the same cutoff.
    const json = await cli('ledger', 'archive', '--keep-days', '5', '--ledger', db, '--json');
    expect(JSON.parse(json.out)).toMatchObject({ ledger: db, file, written: false, before: Date.parse(`${day}T00:00:00Z`), moved: { orders: 0 } });
    // Nothing older than the cutoff: no empty archive file.
    const none = await cli('ledger', 'archive', '--before', '2020-01-01', '--ledger', db);
    expect(none.out).toContain('nothing in');
    expect(existsSync(path.join(dir, 'live.archive-2020-01-01.db'))).toBe(false);
  });

  it('refuses a bad or too late cutoff with the usage (exit 2), and a ledger a run holds (exit 1)', async () => {
    const dir = temp();
    const db = ledgerFile(dir);
    const bad = await cli('ledger', 'archive', '--before', 'last week', '--ledger', db);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--before');
    expect(bad.err).toContain('"last week"');
    expect(bad.err).toContain('Usage: kancil ledger archive');
    const missing = await cli('ledger', 'archive', '--ledger', db);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('is required (e.g. --before 2026-11-01, or --keep-days 7)');
    const late = await cli('ledger', 'archive', '--before', new Date(now - DAY / 2).toISOString(), '--ledger', db);
    expect(late.code).toBe(2);
    expect(late.err).toContain('must be at least a day ago');
    expect((await cli('ledger', 'archive', '--keep-days', '0', '--ledger', db)).err).toContain('--keep-days');
    expect((await cli('ledger', 'archive', '--keep-days', '3', '--before', '2020-01-01', '--ledger', db)).err).toContain('not both');
    expect((await cli('ledger', 'prune', '--before', '2026-01-01')).code).toBe(2);
    expect((await cli('ledger', 'archive', '--before', '2020-01-01', '--ledger', path.join(dir, 'none.db'))).err).toContain('no ledger file there');
    const held = Ledger.open(db);
    try {
      const busy = await cli('ledger', 'archive', '--before', '2020-01-01', '--ledger', db);
      expect(busy.code).toBe(1);
      expect(busy.err).toContain('in use by another process');
    } finally {
      held.close();
    }
  });
});
