import { describe, expect, it } from 'vitest';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker } from './OrderTracker.js';
import { silentLogger } from './log.js';
import { setup, place, acceptedButUnknown } from './routerTestSetup.js';

describe('OrderRouter unknown outcomes: resolved by clientId before anything else is sent', () => {
  it.each([0, 10_000])('never duplicates an order the exchange accepted before answering 5XX (exchange clock %i ms behind)', async (exchangeBehindMs) => {
    const { router, ledger, ex, clock, intent } = await acceptedButUnknown({ exchangeBehindMs });
    clock.advanceTo(clock.now() + 7000);
    await router.tick();
    await router.idle();
    expect(ex.ordersWithClientId(intent.clientId)).toHaveLength(1);
    expect(ex.requests.newOrder).toBe(1);
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
  });

  it('a cancel for an UNKNOWN order waits for reconciliation, then cancels the order that exists', async () => {
    const { router, ledger, ex } = setup();
    ex.placementFaults.push('acceptThen5xx');
    const intent = place();
    router.submit(intent);
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    expect(ex.ordersWithClientId(intent.clientId)[0]?.status).toBe('CANCELED');
    expect(ledger.order(intent.clientId)?.state).toBe('CANCELED');
    expect(ex.requests.newOrder).toBe(1);
  });

  it('re-sends an order only after proving it absent past the settle time', async () => {
    const { router, ledger, ex, clock } = setup();
    ex.placementFaults.push('rejectWith5xx');
    const intent = place();
    router.submit(intent);
    await router.idle();
    await router.tick();
    await router.idle();
    // Absent but still inside the settle window: nothing is sent again.
    expect(ex.requests.newOrder).toBe(1);
    expect(ledger.order(intent.clientId)?.state).toBe('UNKNOWN');
    clock.advanceTo(clock.now() + 6500);
    await router.tick();
    await router.idle();
    expect(ex.requests.newOrder).toBe(2);
    expect(ex.ordersWithClientId(intent.clientId)).toHaveLength(1);
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
    expect(router.stats.retries).toBe(1);
  });

  it('an absent order too old to retry is REJECTED, not re-sent', async () => {
    const { router, ledger, ex, clock } = setup();
    ex.placementFaults.push('rejectWith5xx');
    const intent = place();
    router.submit(intent);
    await router.idle();
    clock.advanceTo(clock.now() + 20_000);
    await router.tick();
    await router.idle();
    expect(ex.requests.newOrder).toBe(1);
    expect(ledger.order(intent.clientId)?.state).toBe('REJECTED');
    expect(ledger.order(intent.clientId)?.reason).toMatch(/NOT_PLACED/);
  });

  it('never re-sends an order of an earlier run after a restart, even when it is proven absent while still young', async () => {
    const { ledger, ex, clock, tracker } = setup();
    // First life: journalled and sent, the request never reached the exchange, then the process died.
    const lost = place();
    tracker.create({ ...lost, venue: 'open', timeInForce: 'GTC', quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, price: lost.price, quantity: lost.quantity });
    tracker.markSent(lost.clientId, 'open');
    clock.advanceTo(clock.now() + 1000);

    // Second life, restarted at once: the start-up wait ends before the settle time (here: no wait).
    const tracker2 = new OrderTracker({ ledger, clock, emit: () => undefined });
    const router2 = new OrderRouter({ open: ex.open, tracker: tracker2, ledger, clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0, settleMs: 6000, maxRetryAgeMs: 10_000 });
    const unknown = await router2.recover(0);
    expect(unknown.map((o) => o.clientId)).toEqual([lost.clientId]);
    clock.advanceTo(clock.now() + 6000);
    await router2.tick();
    await router2.idle();
    // The strategy that wanted it is gone (strategies start afresh each run): sending it now would
    // put an order on the book that no running strategy knows, next to the one it places itself.
    expect(ex.requests.newOrder).toBe(0);
    expect(ledger.order(lost.clientId)?.state).toBe('REJECTED');
    expect(ledger.order(lost.clientId)?.reason).toMatch(/NOT_PLACED/);
  });

  it('an UNKNOWN order that the user stream reports first is taken from the stream, never sent again', async () => {
    const { router, ledger, ex, clock, intent } = await acceptedButUnknown();
    for (const r of ex.reports) router.onExecutionReport(r);
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
    expect(ledger.order(intent.clientId)?.orderId).toBe(ex.ordersWithClientId(intent.clientId)[0]?.orderId);
    clock.advanceTo(clock.now() + 20_000);
    await router.tick();
    await router.idle();
    expect(ex.requests.newOrder).toBe(1);
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
  });

  it('an UNKNOWN order found already filled gets its state and every fill, with no stream report', async () => {
    const { router, ledger, ex, clock, intent } = await acceptedButUnknown();
    const orderId = ex.ordersWithClientId(intent.clientId)[0]?.orderId ?? '';
    // Filled in two parts that add up exactly to the order quantity, while we did not know it existed.
    ex.fill(orderId, '0.0003');
    ex.fill(orderId, '0.0007');
    clock.advanceTo(clock.now() + 7000);
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    expect(ledger.order(intent.clientId)?.cumQty.toFixed()).toBe('0.001');
    await router.fetchAllMissingFills(0);
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0003', '0.0007']);
    expect(ex.requests.newOrder).toBe(1);
    await router.stop();
  });

  it('while the lookups of an UNKNOWN order keep failing, nothing is sent for it and the exchange is not hammered; an order proven absent too late is REJECTED', async () => {
    const { router, ledger, ex, clock } = setup({ legacy: false });
    ex.placementFaults.push('rejectWith5xx');
    const intent = place();
    router.submit(intent);
    await router.idle();
    ex.maintenance = true;
    for (let i = 0; i < 20; i++) {
      clock.advanceTo(clock.now() + 500);
      await router.tick();
      await router.idle();
    }
    expect(ledger.order(intent.clientId)?.state).toBe('UNKNOWN');
    expect(ex.requests.newOrder).toBe(1);
    // The breaker opened after the first failures: later passes only probe it, they do not look up.
    expect(router.breaker.state).not.toBe('closed');
    expect(ex.requests.reads).toBeLessThanOrEqual(3);
    ex.maintenance = false;
    clock.advanceTo(clock.now() + 60_000);
    await router.tick();
    await router.idle();
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('REJECTED');
    expect(ledger.order(intent.clientId)?.reason).toMatch(/NOT_PLACED/);
    expect(ex.requests.newOrder).toBe(1);
  });
});
