import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import { FakeExchange, type CancelFault } from './FakeExchange.js';
import { OrderRouter, legacyEligible } from './OrderRouter.js';
import { OrderTracker, type TrackerEvent } from './OrderTracker.js';
import { silentLogger } from './log.js';
import { placeIntents } from './testIntents.js';

function setup(opts: { legacy?: boolean; unstreamed?: readonly string[]; exchangeBehindMs?: number } = {}) {
  const clock = new VirtualClock(1_000_000);
  const ledger = Ledger.open(':memory:');
  const events: TrackerEvent[] = [];
  const tracker = new OrderTracker({ ledger, clock, emit: (e) => events.push(e) });
  // The exchange's clock may run behind ours; the open client measures that offset (syncTime).
  const behind = opts.exchangeBehindMs ?? 0;
  const ex = new FakeExchange(() => clock.now() - behind);
  const router = new OrderRouter({
    open: ex.open,
    ...(opts.legacy === false ? {} : { legacy: ex.legacy }),
    tracker,
    ledger,
    clock,
    log: silentLogger,
    symbols: ['BTC_IDR'],
    pollMs: 0,
    settleMs: 6000,
    maxRetryAgeMs: 10_000,
    breaker: { failureThreshold: 3, openMs: 5000 },
    ...(opts.unstreamed ? { unstreamedSymbols: opts.unstreamed, orderPollMs: 3000 } : {}),
    timeOffsetMs: () => -behind,
  });
  return { clock, ledger, events, tracker, ex, router };
}

const place = placeIntents('s1', (n) => ({ intentId: `i${n}`, clientId: `c${n}` }));

/** An order the exchange accepted but answered 5XX: UNKNOWN in the ledger, live on the exchange. */
async function acceptedButUnknown(opts: Parameters<typeof setup>[0] = {}) {
  const s = setup(opts);
  s.ex.placementFaults.push('acceptThen5xx');
  const intent = place();
  s.router.submit(intent);
  await s.router.idle();
  expect(s.ledger.order(intent.clientId)?.state).toBe('UNKNOWN');
  return { ...s, intent };
}

/** An order placed (NEW), then a strategy cancel that meets `fault` on the open API. */
async function placedThenCancelFails(fault: CancelFault) {
  const s = setup();
  const intent = place();
  s.router.submit(intent);
  await s.router.idle();
  s.ex.cancelFaults.push(fault);
  s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
  await s.router.idle();
  return { ...s, intent };
}

describe('OrderRouter', () => {
  it('sends a quoteOrderQty market buy on the open API with the amount, which the exchange keeps as origQuoteQty', async () => {
    const { router, ledger, ex } = setup();
    const intent = place({ orderType: 'MARKET', timeInForce: undefined, price: undefined, quantity: undefined, quoteOrderQty: new Decimal('50000') });
    router.submit(intent);
    await router.idle();
    const o = ledger.order(intent.clientId);
    expect(o?.state).toBe('NEW');
    expect(ex.requests.legacyCreate).toBe(0);
    const sent = ex.orders.get(o?.orderId ?? '');
    expect([sent?.type, sent?.origQuoteQty.toFixed(), sent?.origQty.toFixed()]).toEqual(['MARKET', '50000', '0']);
  });

  it('journals the order before the request, places it, follows fills and cancels', async () => {
    const { router, ledger, ex } = setup();
    const intent = place();
    router.submit(intent);
    // Synchronously journalled, before any await: a crash here still leaves a named order.
    expect(ledger.order(intent.clientId)?.state).toBe('PENDING');
    await router.idle();
    const o = ledger.order(intent.clientId);
    expect(o?.state).toBe('NEW');
    expect(o?.sentAt).toBeDefined();
    ex.fill(o?.orderId ?? '', '0.0004');
    for (const r of ex.reports) router.onExecutionReport(r);
    expect(ledger.order(intent.clientId)?.state).toBe('PARTIALLY_FILLED');
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('CANCELED');
    expect(ledger.fills(intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0004']);
  });

  it('a 4XX refusal is a definite REJECTED with the exchange message, and proves the server healthy', async () => {
    const { router, ledger, ex } = setup();
    ex.placementFaults.push('rejectWith5xx', 'rejectWith5xx', 'refuse4xx');
    router.submit(place());
    router.submit(place());
    const refused = place();
    router.submit(refused);
    await router.idle();
    expect(ledger.order(refused.clientId)?.state).toBe('REJECTED');
    expect(ledger.order(refused.clientId)?.reason).toMatch(/insufficient balance/);
    // Two 5XX then a 4XX: the failure streak is broken, the breaker stays closed.
    expect(router.breaker.state).toBe('closed');
  });

  it('drops a second place intent that reuses a clientId instead of sending it', async () => {
    const { router, ex } = setup();
    const intent = place();
    router.submit(intent);
    router.submit({ ...intent, intentId: 'again', price: new Decimal('1') });
    await router.idle();
    expect(ex.requests.newOrder).toBe(1);
    expect(ex.ordersWithClientId(intent.clientId)[0]?.price.toFixed()).toBe('900000000');
  });

  // The exchange clock may run well behind ours (the open client measures the offset): the lookup
  // window is in exchange time, or an order stamped 10 s "before" we journalled it would look absent and be sent twice.
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

  it('opens the breaker after repeated 5XX and counts 4XX refusals as a healthy server', async () => {
    const { router, ex, ledger } = setup({ legacy: false });
    ex.placementFaults.push('rejectWith5xx', 'rejectWith5xx');
    router.submit(place());
    router.submit(place());
    await router.idle();
    expect(router.breaker.state).toBe('closed');
    ex.placementFaults.push('rejectWith5xx');
    router.submit(place());
    await router.idle();
    expect(router.breaker.state).toBe('open');
    const refused = place();
    router.submit(refused);
    await router.idle();
    // No legacy port: the order is refused locally instead of queued behind an outage.
    expect(ex.requests.newOrder).toBe(3);
    expect(ledger.order(refused.clientId)?.reason).toMatch(/VENUE_UNAVAILABLE/);
  });

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

  it('retries a cancel whose outcome was unknown (timeout) until the order is gone, without hammering', async () => {
    const { router, ledger, ex, clock, intent } = await placedThenCancelFails('timeout');
    const orderId = ledger.order(intent.clientId)?.orderId ?? '';
    // The cancel never reached the exchange: the order still rests there and can still fill.
    expect(ex.orders.get(orderId)?.status).toBe('NEW');
    expect(ex.requests.cancel).toBe(1);
    await router.tick();
    await router.idle();
    // Not again at once: the next attempt waits for the retry interval.
    expect(ex.requests.cancel).toBe(1);
    clock.advanceTo(clock.now() + 2000);
    await router.tick();
    await router.idle();
    expect(ex.requests.cancel).toBe(2);
    expect(ex.orders.get(orderId)?.status).toBe('CANCELED');
    expect(ledger.order(intent.clientId)?.state).toBe('CANCELED');
    clock.advanceTo(clock.now() + 2000);
    await router.tick();
    await router.idle();
    expect(ex.requests.cancel).toBe(2);
  });

  it('settles a cancel that took effect but was answered 5XX, even when the stream report is lost', async () => {
    const { router, ledger, ex, clock, intent } = await placedThenCancelFails('cancelThen5xx');
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
    clock.advanceTo(clock.now() + 2000);
    await router.tick();
    await router.idle();
    // The repeated cancel is refused (order not open); the refresh that follows shows CANCELED.
    expect(ledger.order(intent.clientId)?.state).toBe('CANCELED');
    expect(ex.ordersWithClientId(intent.clientId)).toHaveLength(1);
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
