import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { LiveBalances } from '../execution/balances.js';
import { Ledger } from '../store/Ledger.js';
import type { FillRecord } from '../store/records.js';
import { runCli } from './main.js';
import { RunAccount } from './runSessionBalances.js';
import { runSummary } from './runStatus.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-marks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fill = (clientId: string, side: 'BUY' | 'SELL', qty: string, price: string, time: number): FillRecord => ({ clientId, strategy: 'mm', orderId: clientId, symbol: 'BTC_USDT', side, tradeId: clientId, price: new Decimal(price), qty: new Decimal(qty), quoteQty: new Decimal(qty).mul(price), commission: new Decimal('0.01'), commissionAsset: 'USDT', isMaker: true, time, source: 'stream' });

describe('one mark for a run and its ledger', () => {
  it("kancil status shows the stopped run's summary figures: the same mark, PnL, realized and unrealized", async () => {
    const file = path.join(dir, 'run.db');
    const ledger = Ledger.open(file);
    const t0 = Date.UTC(2026, 11, 1);
    for (const [i, side, qty, price] of [[1, 'BUY', '0.003', '60000'], [2, 'SELL', '0.001', '60100'], [3, 'BUY', '0.001', '59950']] as const) {
      ledger.insertOrder({ clientId: `mm-${i}`, strategy: 'mm', intentId: `i${i}`, symbol: 'BTC_USDT', side, orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal(price), quantity: new Decimal(qty), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open', orderId: `mm-${i}`, state: 'FILLED', cumQty: new Decimal(qty), cumQuoteQty: new Decimal(qty).mul(price), createdAt: t0 + i, sentAt: t0 + i, updatedAt: t0 + i, reason: undefined }, 'test');
      ledger.recordFill(fill(`mm-${i}`, side, qty, price, t0 + i));
    }
    // The run's mark at its stop (the book's mid) is not the last fill price (59950).
    const mid = new Decimal('60020.5');
    const balances = new LiveBalances(ledger, () => t0);
    balances.update('stream', [{ asset: 'BTC', free: new Decimal('0.002'), locked: new Decimal('0.001') }, { asset: 'USDT', free: new Decimal('820'), locked: new Decimal('60') }, { asset: 'XRP', free: new Decimal('7'), locked: ZERO }], true);
    new RunAccount(ledger, balances, ['BTC_USDT'], () => mid).journalMarks(t0 + 10);
    const summary = runSummary(ledger, ['mm'], () => mid, 'test', t0, t0 + 10, []);
    ledger.close();
    const row = summary.strategies[0];
    expect(row).toMatchObject({ mark: '60020.5', position: '0.003' });
    let out = '';
    const code = await runCli(['status', '--ledger', file, '--json'], { stdout: (t) => (out += t), stderr: () => undefined, env: {} });
    expect(code).toBe(0);
    const status = JSON.parse(out) as { positions: { mark: string; pnl: string; realized: string; unrealized: string }[]; equity: unknown };
    expect(status.equity).toEqual({ quote: 'USDT', value: new Decimal('0.003').mul(mid).plus(880).toFixed(), unvalued: ['XRP'] });
    expect(status.positions[0]).toMatchObject({ mark: row?.mark, pnl: row?.pnl, realized: row?.realized, unrealized: row?.unrealized });
    expect(new Decimal(row?.realized ?? '0').plus(row?.unrealized ?? '0').toFixed()).toBe(row?.pnl);
    expect(row?.realized).not.toBe(ZERO.toFixed());
  });

  it('counts one run as "1 run"', async () => {
    const file = path.join(dir, 'one-run.db');
    const ledger = Ledger.open(file);
    ledger.journal(Date.UTC(2026, 11, 1), 'start', { name: 'mm', mode: 'paper' });
    ledger.journal(Date.UTC(2026, 11, 1, 1), 'stop', { reason: 'signal' });
    ledger.close();
    let out = '';
    expect(await runCli(['status', '--ledger', file], { stdout: (t) => (out += t), stderr: () => undefined, env: {} })).toBe(0);
    expect(out).toContain('; 1 run in this ledger\n');
  });
});
