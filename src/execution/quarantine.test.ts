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
});
