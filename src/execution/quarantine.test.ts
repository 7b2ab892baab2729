import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { place, setup } from './routerTestSetup.js';

describe('OrderRouter quarantine: an inconsistent fill is never taken as truth', () => {
  it('a stream fill with price 1e29 and commission -0.5 is quarantined, not stored or published; the order is reconciled over REST and the true fill recorded once', async () => {
    const { router, ledger, ex, events, tracker } = setup();
    const intent = place();
    router.submit(intent);
    await router.idle();
    const orderId = ledger.order(intent.clientId)?.orderId ?? '';
    ex.fill(orderId, '0.001');
    const truth = ex.reports.at(-1);
    if (truth?.executionType !== 'TRADE') throw new Error('no trade report');
    const garbage = { ...truth, lastPrice: new Decimal('1e29'), lastQuoteQty: new Decimal('1e26'), commission: new Decimal('-0.5') };
    const seen = (): number => events.filter((e) => e.type === 'fill').length;
    const announced: string[] = [];
    tracker.onQuarantine((q) => announced.push(`${q.clientId} ${q.source}`));

    router.onExecutionReport(garbage);
    expect(ledger.fills(intent.clientId)).toEqual([]);
    expect(seen()).toBe(0);
    expect(tracker.stats.quarantined).toBe(1);
    expect(ledger.count('quarantine')).toBe(1);
    expect(ledger.quarantined()[0]).toMatchObject({ clientId: intent.clientId, orderId, source: 'stream', data: { price: '100000000000000000000000000000', commission: '-0.5' } });
    expect(ledger.quarantined()[0]?.reason).toMatch(/out of range/);
    expect(announced).toEqual([`${intent.clientId} stream`]);
    // Its totals were not taken either: REST says where the order stands.
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('FILLED');
    const fills = ledger.fills(intent.clientId);
    expect(fills.map((f) => [f.price.toFixed(), f.qty.toFixed(), f.commission.toFixed(), f.source])).toEqual([['900000000', '0.001', '0.000001', 'rest']]);
    expect(seen()).toBe(1);

    // The same garbage again is not counted twice; the true report is a duplicate of the REST fill.
    router.onExecutionReport(garbage);
    router.onExecutionReport(truth);
    await router.idle();
    expect(ledger.count('quarantine')).toBe(1);
    expect(ledger.fills(intent.clientId)).toHaveLength(1);
    expect(seen()).toBe(1);
  });

  it('a REST trade past the order quantity is quarantined too', async () => {
    const { router, ledger, ex, tracker } = setup();
    const intent = place();
    router.submit(intent);
    await router.idle();
    const orderId = ledger.order(intent.clientId)?.orderId ?? '';
    ex.fill(orderId, '0.001');
    const t = ex.trades.at(-1);
    if (!t) throw new Error('no trade');
    tracker.applyTrade({ ...t, tradeId: `${t.tradeId}9` as typeof t.tradeId, qty: new Decimal('0.002'), quoteQty: new Decimal('1800000') });
    expect(ledger.quarantined().map((q) => q.reason)).toEqual([expect.stringMatching(/past the order's quantity/)]);
    tracker.applyTrade(t);
    expect(ledger.fills(intent.clientId)).toHaveLength(1);
  });

  it('a placement answer executed past its quantity is not taken: quarantined once, the order UNKNOWN, then found by clientId', async () => {
    const { router, ledger, ex, tracker, events, clock } = setup();
    const real = ex.open.newOrder;
    Object.assign(ex.open, { newOrder: async (p: Parameters<typeof real>[0]) => ({ ...(await real(p)), status: 'FILLED' as const, executedQty: new Decimal('5'), executedQuoteQty: new Decimal('4500000000') }) });
    const intent = place();
    router.submit(intent);
    await router.idle();
    expect(ledger.order(intent.clientId)).toMatchObject({ state: 'UNKNOWN', orderId: undefined });
    expect(ledger.order(intent.clientId)?.cumQty.toFixed()).toBe('0');
    expect(events.some((e) => e.type === 'orderUpdate' && e.state === 'FILLED')).toBe(false);
    expect(tracker.stats.quarantinedOrders).toBe(1);
    expect(ledger.quarantined()).toEqual([expect.objectContaining({ clientId: intent.clientId, tradeId: '', source: 'rest', reason: expect.stringMatching(/executedQty=5 exceeds origQty/) as unknown, data: expect.objectContaining({ executedQty: '5', status: 'FILLED' }) as unknown })]);
    // The order is reconciled by clientId; the exchange's own record (NEW, nothing executed) is taken.
    clock.advanceTo(clock.now() + 1000);
    await router.tick();
    await router.idle();
    expect(ledger.order(intent.clientId)?.state).toBe('NEW');
    expect(ledger.order(intent.clientId)?.orderId).toBeDefined();
  });

  it('a snapshot of a live order with a negative quote total or more executed than ordered leaves the order as it was', () => {
    const { ledger, tracker } = setup();
    const o = tracker.create({ clientId: 'k1', strategy: 's1', intentId: 'i', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000'), quantity: new Decimal('0.002'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open' });
    const snap = { orderId: '77', clientId: o.clientId, symbol: 'BTC_IDR', side: 'BUY' as const, type: 'LIMIT' as const, status: 'NEW' as const, price: new Decimal('900000000'), origQty: new Decimal('0.002'), origQuoteQty: new Decimal('0'), executedQty: new Decimal('0'), executedPrice: new Decimal('0'), executedQuoteQty: new Decimal('0'), stopPrice: new Decimal('0'), icebergQty: new Decimal('0'), createTime: 1 };
    tracker.applyOrder(snap, 'rest');
    expect(ledger.order('k1')).toMatchObject({ state: 'NEW', orderId: '77' });
    tracker.applyOrder({ ...snap, status: 'FILLED', executedQty: new Decimal('0.003'), executedQuoteQty: new Decimal('2700000') }, 'poll');
    tracker.applyOrder({ ...snap, status: 'PARTIALLY_FILLED', executedQty: new Decimal('0.001'), executedQuoteQty: new Decimal('-900000') }, 'poll');
    tracker.applyOrder({ ...snap, status: 'FILLED', executedQty: new Decimal('0.003'), executedQuoteQty: new Decimal('2700000') }, 'poll');
    expect(ledger.order('k1')).toMatchObject({ state: 'NEW' });
    expect(ledger.order('k1')?.cumQty.toFixed()).toBe('0');
    expect(tracker.stats.quarantinedOrders).toBe(2);
    expect(ledger.quarantined().map((q) => q.reason)).toEqual([expect.stringMatching(/exceeds origQty/), expect.stringMatching(/cummulativeQuoteQty=-900000 is negative/)]);
    tracker.applyOrder({ ...snap, status: 'PARTIALLY_FILLED', executedQty: new Decimal('0.001'), executedQuoteQty: new Decimal('900000') }, 'poll');
    expect(ledger.order('k1')?.state).toBe('PARTIALLY_FILLED');
  });
});
