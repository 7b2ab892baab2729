import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../../core/decimal.js';
import type { ExecutionReportEvent, UserDataEvent } from '../../core/marketEvents.js';
import type { Timers } from './timing.js';
import { UserEventOrderer, userEventKey } from './user-event-order.js';

/** Manual clock and timers: time moves only when the test says so. */
function manual(): { now: number; timers: Timers; advance(ms: number): void } {
  const pending: { at: number; fn: () => void; id: number }[] = [];
  let id = 0;
  const m = {
    now: 0,
    timers: {
      setTimeout: (fn: () => void, ms: number) => {
        pending.push({ at: m.now + ms, fn, id: ++id });
        return id;
      },
      clearTimeout: (h: unknown) => {
        const i = pending.findIndex((p) => p.id === h);
        if (i >= 0) pending.splice(i, 1);
      },
    },
    advance(ms: number) {
      m.now += ms;
      for (;;) {
        pending.sort((a, b) => a.at - b.at);
        const next = pending[0];
        if (!next || next.at > m.now) break;
        pending.shift();
        next.fn();
      }
    },
  };
  return m;
}

const st = (E: number, sub = 1): UserDataEvent => ({ type: 'streamTerminated', E, subscriptionId: sub });

/** An executionReport of order 7: NEW (cum 0), or a fill of `last` taking the order to `cum`. */
function er(E: number, cum = '0', last = '0'): ExecutionReportEvent {
  const filled = !new Decimal(last).isZero();
  return {
    type: 'executionReport', E, symbol: 'BTCUSDT', clientId: 'c7', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC',
    quantity: new Decimal('1'), price: new Decimal('100'), stopPrice: ZERO, icebergQty: ZERO, origClientId: '',
    executionType: filled ? 'TRADE' : 'NEW', status: !filled ? 'NEW' : cum === '1' ? 'FILLED' : 'PARTIALLY_FILLED',
    rejectReason: 'NONE', orderId: '7', lastQty: new Decimal(last), cumQty: new Decimal(cum), lastPrice: new Decimal('100'),
    commission: ZERO, commissionAsset: null, transactionTime: E, tradeId: filled ? String(E) : undefined, isWorking: true,
    isMaker: true, orderCreationTime: 1, cumQuoteQty: new Decimal(cum).mul(100), lastQuoteQty: new Decimal(last).mul(100), expiryReason: undefined,
  };
}

function setup(windowMs = 100, cautionMs?: number) {
  const m = manual();
  const out: number[] = [];
  const gaps: string[] = [];
  const o = new UserEventOrderer({ windowMs, cautionMs, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E), onGap: (r) => gaps.push(r) });
  return { m, out, gaps, o };
}

describe('UserEventOrderer', () => {
  it('delivers events that arrive in E order at once, with no time passing, fills included', () => {
    const { out, o } = setup();
    o.push(er(10));
    o.push(er(20, '0.4', '0.4'));
    o.push(st(20));
    o.push(er(30, '1', '0.6'));
    expect(out).toEqual([10, 20, 20, 30]);
    expect({ held: o.held, late: o.late }).toEqual({ held: 0, late: 0 });
  });

  it('holds a fill whose earlier fill is missing until it arrives, then delivers both in E order at once', () => {
    const { out, gaps, o } = setup();
    o.push(er(10));
    o.push(er(30, '1', '0.6')); // builds on 0.4 filled that was never reported
    o.push(st(31)); // in E order, but behind the held fill
    expect(out).toEqual([10]);
    o.push(er(20, '0.4', '0.4'));
    expect(out).toEqual([10, 20, 30, 31]);
    expect({ held: o.held, late: o.late, gaps }).toEqual({ held: 3, late: 0, gaps: [] });
  });

  it("two reports of one order in the same ms, arriving reversed, go out in the order's sequence at once", () => {
    const m = manual();
    const cums: string[] = [];
    const o = new UserEventOrderer({ windowMs: 100, clock: { now: () => m.now }, timers: m.timers, emit: (e) => cums.push(e.type === 'executionReport' ? e.cumQty.toFixed() : e.type) });
    o.push(er(10));
    o.push(er(20, '1', '0.6'));
    o.push(er(20, '0.4', '0.4'));
    expect(cums).toEqual(['0', '0.4', '1']);
    expect({ held: o.held, late: o.late, gaps: o.gaps }).toEqual({ held: 2, late: 0, gaps: 0 });
  });

  it('a report of an order not seen yet (its NEW still on the way) waits for it', () => {
    const { out, o } = setup();
    o.push(er(20, '0.4', '0.4'));
    expect(out).toEqual([]);
    o.push(er(10));
    expect(out).toEqual([10, 20]);
  });

  it('a gap the window does not fill: the event goes after the window and the gap is reported', () => {
    const { m, out, gaps, o } = setup();
    o.push(er(10));
    o.push(er(30, '1', '0.6'));
    m.advance(99);
    expect(out).toEqual([10]);
    m.advance(1);
    expect(out).toEqual([10, 30]);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toContain('order 7');
    expect(o.gaps).toBe(1);
  });

  it('after a reordering every event is held for the window and sorted, until the caution time has passed', () => {
    const { m, out, o } = setup(50, 1000);
    o.push(st(30));
    o.push(st(10)); // below one delivered: the stream is reordering
    m.advance(10);
    o.push(st(50));
    o.push(st(40));
    expect(out).toEqual([30]);
    m.advance(40); // the late one goes after its window (late: 30 went before it)
    expect(out).toEqual([30, 10]);
    expect(o.late).toBe(1);
    m.advance(10); // then the others, sorted by E
    expect(out).toEqual([30, 10, 40, 50]);
    m.advance(1000);
    o.push(st(60));
    expect(out).toEqual([30, 10, 40, 50, 60]);
    expect(o.late).toBe(1);
  });

  it('drops duplicates', () => {
    const { out, o } = setup();
    o.push(er(10));
    o.push(er(10));
    o.push(st(11));
    o.push(st(11));
    expect(out).toEqual([10, 11]);
    expect(o.duplicates).toBe(2);
  });

  it('keys a report by every field that tells two reports apart, as one flat string', () => {
    const base = er(10, '0.5', '0.5');
    const keys = [base, { ...base, tradeId: undefined }, { ...base, tradeId: '' }, { ...base, cumQty: new Decimal('0.6') }, { ...base, executionType: 'NEW' as const }, { ...base, E: 11 }, { ...base, clientId: 'c8' }].map(userEventKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(userEventKey(er(10, '0.5', '0.5'))).toBe(keys[0]);
    expect(keys[0]).toBe('er|7|c7|TRADE|PARTIALLY_FILLED|10|0.5|10');
  });

  it('window 0 passes through; close flushes what is held', () => {
    const m = manual();
    const out: number[] = [];
    const pass = new UserEventOrderer({ windowMs: 0, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E) });
    pass.push(er(20, '0.4', '0.4'));
    expect(out).toEqual([20]);
    const held = new UserEventOrderer({ windowMs: 100, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E) });
    held.push(er(30, '1', '0.6'));
    held.push(st(31));
    held.close();
    expect(out).toEqual([20, 30, 31]);
  });
});
