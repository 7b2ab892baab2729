import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import type { OrderRecord } from '../store/records.js';
import { runCli } from './main.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-ledger-cmd-'));
const db = path.join(dir, 'run.db');
const t0 = Date.UTC(2026, 10, 25, 9, 30);
let ledger: Ledger;

function order(clientId: string, state: OrderRecord['state'], createdAt: number, strategy = 'mm'): OrderRecord {
  return { clientId, strategy, intentId: `i-${clientId}`, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('60000.5'), quantity: new Decimal('0.002'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'sim', orderId: undefined, state, cumQty: ZERO, cumQuoteQty: ZERO, createdAt, sentAt: undefined, updatedAt: createdAt, reason: undefined };
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {} });
  return { code, out, err };
}

beforeAll(() => {
  // The ledger stays open (its lock held) through the tests: the commands read beside a running run.
  ledger = Ledger.open(db);
  ledger.journal(t0, 'start', { mode: 'paper', name: 'demo', run: 1, runTag: 'abc', pid: process.pid });
  ledger.insertOrder(order('mm-1', 'PENDING', t0), 'test');
  ledger.updateOrder('mm-1', { state: 'FILLED', cumQty: new Decimal('0.002'), cumQuoteQty: new Decimal('120.001') }, t0 + 10, 'test');
  ledger.insertOrder(order('mm-2', 'NEW', t0 + 1000), 'test');
  ledger.insertOrder(order('gr-1', 'NEW', t0 + 2000, 'grid'), 'test');
  ledger.recordFill({ clientId: 'mm-1', strategy: 'mm', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '18446744073709551615', price: new Decimal('60000.5'), qty: new Decimal('0.002'), quoteQty: new Decimal('120.001'), commission: new Decimal('0.09'), commissionAsset: 'USDT', isMaker: false, time: t0 + 5, source: 'sim' });
  ledger.recordBalances(t0, 'sim', [{ asset: 'USDT', free: new Decimal('9879.909'), locked: new Decimal('120.001') }]);
  ledger.recordIntent(t0 + 3000, { kind: 'place', strategy: 'mm', intentId: 'i-x', clientId: 'mm-x', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('1'), quantity: new Decimal('1') });
  ledger.recordRiskDecision(t0 + 3000, { intentId: 'i-x', accepted: false, adjusted: false, reason: 'MIN_NOTIONAL', message: 'too small' });
  ledger.journal(t0 + 4000, 'operator', { state: 'HALTED', reason: 'console: test' });
  writeFileSync(path.join(dir, 'run.yaml'), `mode: paper\nsandbox: { config: x.yaml }\nstrategies:\n  - { name: mm, plugin: market-maker, symbols: [BTC_USDT] }\nstorage: { path: run.db }\n`);
});

afterAll(() => {
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ledger commands', () => {
  it('status: the running run, open orders, positions, balances, rejections and operator events', async () => {
    const { code, out } = await cli('status', path.join(dir, 'run.yaml'));
    expect(code).toBe(0);
    expect(out).toMatch(/last run: demo \(paper\) started 2026-11-25 09:30:00, running; 1 run in this ledger\n/);
    expect(out).toContain('FILLED 1, NEW 2');
    expect(out).toMatch(/mm-2 +mm +BTC_USDT/);
    expect(out).toMatch(/mm +BTC_USDT +1 +0.002 +60000.5 +-0.09 USDT/);
    expect(out).toContain('MIN_NOTIONAL 1');
    expect(out).toContain('console: test');
    const json = JSON.parse((await cli('status', '--ledger', db, '--json')).out) as { run: { state: string }; openOrders: unknown[]; balances: { free: string }[] };
    expect(json.run.state).toBe('running');
    expect(json.openOrders).toHaveLength(2);
    expect(json.balances[0]?.free).toBe('9879.909');
  });

  it('orders: all or --open, filtered by strategy, as a table or JSON', async () => {
    expect((await cli('orders', '--ledger', db)).out).toMatch(/3 orders\n$/);
    const open = await cli('orders', '--ledger', db, '--open', '--strategy', 'mm', '--json');
    expect((JSON.parse(open.out) as { clientId: string; price: string }[]).map((o) => [o.clientId, o.price])).toEqual([['mm-2', '60000.5']]);
    expect((await cli('orders', '--ledger', db, '--limit', '1')).out).toContain('gr-1');
  });

  it('trades: every digit of the trade id, and the fee with its asset', async () => {
    const { out } = await cli('trades', '--ledger', db);
    expect(out).toContain('18446744073709551615');
    expect(out).toContain('0.09 USDT');
    expect((JSON.parse((await cli('trades', '--ledger', db, '--json')).out) as { tradeId: string }[])[0]?.tradeId).toBe('18446744073709551615');
  });

  it('profit per strategy and per day', async () => {
    expect((await cli('profit', '--ledger', db)).out).toMatch(/mm +BTC_USDT +1 +120.001 +0.002 +60000.5 +-0.09 USDT/);
    expect(JSON.parse((await cli('profit', '--ledger', db, '--by', 'day', '--json')).out)).toEqual([{ day: '2026-11-25', quote: 'USDT', fills: 1, volume: '120.001', pnl: '-0.09' }]);
  });

  it('bad arguments print usage and exit 2, a missing ledger too, naming it', async () => {
    const bad = await cli('profit', '--ledger', db, '--by', 'week');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--by="week": expected strategy or day[\s\S]*Usage: kancil profit/);
    expect((await cli('orders')).code).toBe(2);
    expect((await cli('trades', '--ledger', db, '--since', 'yesterday')).err).toContain('--since="yesterday"');
    const missing = await cli('status', '--ledger', path.join(dir, 'nope.db'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`--ledger="${path.join(dir, 'nope.db')}": no ledger file there`);
  });
});
