/**
 * "Journal before acting", when the journal cannot be written (disk full, a locked or read-only
 * file): the strategy runner, the pipeline and the live router over a ledger whose writes start
 * failing, as SQLite reports them (better-sqlite3's SqliteError).
 */
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { TradeEvent } from '../core/marketEvents.js';
import { Ledger } from '../store/Ledger.js';
import { StrategyRunner, silentLogger, type StrategyState } from '../strategy/StrategyRunner.js';
import { defineStrategy } from '../strategy/types.js';
import { FakeExchange } from './FakeExchange.js';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker } from './OrderTracker.js';
import { createPipeline } from './pipeline.js';

const diskFull = (): never => {
  throw new BetterSqlite3.SqliteError('database or disk is full', 'SQLITE_FULL');
};

const trade = (E: number): TradeEvent => ({ type: 'trade', E, symbol: 'BTC_IDR', tradeId: String(E), price: new Decimal('950000000'), qty: new Decimal('0.001'), tradeTime: E, isBuyerMaker: false });

/**
 * Places one resting buy per trade (cancelling the previous one first when asked) and notes what it
 * sees. `orderInGate: false`: the gate journals intent and verdict only, the router the order and
 * its send (markSent), as for an order sent again after reconciliation.
 */
function setup(opts: { orderInGate?: boolean } = {}) {
  const clock = new VirtualClock(1_000_000);
  const ledger = Ledger.open(':memory:');
  const bus = new Bus();
  const tracker = new OrderTracker({ ledger, clock, emit: (e) => bus.publish(e) });
  const ex = new FakeExchange(() => clock.now());
  const router = new OrderRouter({ open: ex.open, tracker, ledger, clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0 });
  const pipeline = createPipeline<StrategyState>({ bus, venue: router, risk: () => ({ kind: 'accept' }), clock, log: silentLogger, ledger, ...(opts.orderInGate === false ? {} : { reconciler: router }) });
  pipeline.start();
  const seen: BusEvent[] = [];
  const placed: string[] = [];
  let cancelNext = false;
  const plugin = defineStrategy({
    name: 'p',
    description: 'test',
    params: z.object({}),
    create: (ctx) => ({
      onEvent(e: BusEvent) {
        seen.push(e);
        if (e.type !== 'trade') return;
        if (cancelNext) for (const o of ctx.openOrders()) ctx.cancel('BTC_IDR', o.clientId);
        else placed.push(ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000'), quantity: new Decimal('0.001') }));
      },
    }),
  });
  const runner = new StrategyRunner([{ name: 's', plugin, params: {}, symbols: ['BTC_IDR'], budget: { IDR: new Decimal('10000000') } }], {
    bus,
    clock,
    venue: pipeline.venue,
    books: () => undefined,
    gate: pipeline.gate,
    log: silentLogger,
  });
  runner.start();
  bus.listen(() => runner.flush());
  return { clock, ledger, bus, ex, router, runner, seen, placed, open: () => runner.book('s').openCount(), cancelNext: () => (cancelNext = true) };
}

describe('a journal write that fails', () => {
  it('when the order cannot be journalled: nothing is sent, the strategy is told and keeps running, no phantom order', async () => {
    const s = setup();
    // The gate's commit carries the intent, its verdict and the PENDING order.
    const gate = s.ledger.recordGate.bind(s.ledger);
    s.ledger.recordGate = diskFull;
    expect(() => s.bus.publish(trade(1))).not.toThrow();
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(0);
    expect(s.runner.failures).toEqual([]);
    expect(s.open()).toBe(0);
    expect(s.ledger.count('orders')).toBe(0);
    const rejected = s.seen.filter((e) => e.type === 'intentRejected');
    expect(rejected.map((e) => e.type === 'intentRejected' && [e.reason, e.message])).toEqual([['JOURNAL_FAILED', 'order not sent: the ledger could not record it (database or disk is full)']]);
    // The disk has room again: the next order is journalled, then sent.
    s.ledger.recordGate = gate;
    s.bus.publish(trade(2));
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(1);
    expect(s.ledger.order(s.placed[1] ?? '')?.state).toBe('NEW');
    expect(s.open()).toBe(1);
  });

  it('when the intent cannot be recorded: a new order is refused, a cancel still goes out', async () => {
    const s = setup();
    s.bus.publish(trade(1));
    await s.router.idle();
    const first = s.placed[0] ?? '';
    expect(s.ledger.order(first)?.state).toBe('NEW');
    s.ledger.recordGate = diskFull;
    expect(() => s.bus.publish(trade(2))).not.toThrow();
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(1);
    expect(s.runner.failures).toEqual([]);
    expect(s.open()).toBe(1);
    const rejected = s.seen.filter((e) => e.type === 'intentRejected');
    expect(rejected.map((e) => e.type === 'intentRejected' && [e.reason, e.message])).toEqual([
      ['JOURNAL_FAILED', 'order not sent: the ledger could not record it (database or disk is full)'],
    ]);
    // Cancelling only reduces exposure: a full disk must not keep an order working on the book.
    s.cancelNext();
    s.bus.publish(trade(3));
    await s.router.idle();
    expect(s.ex.requests.cancel).toBe(1);
    expect(s.ledger.order(first)?.state).toBe('CANCELED');
    expect(s.open()).toBe(0);
  });

  it('when the send cannot be journalled: nothing is sent and the order is closed, not left PENDING forever', async () => {
    // The gate's commit journals the send of an order the router sends at once: here the router's own.
    const s = setup({ orderInGate: false });
    const update = s.ledger.updateOrder.bind(s.ledger);
    s.ledger.updateOrder = diskFull;
    s.bus.publish(trade(1));
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(0);
    // The strategy is told its order is dead, and holds no budget for it.
    const updates = s.seen.filter((e) => e.type === 'orderUpdate').map((e) => e.type === 'orderUpdate' && [e.state, e.reason]);
    expect(updates).toEqual([['PENDING', undefined], ['REJECTED', 'NOT_SENT: the ledger could not record the send (database or disk is full)']]);
    expect(s.open()).toBe(0);
    expect(s.runner.failures).toEqual([]);
    // The ledger still says PENDING and never sent: what a restart closes as NOT_SENT.
    s.ledger.updateOrder = update;
    expect([s.ledger.order(s.placed[0] ?? '')?.state, s.ledger.order(s.placed[0] ?? '')?.sentAt]).toEqual(['PENDING', undefined]);
  });

  it('when the order has no row to mark sent: nothing is sent, the order is closed and the journal says why', async () => {
    const s = setup({ orderInGate: false });
    // A ledger that lost the PENDING row (or never took it) without saying so.
    s.ledger.insertOrder = () => undefined;
    s.bus.publish(trade(1));
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(0);
    const id = s.placed[0] ?? '';
    const updates = s.seen.filter((e) => e.type === 'orderUpdate').map((e) => e.type === 'orderUpdate' && [e.state, e.reason]);
    const reason = `NOT_SENT: the ledger could not record the send (order ${id} has no row in the ledger: its send cannot be journalled)`;
    expect(updates).toEqual([['PENDING', undefined], ['REJECTED', reason]]);
    expect(s.open()).toBe(0);
    expect(s.ledger.journalEntries('notSent')).toEqual([{ ts: 1_000_000, data: { clientId: id, reason } }]);
  });
});
