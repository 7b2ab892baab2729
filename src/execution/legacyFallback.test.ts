import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { legacyEligible } from './OrderRouter.js';
import { setup, place, passes } from './routerTestSetup.js';

describe('OrderRouter legacy fallback', () => {
  it('settles a legacy cancel refused because the order filled meanwhile, and does not send it again', async () => {
    const { router, ledger, ex, clock } = setup();
    ex.maintenance = true;
    router.submit(place());
    await router.idle();
    expect(router.breaker.state).toBe('open');
    const intent = place();
    router.submit(intent);
    await router.idle();
    expect(ledger.order(intent.clientId)?.venue).toBe('legacy');
    // It fills completely on the exchange; the report is lost (no stream while the API is down).
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.001');
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    // Refused (not open), so the router looked: FILLED, and the cancel is settled.
    expect(ex.requests.legacyCancel).toBe(1);
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    clock.advanceTo(clock.now() + 10_000);
    await router.tick();
    await router.idle();
    expect(ex.requests.legacyCancel).toBe(1);
  });

  it('falls back to the legacy interface in maintenance, only for eligible orders, and returns after a probe', async () => {
    const { router, ledger, ex, clock } = setup();
    ex.maintenance = true;
    const first = place();
    router.submit(first);
    await router.idle();
    expect(router.breaker.state).toBe('open');
    expect(ledger.order(first.clientId)?.state).toBe('UNKNOWN');

    const second = place();
    const stop = place({ orderType: 'STOP_LOSS_LIMIT', stopPrice: new Decimal('850000000') });
    router.submit(second);
    router.submit(stop);
    await router.idle();
    expect(ex.requests.legacyCreate).toBe(1);
    expect(ledger.order(second.clientId)?.venue).toBe('legacy');
    expect(ledger.order(second.clientId)?.state).toBe('NEW');
    expect(ledger.order(stop.clientId)?.state).toBe('REJECTED');
    // The unknown first order was never re-sent anywhere while the open API was down.
    expect(ex.requests.newOrder).toBe(1);

    // A cancel of the legacy order while the open API is down goes to the legacy interface.
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: second.clientId });
    await router.idle();
    expect(ex.requests.legacyCancel).toBe(1);
    expect(ledger.order(second.clientId)?.state).toBe('CANCELED');

    ex.maintenance = false;
    clock.advanceTo(clock.now() + 5000);
    await router.tick();
    await router.idle();
    expect(router.breaker.state).toBe('closed');
    // Maintenance refused the first request: absent, but the settle window has not passed yet.
    clock.advanceTo(clock.now() + 2000);
    await router.tick();
    await router.idle();
    expect(ex.ordersWithClientId(first.clientId)).toHaveLength(1);
    expect(ex.requests.newOrder).toBe(2);
  });

  it.each([0, 10_000])('finds an UNKNOWN legacy order among the legacy active orders while the open API is still down (exchange clock %i ms behind)', async (exchangeBehindMs) => {
    const { router, ledger, ex } = setup({ exchangeBehindMs });
    ex.maintenance = true;
    router.submit(place());
    await router.idle();
    ex.legacyFaults.push('acceptThen5xx');
    const viaLegacy = place({ price: new Decimal('900000007') });
    router.submit(viaLegacy);
    await router.idle();
    expect(ledger.order(viaLegacy.clientId)?.state).toBe('UNKNOWN');
    await router.tick();
    await router.idle();
    const o = ledger.order(viaLegacy.clientId);
    expect(o?.state).toBe('NEW');
    expect(ex.orders.get(o?.orderId ?? '')?.price.toFixed()).toBe('900000007');
    expect(ex.requests.legacyCreate).toBe(1);
  });

  it('with the open API circuit open, live orders are still checked one by one through the legacy interface', async () => {
    const { router, ledger, ex, clock } = setup();
    const intent = place();
    router.submit(intent);
    await router.idle();
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.001');
    ex.maintenance = true;
    for (let i = 0; i < 3; i++) {
      router.submit(place());
      await router.idle();
    }
    expect(router.breaker.closed).toBe(false);
    const lists = ex.calls.get('allOrders') ?? 0;
    clock.advanceTo(clock.now() + 60_000);
    await router.tick();
    await router.idle();
    expect(ex.calls.get('allOrders') ?? 0).toBe(lists);
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    await router.stop();
  });

  it('a legacy order status the spec does not show is not taken for a cancel: the order stays live and tracked', async () => {
    const { router, ledger, ex } = setup();
    ex.maintenance = true;
    router.submit(place());
    await router.idle();
    const a = place({ price: new Decimal('900000001') });
    const b = place({ price: new Decimal('900000002') });
    router.submit(a);
    router.submit(b);
    await router.idle();
    expect([ledger.order(a.clientId)?.venue, ledger.order(b.clientId)?.venue]).toEqual(['legacy', 'legacy']);
    // A partial fill shown under a status word /v1 never documented, then a cancel-all that fails.
    ex.fill(ledger.order(a.clientId)?.orderId ?? '', '0.0004');
    ex.legacyLiveStatus = 'partially_filled';
    ex.legacyCancelDown = true;
    router.cancelAll({ strategy: 's1' });
    await router.idle();
    // Both orders still rest on the exchange: the tracker must keep them live (a cancel retry, fills to come).
    expect(ledger.order(a.clientId)?.state).toBe('PARTIALLY_FILLED');
    expect(ledger.order(a.clientId)?.cumQty.toFixed()).toBe('0.0004');
    expect(ledger.order(b.clientId)?.state).toBe('NEW');
  });


  it('a legacy order answered 5XX after it filled at once: its lookups back off while the open API is down, then it is found by shape, linked and its fills recorded', async () => {
    const s = setup();
    const { router, ledger, ex, events } = s;
    ex.maintenance = true;
    router.submit(place());
    await router.idle();
    ex.legacyFaults.push('acceptThen5xx');
    const lost = place({ price: new Decimal('900000007') });
    router.submit(lost);
    await router.idle();
    expect(ledger.order(lost.clientId)?.state).toBe('UNKNOWN');
    const onExchange = [...ex.orders.values()].find((o) => o.price.eq('900000007'));
    if (!onExchange) throw new Error('the legacy order did not reach the exchange');
    // Filled before anyone looked: the legacy active orders never list it.
    ex.fill(onExchange.orderId, '0.001');
    const before = ex.requests.legacyReads;
    await passes(s, 120);
    // A minute of passes every 500 ms: a handful of paced lookups, not 120 (/v1 allows 60 a minute).
    const reads = ex.requests.legacyReads - before;
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(reads).toBeLessThanOrEqual(12);
    expect(ledger.order(lost.clientId)?.state).toBe('UNKNOWN');

    ex.maintenance = false;
    await passes(s, 1, 60_000);
    await passes(s, 1, 0);
    const o = ledger.order(lost.clientId);
    expect(o?.orderId).toBe(onExchange.orderId);
    expect(o?.state).toBe('FILLED');
    expect(ledger.transitions(lost.clientId).map((t) => t.source)).toContain('legacy-link');
    await router.fetchFills(lost.clientId);
    expect(ledger.fills(lost.clientId).map((f) => f.qty.toFixed())).toEqual(['0.001']);
    expect(events.filter((e) => e.type === 'fill' && e.clientId === lost.clientId)).toHaveLength(1);
    // Settled: further passes look nothing up for it.
    const reads2 = ex.requests.reads;
    await passes(s, 10);
    expect(ex.requests.reads).toBe(reads2);
    expect(ex.requests.legacyCreate).toBe(1);
  });

  it('decides legacy eligibility from what /v1 can express', () => {
    const base = { symbol: 'BTC_IDR', side: 'BUY' as const, orderType: 'LIMIT' as const, quantity: new Decimal(1), price: new Decimal(1) };
    expect(legacyEligible(base)).toBe(true);
    expect(legacyEligible({ ...base, symbol: 'BTC_USDT' })).toBe(false);
    expect(legacyEligible({ ...base, timeInForce: 'IOC' })).toBe(false);
    expect(legacyEligible({ ...base, icebergQty: new Decimal(1) })).toBe(false);
    expect(legacyEligible({ ...base, orderType: 'MARKET', side: 'SELL' })).toBe(true);
    expect(legacyEligible({ ...base, orderType: 'MARKET' })).toBe(false);
    expect(legacyEligible({ ...base, orderType: 'LIMIT_MAKER' })).toBe(false);
  });
});
