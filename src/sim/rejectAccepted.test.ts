import { describe, expect, it } from 'vitest';
import type { ScaledExecutionReport } from './events.js';
import { bal, book, makeEngine, place } from './testkit.js';

describe('rejectAccepted', () => {
  it('takes a resting order out, releases its lock, and reports REJECTED with the reason in both forms', () => {
    const e = makeEngine();
    const scaled: Pick<ScaledExecutionReport, 'x' | 'X' | 'r'>[] = [];
    e.subscribe((ev) => void (ev.type === 'scaledExecutionReport' && scaled.push({ x: ev.x, X: ev.X, r: ev.r })), { reports: 'scaled' });
    const id = place(e, 'a', 'BUY', { price: '100', quantity: '2' });
    expect(bal(e, 'a').USDT).toBe('800/200');
    e.takeEvents();
    const res = e.rejectAccepted({ accountId: 'a', orderId: id }, 'INSUFFICIENT_BALANCE', 5);
    expect(res.ok && res.order.status).toBe('REJECTED');
    const wire = e.takeEvents().filter((ev) => ev.type === 'executionReport');
    expect(wire.map((r) => (r.type === 'executionReport' ? [r.x, r.X, r.r, r.E] : []))).toEqual([['REJECTED', 'REJECTED', 'INSUFFICIENT_BALANCE', 5]]);
    expect(scaled.at(-1)).toEqual({ x: 'REJECTED', X: 'REJECTED', r: 'INSUFFICIENT_BALANCE' });
    expect(bal(e, 'a').USDT).toBe('1000/0');
    expect(book(e).bids).toEqual([]);
    expect(e.openOrders('a', 'BTC_USDT')).toEqual([]);
    // The next report of any order goes back to no reason.
    place(e, 'a', 'BUY', { price: '99', quantity: '1' });
    expect(scaled.at(-1)).toEqual({ x: 'NEW', X: 'NEW', r: 'NONE' });
  });

  it('refuses an order that traded, ended or is unknown', () => {
    const e = makeEngine();
    const resting = place(e, 'a', 'SELL', { price: '100', quantity: '2' });
    place(e, 'b', 'BUY', { price: '100', quantity: '1' });
    expect(e.rejectAccepted({ accountId: 'a', orderId: resting }, 'NONE', 2)).toMatchObject({ ok: false, reason: 'UNKNOWN_ORDER' });
    expect(e.rejectAccepted({ accountId: 'a', orderId: '999' }, 'NONE', 2)).toMatchObject({ ok: false, reason: 'UNKNOWN_ORDER' });
    const gone = place(e, 'a', 'BUY', { price: '90', quantity: '1' });
    e.cancelOrder({ accountId: 'a', orderId: gone }, 3);
    expect(e.rejectAccepted({ accountId: 'a', orderId: gone }, 'NONE', 4)).toMatchObject({ ok: false, reason: 'UNKNOWN_ORDER' });
  });
});
