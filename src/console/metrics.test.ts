import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { RunMetrics } from './metrics.js';
import { testRun } from './testRun.js';

const D = (s: string): Decimal => new Decimal(s);

describe('run metrics', () => {
  it('counts orders, fills, rejections, reconnects, resyncs, unknown outcomes and times the round trip', async () => {
    const run = testRun();
    let now = 1000;
    const m = new RunMetrics(run, { now: () => now, processMetrics: false });
    m.start();
    const order = { type: 'orderUpdate', E: 1, strategy: 'mm', clientId: 'c1', orderId: undefined, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', price: D('1'), quantity: D('1'), cumQty: ZERO, cumQuoteQty: ZERO } as const;
    run.bus.next({ ...order, state: 'PENDING' });
    now += 30;
    run.bus.next({ ...order, state: 'NEW', orderId: '9' });
    run.bus.next({ ...order, clientId: 'c2', state: 'PENDING' });
    run.bus.next({ ...order, clientId: 'c2', state: 'UNKNOWN' });
    run.bus.next({ type: 'fill', E: 2, strategy: 'mm', clientId: 'c1', orderId: '9', symbol: 'BTC_USDT', side: 'BUY', tradeId: '5', price: D('1'), qty: D('1'), quoteQty: D('1'), commission: ZERO, commissionAsset: null, isMaker: true });
    run.bus.next({ type: 'intentRejected', E: 3, strategy: 'mm', intent: { kind: 'cancelAll', strategy: 'mm', intentId: 'x' }, reason: 'TRADING_HALTED', message: 'halted' });
    run.bus.next({ type: 'connection', E: 4, connection: 'market:type1', status: 'up' });
    run.bus.next({ type: 'connection', E: 5, connection: 'market:type1', status: 'down' });
    run.bus.next({ type: 'connection', E: 6, connection: 'market:type1', status: 'resyncing' });
    run.bus.next({ type: 'connection', E: 7, connection: 'market:type1', status: 'up' });
    run.bus.next({ type: 'bookStatus', E: 8, symbol: 'BTC_USDT', ready: false, reason: 'gap' });
    run.positionList = [{ strategy: 'mm', symbol: 'BTC_USDT', position: D('0.5'), cash: D('-30000'), fills: 1, volume: D('30000'), mark: D('61000') }];
    run.weightList = [{ host: '127.0.0.1:9', interval: '1M', used: 42 }];
    run.state = { state: 'HALTED', reason: 'operator' };
    const text = await m.text();
    m.stop();
    expect(text).toContain('kancil_orders_total{strategy="mm",symbol="BTC_USDT",side="BUY",type="LIMIT",name="test",mode="paper"} 2');
    expect(text).toMatch(/kancil_order_roundtrip_seconds_bucket\{le="0.05",[^}]*type="LIMIT"\} 2/);
    expect(text).toMatch(/kancil_order_roundtrip_seconds_bucket\{le="0.025",[^}]*type="LIMIT"\} 1/);
    expect(text).toMatch(/kancil_unknown_outcome_orders_total\{.*\} 1/);
    expect(text).toMatch(/kancil_fills_total\{strategy="mm",symbol="BTC_USDT",side="BUY",role="maker",.*\} 1/);
    expect(text).toMatch(/kancil_rejections_total\{strategy="mm",reason="TRADING_HALTED",.*\} 1/);
    expect(text).toMatch(/kancil_disconnects_total\{connection="market:type1",status="down",.*\} 1/);
    expect(text).toMatch(/kancil_reconnects_total\{connection="market:type1",.*\} 1/);
    expect(text).toMatch(/kancil_book_resyncs_total\{symbol="BTC_USDT",.*\} 1/);
    expect(text).toMatch(/kancil_position\{strategy="mm",symbol="BTC_USDT",.*\} 0.5/);
    expect(text).toMatch(/kancil_pnl\{strategy="mm",symbol="BTC_USDT",quote="USDT",.*\} 500/);
    expect(text).toMatch(/kancil_request_weight_used\{host="127.0.0.1:9",interval="1M",.*\} 42/);
    expect(text).toMatch(/kancil_trading_state\{scope="run",.*\} 2/);
    expect(text).toMatch(/kancil_intents\{verdict="rejected",.*\} 1/);
  });
});
