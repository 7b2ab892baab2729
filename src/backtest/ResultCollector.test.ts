import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { applyFill, netPnl, newPosition } from './positions.js';
import type { FillEvent, OrderUpdateEvent } from '../bus/events.js';
import { ResultCollector } from './ResultCollector.js';
import { streamsOf, writeResultJson } from './resultStreams.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const d = (s: string) => new Decimal(s);
function upd(strategy: string, clientId: string, state: OrderUpdateEvent['state'], qty: string, cum: string): OrderUpdateEvent {
  return { type: 'orderUpdate', E: 0, strategy, clientId, orderId: '1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state, price: d('100'), quantity: d(qty), cumQty: d(cum), cumQuoteQty: d(cum).mul(100) };
}
function fill(strategy: string, E: number, side: 'BUY' | 'SELL', price: string, qty: string, fee: string): FillEvent {
  return { type: 'fill', E, strategy, clientId: 'c', orderId: '1', symbol: 'BTC_USDT', side, tradeId: '1', price: d(price), qty: d(qty), quoteQty: d(price).mul(qty), commission: d(fee), commissionAsset: 'USDT', isMaker: true };
}

describe('ResultCollector', () => {
  it('computes per-strategy and total metrics from bus events', () => {
    const c = new ResultCollector(
      [
        { name: 'b', symbols: ['BTC_USDT'], initialEquity: d('1000') },
        { name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') },
      ],
      1000,
    );
    c.mark('BTC_USDT', d('100'));
    c.sample(0);
    c.onEvent(upd('a', 'o1', 'NEW', '2', '0'));
    c.onEvent(fill('a', 500, 'BUY', '100', '1', '0.1'));
    c.onEvent(upd('a', 'o1', 'PARTIALLY_FILLED', '2', '1'));
    c.onEvent(upd('a', 'o1', 'CANCELED', '2', '1'));
    c.onEvent(upd('a', 'o2', 'REJECTED', '1', '0'));
    c.onEvent({ type: 'intentRejected', E: 600, strategy: 'b', intent: { kind: 'cancelAll', strategy: 'b', intentId: 'i' }, reason: 'LOT_SIZE', message: 'x' });
    c.mark('BTC_USDT', d('90'));
    c.sample(1500);
    c.mark('BTC_USDT', d('110'));
    c.sample(2200);
    const r = c.finish('t');
    expect(Object.keys(r.strategies)).toEqual(['a', 'b']);
    const a = r.strategies.a!;
    expect(a.unrealizedPnl).toBe('10');
    expect(a.fees).toBe('0.1');
    expect(a.netPnl).toBe('9.9');
    expect(a.finalEquity).toBe('1009.9');
    expect(a.orders).toBe(2);
    expect(a.ordersCanceled).toBe(1);
    expect(a.ordersRejected).toBe(1);
    expect(a.fillRatio).toBe(0.5);
    expect(a.qtyFillRatio).toBeCloseTo(1 / 3, 9);
    expect(a.trades).toBe(1);
    expect(a.turnover).toBe('100');
    expect(a.positions).toEqual({ BTC_USDT: '1' });
    // equity samples at 0, 1000 (mark 90: 1000 - 0.1 - 10), 2000 and the final sample at 2200
    expect(r.equity.map((e) => e.t)).toEqual([0, 1000, 2000, 2200]);
    expect(r.equity[1]!.v).toEqual([989.9, 1000, 1989.9]);
    expect(a.maxDrawdown).toBe('10.1');
    expect(r.strategies.b!.riskRejections).toBe(1);
    expect(r.total?.netPnl).toBe('9.9');
    expect(r.total?.initialEquity).toBe('2000');
    expect(r.prices.BTC_USDT!.map((p) => p.p)).toEqual([100, 90, 110, 110]);
    expect(r.fills).toHaveLength(1);
  });

  it('equity while flat ignores the mark and follows every fill (round trips, reopening)', () => {
    const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') }], 1000);
    const at = (t: number, mark: string) => {
      c.mark('BTC_USDT', d(mark));
      c.sample(t);
    };
    at(0, '100');
    at(1000, '120'); // flat: 1000 whatever the mark
    c.onEvent(fill('a', 1500, 'BUY', '100', '1', '0.1'));
    at(2000, '110'); // long 1 from 100: 1000 - 0.1 + 10
    c.onEvent(fill('a', 2500, 'SELL', '105', '1', '0.105'));
    at(3000, '90'); // flat again: 1000 + 5 - 0.205
    at(4000, '80');
    c.onEvent(fill('a', 4500, 'BUY', '80', '2', '0'));
    at(5000, '81'); // long 2 from 80: 1004.795 + 2
    c.onEvent(fill('a', 5500, 'SELL', '79', '2', '0'));
    at(6000, '50'); // flat: 1004.795 - 2
    const r = c.finish('t');
    expect(r.equity.map((e) => e.v[0])).toEqual([1000, 1000, 1009.9, 1004.795, 1004.795, 1006.795, 1002.795]);
  });

  it('the total of a single strategy is that strategy', () => {
    const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') }], 1000);
    c.mark('BTC_USDT', d('100'));
    c.sample(0);
    c.onEvent(upd('a', 'o1', 'NEW', '1', '0'));
    c.onEvent(fill('a', 500, 'BUY', '100', '1', '0.1'));
    c.onEvent(upd('a', 'o1', 'FILLED', '1', '1'));
    c.mark('BTC_USDT', d('95'));
    c.sample(1500);
    const r = c.finish('t');
    expect(r.total).toEqual(r.strategies.a);
    expect(r.total?.finalEquity).toBe('994.9');
    expect(r.total?.fillRatio).toBe(1);
    expect(r.equity.map((e) => e.v)).toEqual([[1000, 1000], [994.9, 994.9], [994.9, 994.9]]);
  });

  it('differential: each equity sample is the nearest double of init + net PnL at the mark, short and long decimals alike', () => {
    const arbDec = fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 22 }), fc.integer({ min: -8, max: 6 }))
      .map(([lead, ds, e]) => new Decimal(`${lead}${ds.join('')}e${e - ds.length}`));
    const arbShort = fc.tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => new Decimal(m).div(10 ** k));
    const arbX = fc.oneof({ arbitrary: arbShort, weight: 5 }, { arbitrary: arbDec, weight: 1 });
    const arbStep = fc.record({ buy: fc.boolean(), price: arbX, qty: fc.oneof(arbX, fc.constantFrom(new Decimal(1), new Decimal(2))), fee: arbX, mark: arbX });
    fc.assert(
      fc.property(arbX, fc.array(arbStep, { maxLength: 25 }), (init, steps) => {
        const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: init }], 1000);
        const ref = newPosition('a', 'BTC_USDT');
        const want: number[] = [];
        steps.forEach((st, i) => {
          const f = fill('a', i * 1000, st.buy ? 'BUY' : 'SELL', '1', '1', '0');
          const fl = { ...f, price: st.price, qty: st.qty, quoteQty: st.price.mul(st.qty), commission: st.fee };
          c.onEvent(fl);
          applyFill(ref, fl);
          c.mark('BTC_USDT', st.mark);
          c.sample(i * 1000);
          want.push(init.plus(netPnl(ref, st.mark)).toNumber());
        });
        const r = c.finish('t');
        expect(r.equity.map((e) => e.v[0])).toEqual(want);
      }),
      { numRuns: 1_000 },
    );
  });

  it('differential: samples without a fill between them, at repeated and changing marks, are the formula at each mark', () => {
    const arbX = fc.tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => new Decimal(m).div(10 ** k));
    // Marks from a few texts (each sample builds a new Decimal, as a book mid does), so repeats are common.
    const arbMark = fc.constantFrom('99.5', '99.50', '100', '100.01', '1e2');
    const arbStep = fc.record({ fill: fc.boolean(), buy: fc.boolean(), price: arbX, qty: arbX, fee: arbX, mark: arbMark });
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 30 }), (steps) => {
        const init = d('1000');
        const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT', 'ETH_USDT'] , initialEquity: init }], 1000);
        const ref = newPosition('a', 'BTC_USDT');
        const want: number[] = [];
        steps.forEach((st, i) => {
          if (st.fill) {
            const f = fill('a', i * 1000, st.buy ? 'BUY' : 'SELL', '1', '1', '0');
            const fl = { ...f, price: st.price, qty: st.qty, quoteQty: st.price.mul(st.qty), commission: st.fee };
            c.onEvent(fl);
            applyFill(ref, fl);
          }
          c.mark('BTC_USDT', d(st.mark));
          c.sample(i * 1000);
          want.push(init.plus(netPnl(ref, d(st.mark))).toNumber());
        });
        const r = c.finish('t');
        expect(r.equity.map((e) => e.v[0])).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('samples due before an item are taken at the state before it; observe never samples: no look-ahead', () => {
    const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') }], 1000);
    // What the replay does for an item at t: the samples due before t, then the item, then observe(t).
    const item = (t: number, apply: () => void): void => {
      for (let due = c.nextDue(); due !== undefined && due < t; due = c.nextDue()) c.sample(due);
      apply();
      c.observe(t);
    };
    item(0, () => {
      c.mark('BTC_USDT', d('100'));
      c.onEvent(fill('a', 0, 'BUY', '100', '1', '0'));
    });
    // The next item comes at 2500: the boundaries 0, 1000 and 2000 show the mark before it.
    item(2500, () => c.mark('BTC_USDT', d('110')));
    // At 3000 exactly: the boundary is taken only once every item at 3000 has been applied.
    item(3000, () => c.mark('BTC_USDT', d('90')));
    item(3000, () => c.mark('BTC_USDT', d('95')));
    c.sample(3000);
    const r = c.finish('t');
    expect(r.equity.map((e) => [e.t, e.v[0]])).toEqual([
      [0, 1000],
      [1000, 1000],
      [2000, 1000],
      [3000, 995],
    ]);
  });

  it('refuses a non-positive sampling interval', () => {
    expect(() => new ResultCollector([], 0)).toThrow(RangeError);
  });

  it('reports the orders still open at the end: counted per strategy and total and listed, never dropped', () => {
    const c = new ResultCollector(
      [
        { name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') },
        { name: 'b', symbols: ['BTC_USDT'], initialEquity: d('1000') },
      ],
      1000,
    );
    c.sample(0);
    c.onEvent({ ...upd('a', 'rest', 'PENDING', '2', '0'), E: 100 });
    c.onEvent(upd('a', 'rest', 'NEW', '2', '0'));
    c.onEvent(upd('a', 'part', 'NEW', '3', '0'));
    c.onEvent(upd('a', 'part', 'PARTIALLY_FILLED', '3', '1'));
    c.onEvent(upd('a', 'done', 'FILLED', '1', '1'));
    c.onEvent({ ...upd('b', 'mkt', 'PENDING', '1', '0'), orderType: 'MARKET', price: undefined, E: 900 });
    c.onEvent(upd('b', 'gone', 'CANCELED', '1', '0'));
    c.sample(1000);
    const r = c.finish('t');
    expect(r.strategies.a?.ordersOpen).toBe(2);
    expect(r.strategies.b?.ordersOpen).toBe(1);
    expect(r.total?.ordersOpen).toBe(3);
    expect(r.openOrders).toEqual([
      { strategy: 'a', clientId: 'rest', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state: 'NEW', price: '100', quantity: '2', filledQty: '0', since: 100 },
      { strategy: 'a', clientId: 'part', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state: 'PARTIALLY_FILLED', price: '100', quantity: '3', filledQty: '1', since: 0 },
      { strategy: 'b', clientId: 'mkt', symbol: 'BTC_USDT', side: 'BUY', orderType: 'MARKET', state: 'PENDING', price: undefined, quantity: '1', filledQty: '0', since: 900 },
    ]);
  });

  it('folds orders into the counts when they end, keeping only open ones, and counts venue refusals by code', () => {
    const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') }], 1000);
    c.sample(0);
    for (let i = 0; i < 50; i++) {
      c.onEvent(upd('a', `f${i}`, 'NEW', '2', '0'));
      c.onEvent(upd('a', `f${i}`, i % 2 === 0 ? 'FILLED' : 'CANCELED', '2', i % 2 === 0 ? '2' : '0'));
      c.onEvent({ ...upd('a', `r${i}`, 'REJECTED', '1', '0'), reason: `LIMIT_MAKER_WOULD_TAKE: LIMIT_MAKER price ${100 + i} would trade immediately` });
    }
    c.onEvent(upd('a', 'open', 'NEW', '3', '0'));
    c.onEvent({ ...upd('a', 'odd', 'REJECTED', '1', '0'), reason: 'Account has insufficient balance: 12' });
    expect(c.held().openOrders).toBe(1);
    const r = c.finish('t');
    const a = r.strategies.a!;
    expect([a.orders, a.ordersFilled, a.ordersCanceled, a.ordersRejected, a.ordersOpen]).toEqual([102, 25, 25, 51, 1]);
    expect(a.fillRatio).toBe(roundTo10(25 / 102));
    // Ordered 50 x 2 + 51 x 1 + 3, filled 25 x 2.
    expect(a.qtyFillRatio).toBe(roundTo10(50 / 154));
    expect(r.rejections.a).toEqual([
      { source: 'venue', reason: 'LIMIT_MAKER_WOULD_TAKE', count: 50, example: 'LIMIT_MAKER_WOULD_TAKE: LIMIT_MAKER price 100 would trade immediately' },
      { source: 'venue', reason: 'Account has insufficient balance: 12', count: 1, example: 'Account has insufficient balance: 12' },
    ]);
  });

  it('a long run: samples and fills spilled to disk read back whole, streamed and built alike', () => {
    const c = new ResultCollector([{ name: 'a', symbols: ['BTC_USDT'], initialEquity: d('1000') }], 1000);
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      c.mark('BTC_USDT', d(String(100 + (i % 97) / 10)));
      if (i % 5 === 0) c.onEvent(fill('a', i * 1000 + 1, i % 10 === 0 ? 'BUY' : 'SELL', String(100 + (i % 97) / 10), '0.5', '0.01'));
      c.sample(i * 1000);
    }
    expect(c.counts()).toEqual({ samples: n, fills: n / 5 });
    const r = c.finish('long');
    const s = streamsOf(r);
    expect([s.equityCount, s.fillCount, s.roundTripCount]).toEqual([n, n / 5, n / 10]);
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-collector-'));
    try {
      writeResultJson(path.join(dir, 'r.json'), r);
      const json = readFileSync(path.join(dir, 'r.json'), 'utf8');
      expect(json).toBe(`${JSON.stringify(r, null, 2)}\n`);
      expect(r.equity).toHaveLength(n);
      expect(r.equity[n - 1]).toEqual({ t: (n - 1) * 1000, v: [r.equity[n - 1]!.v[0], r.equity[n - 1]!.v[0]] });
      expect(r.prices.BTC_USDT?.[12_345]).toEqual({ t: 12_345_000, p: 100 + (12_345 % 97) / 10 });
      expect(r.fills[7000]).toMatchObject({ t: 35_000_001, side: 'BUY', qty: '0.5' });
    } finally {
      s.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function roundTo10(x: number): number {
  return Number(x.toPrecision(10));
}
