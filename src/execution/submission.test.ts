import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { setup, place, placedThenCancelFails } from './routerTestSetup.js';
import { silentLogger } from './log.js';

describe('OrderRouter submission: placements, refusals, the breaker and cancels', () => {
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

  it('a cancel that meets an order filled while its report travels: logged at info, and the strategy hears the fill before FILLED', async () => {
    const lines: string[] = [];
    const log = { ...silentLogger, info: (_o: object, m?: string) => lines.push(`info ${m ?? ''}`), warn: (_o: object, m?: string) => lines.push(`warn ${m ?? ''}`) };
    const { router, ledger, ex, events } = setup({ log });
    const intent = place();
    router.submit(intent);
    await router.idle();
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.001'); // its report still travels
    const seen = events.length;
    const heard = () => events.slice(seen).map((e) => (e.type === 'orderUpdate' ? e.state : `${e.type} ${e.qty.toFixed()}`));
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    // The lookup wrote the truth to the ledger; the strategy would otherwise see the order closed
    // while its position still lacked the fill.
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    expect(heard()).toEqual([]);
    expect(lines.filter((l) => l.includes('cancel'))).toEqual(['info cancel refused: the order is already FILLED']);
    for (const r of ex.reports) router.onExecutionReport(r);
    expect(heard()).toEqual(['fill 0.001', 'FILLED']);
    await router.stop();
  });

  it('an update held for a fill that never comes is published after the bound, saying so', async () => {
    const lines: string[] = [];
    const log = { ...silentLogger, info: (_o: object, m?: string) => lines.push(m ?? '') };
    const { router, ledger, ex, events, clock } = setup({ log });
    const intent = place();
    router.submit(intent);
    await router.idle();
    ex.fill(ledger.order(intent.clientId)?.orderId ?? '', '0.001');
    router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
    await router.idle();
    const last = () => events.filter((e) => e.type === 'orderUpdate').at(-1);
    expect(last()?.state).toBe('NEW');
    clock.advanceTo(clock.now() + 2999);
    await router.tick();
    expect(last()?.state).toBe('NEW');
    clock.advanceTo(clock.now() + 2);
    await router.tick();
    expect(last()?.state).toBe('FILLED');
    expect(lines).toContain('order update published before all its fills were recorded');
    await router.stop();
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
});
