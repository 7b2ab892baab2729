import { describe, expect, it } from 'vitest';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker } from './OrderTracker.js';
import { silentLogger } from './log.js';
import { Decimal } from '../core/decimal.js';
import { setup, place, acceptedButUnknown } from './routerTestSetup.js';

describe('OrderRouter reconciliation: start-up, background checks, fills and shutdown', () => {
  it('recovers after a restart: sent-but-unanswered orders are reconciled, never-sent ones rejected, fills restored', async () => {
    const { ledger, ex, clock, tracker } = setup();
    // First life: one order sent and accepted (answer lost), one journalled but never sent.
    const sent = place();
    const unsent = place();
    tracker.create({ ...sent, venue: 'open', timeInForce: 'GTC', quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, price: sent.price, quantity: sent.quantity });
    tracker.markSent(sent.clientId, 'open');
    tracker.create({ ...unsent, venue: 'open', timeInForce: 'GTC', quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, price: unsent.price, quantity: unsent.quantity });
    await ex.open.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', clientId: sent.clientId, price: sent.price, quantity: sent.quantity });
    const orderId = ex.ordersWithClientId(sent.clientId)[0]?.orderId ?? '';
    ex.fill(orderId, '0.001');
    clock.advanceTo(clock.now() + 1000);

    // Second life: a new tracker and router over the same ledger.
    const tracker2 = new OrderTracker({ ledger, clock, emit: () => undefined });
    const router2 = new OrderRouter({ open: ex.open, legacy: ex.legacy, tracker: tracker2, ledger, clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0 });
    const stillUnknown = await router2.recover(0);
    expect(stillUnknown).toHaveLength(0);
    expect(ledger.order(sent.clientId)?.state).toBe('FILLED');
    expect(ledger.fills(sent.clientId)).toHaveLength(1);
    expect(ledger.order(unsent.clientId)?.state).toBe('REJECTED');
    expect(ex.requests.newOrder).toBe(1);
    expect(router2.balances.map((b) => b.asset)).toEqual(['IDR']);
  });

  it('fetches fills by orderId when REST shows more executed than the stream delivered', async () => {
    const { router, ledger, ex } = setup();
    const intent = place();
    router.submit(intent);
    await router.idle();
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.0004');
    // The executionReport is lost; the cancel answer reveals the executed quantity.
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    expect(ledger.order(intent.clientId)?.cumQty.toFixed()).toBe('0.0004');
    expect(ledger.fills(intent.clientId)).toHaveLength(0);
    await router.fetchAllMissingFills(0);
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0004']);
    await router.stop();
  });

  it('polls resting orders of symbols no user stream reports (symbol type 2), so their fills are not missed', async () => {
    const { router, ledger, ex, clock } = setup({ unstreamed: ['BTC_IDR'] });
    const intent = place();
    router.submit(intent);
    await router.idle();
    const orderId = ledger.order(intent.clientId)?.orderId ?? '';
    // Filled on the exchange; no executionReport will ever come for this symbol.
    ex.fill(orderId, '0.0004');
    await router.tick();
    await router.idle();
    // Not polled again before the poll period.
    expect(ledger.order(intent.clientId)?.cumQty.toFixed()).toBe('0');
    clock.advanceTo(clock.now() + 3000);
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('PARTIALLY_FILLED');
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0004']);
    ex.fill(orderId, '0.0006');
    clock.advanceTo(clock.now() + 3000);
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0004', '0.0006']);
    // A terminal order is not polled any more.
    const reads = ex.requests.reads;
    clock.advanceTo(clock.now() + 3000);
    await router.tick();
    await router.idle();
    expect(ex.requests.reads).toBe(reads);
    await router.stop();
  });

  it('checks orders of streamed symbols only rarely, and so still learns a fill whose report the connected stream lost', async () => {
    const { router, ledger, ex, clock } = setup();
    const intent = place();
    router.submit(intent);
    await router.idle();
    const reads = ex.requests.reads;
    clock.advanceTo(clock.now() + 10_000);
    await router.tick();
    await router.idle();
    expect(ex.requests.reads).toBe(reads);
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
    // Filled; the stream stays connected but this report never arrives (no reconnect, no reconciliation).
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.001');
    clock.advanceTo(clock.now() + 50_000);
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.001']);
    await router.stop();
  });

  it('checks the live orders of a symbol with one open-orders query per period, and queries on its own only an order it no longer lists or lists with more executed', async () => {
    for (const unstreamed of [undefined, ['BTC_IDR']]) {
      const { router, ledger, ex, clock } = setup(unstreamed ? { unstreamed } : {});
      const period = unstreamed ? 3000 : 60_000;
      const intents = [place(), place(), place(), place(), place()];
      for (const i of intents) router.submit(i);
      await router.idle();
      const id = (n: number): string => ledger.order(intents[n]?.clientId ?? '')?.orderId ?? '';
      const count = (endpoint: string): number => ex.calls.get(endpoint) ?? 0;
      // On the exchange, with every stream report lost: one partly filled, one cancelled elsewhere.
      ex.fill(id(1), '0.0004');
      await ex.legacy.cancelOrder(id(3));
      clock.advanceTo(clock.now() + period);
      await router.tick();
      await router.idle();
      expect([count('allOrders'), count('orderDetail'), count('accountTrades')]).toEqual([1, 2, 1]);
      expect(intents.map((i) => ledger.order(i.clientId)?.state)).toEqual(['NEW', 'PARTIALLY_FILLED', 'NEW', 'CANCELED', 'NEW']);
      expect(ledger.fills(intents[1]?.clientId ?? '').map((f) => f.qty.toFixed())).toEqual(['0.0004']);
      // Next period: everything the list shows agrees with the ledger, so no order is queried alone.
      clock.advanceTo(clock.now() + period);
      await router.tick();
      await router.idle();
      expect([count('allOrders'), count('orderDetail'), count('accountTrades')]).toEqual([2, 2, 1]);
      // The one that filled completely is queried, its last fill fetched, and it is closed.
      ex.fill(id(1), '0.0006');
      clock.advanceTo(clock.now() + period);
      await router.tick();
      await router.idle();
      expect([count('allOrders'), count('orderDetail'), count('accountTrades')]).toEqual([3, 3, 2]);
      expect(ledger.order(intents[1]?.clientId ?? '')?.state).toBe('FILLED');
      expect(ledger.fills(intents[1]?.clientId ?? '').map((f) => f.qty.toFixed())).toEqual(['0.0004', '0.0006']);
      expect(ex.requests.newOrder).toBe(5);
      await router.stop();
    }
  });

  it('shutdown cancels an order whose placement answer was lost, once the exchange answers lookups again', async () => {
    const { router, ledger, ex, clock, intent } = await acceptedButUnknown({ legacy: false });
    // Shutdown starts while the open API is down: the order cannot be looked up, let alone cancelled.
    ex.maintenance = true;
    const done = router.cancelAllAndWait(20_000);
    await new Promise((r) => setTimeout(r, 20));
    const orderId = ex.ordersWithClientId(intent.clientId)[0]?.orderId ?? '';
    expect(ex.orders.get(orderId)?.status).toBe('NEW');
    // The API is back and the breaker's wait has passed: found by clientId, then cancelled.
    ex.maintenance = false;
    clock.advanceTo(clock.now() + 5000);
    expect(await done).toEqual([]);
    expect(ex.orders.get(orderId)?.status).toBe('CANCELED');
    expect(ledger.order(intent.clientId)?.state).toBe('CANCELED');
    expect(ex.requests.newOrder).toBe(1);
  });

  it('shutdown gives up at the deadline and returns what is still live', async () => {
    const { router, ex, clock } = await acceptedButUnknown({ legacy: false });
    ex.maintenance = true;
    const done = router.cancelAllAndWait(1000);
    clock.advanceTo(clock.now() + 1000);
    expect((await done).map((o) => o.state)).toEqual(['UNKNOWN']);
  });

  it('keeps the account\'s open orders it did not place, as each open-orders listing shows them (order-count filters count them)', async () => {
    const { router, ex, clock } = setup();
    router.submit(place());
    await router.idle();
    const manual = await ex.open.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'LIMIT', clientId: 'manual-1', price: new Decimal('1100000000'), quantity: new Decimal('0.001'), timeInForce: 'GTC' });
    expect(router.untrackedOpenOrders).toEqual([]);
    await router.reconcile('test');
    expect(router.untrackedOpenOrders.map((o) => [o.symbol, o.orderType, o.icebergQty.toFixed()])).toEqual([['BTC_IDR', 'LIMIT', '0']]);
    // The trader cancels it; the next periodic check of the bot's own orders lists the symbol again.
    await ex.open.cancelOrder({ orderId: manual.orderId });
    clock.advanceTo(clock.now() + 61_000);
    await router.tick();
    await router.idle();
    expect(router.untrackedOpenOrders).toEqual([]);
  });
});
