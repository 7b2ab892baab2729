import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackedOrderStateName } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { Ledger } from './Ledger.js';
import type { OrderRecord } from './records.js';

const order = (clientId: string, state: TrackedOrderStateName, t: number): OrderRecord => ({
  clientId,
  strategy: 'mm',
  intentId: `i-${clientId}`,
  symbol: 'BTC_IDR',
  side: 'BUY',
  orderType: 'LIMIT',
  timeInForce: 'GTC',
  price: new Decimal('950000000'),
  quantity: new Decimal('0.0001'),
  quoteOrderQty: undefined,
  stopPrice: undefined,
  icebergQty: undefined,
  stpMode: undefined,
  venue: 'open',
  orderId: `o-${clientId}`,
  state,
  cumQty: ZERO,
  cumQuoteQty: ZERO,
  createdAt: t,
  sentAt: t,
  updatedAt: t,
  reason: undefined,
});

const place = (clientId: string): PlaceIntent => ({ kind: 'place', strategy: 'mm', intentId: `i-${clientId}`, clientId, symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('950000000'), quantity: new Decimal('0.0001') });

/** A ledger of two runs: the first (t 1000..5000) left an open order; the second started at 100 000. */
function twoRuns(path: string): void {
  const l = Ledger.open(path);
  l.journal(1000, 'start', { run: 1 });
  for (const [id, state, t] of [['old-filled', 'FILLED', 1000], ['old-open', 'NEW', 1500], ['new-canceled', 'CANCELED', 150_000]] as const) {
    l.recordIntent(t, place(id));
    l.recordRiskDecision(t, { intentId: `i-${id}`, accepted: true, adjusted: false, reason: undefined, message: undefined });
    l.insertOrder(order(id, 'PENDING', t), 'test');
    l.updateOrder(id, { state }, t + 100, 'stream');
  }
  // A refused intent: no order was made of it, so it moves with its decision.
  l.recordIntent(1200, place('refused'));
  l.recordRiskDecision(1200, { intentId: 'i-refused', accepted: false, adjusted: false, reason: 'NOTIONAL', message: 'too small' });
  l.recordFill({ clientId: 'old-filled', strategy: 'mm', orderId: 'o-old-filled', symbol: 'BTC_IDR', side: 'BUY', tradeId: '1', price: new Decimal('950000000'), qty: new Decimal('0.0001'), quoteQty: new Decimal('95000'), commission: ZERO, commissionAsset: 'IDR', isMaker: true, time: 1050, source: 'stream' });
  l.recordBalances(1000, 'exchange', [{ asset: 'BTC', free: new Decimal('1'), locked: ZERO }, { asset: 'IDR', free: new Decimal('5'), locked: ZERO }]);
  l.recordBalances(3000, 'exchange', [{ asset: 'BTC', free: new Decimal('2'), locked: ZERO }]);
  l.journal(2000, 'operator', { state: 'HALTED' });
  l.journal(5000, 'stop', { reason: 'signal' });
  l.journal(100_000, 'start', { run: 2 });
  l.close();
}

const count = (file: string, table: string): number => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('ledger archive', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const temp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'kancil-archive-'));
    dirs.push(d);
    return d;
  };

  /** The two-run ledger, archived once at 50 000 into a.db beside it. */
  const archivedOnce = (): { path: string; to: string } => {
    const dir = temp();
    const path = join(dir, 'live.db');
    const to = join(dir, 'a.db');
    twoRuns(path);
    const l = Ledger.open(path);
    l.archive(50_000, to);
    l.close();
    return { path, to };
  };

  it('moves terminal orders and old rows, keeps what a restart reads', () => {
    const dir = temp();
    const path = join(dir, 'live.db');
    const to = join(dir, 'live.archive.db');
    twoRuns(path);
    const before = Ledger.open(path);
    const balances = before.latestBalances();
    before.close();

    const l = Ledger.open(path);
    const r = l.archive(50_000, to);
    expect(r.moved).toEqual({ orders: 1, order_transitions: 2, intents: 2, risk_decisions: 2, journal: 1, balances: 1 });
    expect(r.kept).toEqual({ fills: 1, openOrders: 1 });
    // What a restart reads: open orders, every fill, the run count, the latest balances.
    expect(l.openOrders().map((o) => o.clientId)).toEqual(['old-open']);
    expect(l.transitions('old-open').map((t) => t.to)).toEqual(['PENDING', 'NEW']);
    expect(l.orders().map((o) => o.clientId)).toEqual(['old-open', 'new-canceled']);
    expect(l.fills().map((f) => f.clientId)).toEqual(['old-filled']);
    expect(l.countJournal('start')).toBe(2);
    expect(l.countJournal('stop')).toBe(1);
    expect(l.latestBalances()).toEqual(balances);
    l.close();

    expect(count(to, 'orders')).toBe(1);
    expect(count(to, 'order_transitions')).toBe(2);
    expect(count(to, 'intents')).toBe(2);
    expect(count(to, 'risk_decisions')).toBe(2);
    expect(count(to, 'journal')).toBe(1);
    expect(count(to, 'fills')).toBe(0);
    // The archive is a ledger of the same schema: the read-only tools open it.
    const arc = Ledger.open(to);
    expect(arc.orders().map((o) => [o.clientId, o.state])).toEqual([['old-filled', 'FILLED']]);
    arc.close();
  });

  it('a second run moves nothing more, and a cutoff later on moves the rest into the same file', () => {
    const { path, to } = archivedOnce();
    let l = Ledger.open(path);
    const again = l.archive(50_000, to);
    expect(Object.values(again.moved).every((n) => n === 0)).toBe(true);
    expect(again.written).toBe(false);
    l.close();
    l = Ledger.open(path);
    const r = l.archive(1_000_000, to);
    l.close();
    expect(r.moved.orders).toBe(1);
    expect(count(to, 'orders')).toBe(2);
    expect(count(path, 'orders')).toBe(1);
  });

  it('finishes a move a crash interrupted after the copy (rows in both files)', () => {
    const { path, to } = archivedOnce();
    // Put the moved order back, as if the delete had not been committed.
    const db = new BetterSqlite3(path);
    db.prepare('ATTACH DATABASE ? AS arc').run(to);
    db.exec('INSERT INTO main.orders SELECT * FROM arc.orders');
    db.exec('DETACH DATABASE arc');
    db.close();
    expect(count(path, 'orders')).toBe(3);
    const l = Ledger.open(path);
    expect(l.archive(50_000, to).moved.orders).toBe(1);
    l.close();
    expect(count(path, 'orders')).toBe(2);
    expect(count(to, 'orders')).toBe(1);
  });
});
