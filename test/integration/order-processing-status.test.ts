/**
 * Status -2 (SYSTEM_PROCESSING) over loopback: the client's parser and the order tracker against
 * the sandbox's processing fault. An order whose placement answer was lost is looked up by
 * clientId (as reconciliation does) while the exchange still says SYSTEM_PROCESSING: the order is
 * known to exist, live and not final (never taken as failed), and a later look sees how it ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, UnknownOutcomeError } from '../../src/core/index.js';
import { OpenClient } from '../../src/exchange/index.js';
import { newOrderOf, OrderTracker, type TrackerEvent } from '../../src/execution/OrderTracker.js';
import { placeIntents } from '../../src/execution/testIntents.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { Ledger } from '../../src/store/Ledger.js';

const A = TEST_ACCOUNTS.alice;
const NO_RETRY = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
let sbx: RunningSandbox;
let alice: OpenClient;

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  alice = new OpenClient({ baseUrl: sbx.urls.base_url, marketUrl: sbx.urls.market_url, depthUrl: sbx.urls.depth_url, apiKey: A.apiKey, apiSecret: A.secret, retry: NO_RETRY });
});

afterAll(async () => {
  await alice.close();
  await sbx.stop();
});

describe('order status SYSTEM_PROCESSING (-2)', () => {
  it('is parsed, keeps the order live (not failed), and a later look applies its real end', async () => {
    const ledger = Ledger.open(':memory:');
    const events: TrackerEvent[] = [];
    const tracker = new OrderTracker({ ledger, clock: { now: () => Date.now() }, emit: (e) => events.push(e) });
    const intent = placeIntents('s1', () => ({ intentId: 'i1', clientId: 'processing-1' }))();
    const clientId = intent.clientId;
    tracker.create(newOrderOf(intent, 'open'));
    tracker.markSent(clientId, 'open');
    // The exchange places the order but the answer is lost.
    sbx.faults.failOrders('after', { status: 503, scope: 'open' });
    await expect(alice.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.001', price: '900000000', clientId })).rejects.toBeInstanceOf(UnknownOutcomeError);
    tracker.markUnknown(clientId, 'HTTP 503');
    expect(tracker.get(clientId)?.state).toBe('UNKNOWN');

    // Looked up by clientId while the exchange still works on it: two answers say -2.
    sbx.faults.reportProcessing({ count: 2 });
    for (let look = 0; look < 2; look++) {
      const listed = (await alice.allOrders({ symbol: 'BTC_IDR', type: 'ALL' })).find((x) => x.clientId === clientId);
      expect(listed?.status).toBe('SYSTEM_PROCESSING');
      tracker.applyOrder(listed!, 'reconcile');
      const rec = tracker.get(clientId);
      // It exists on the exchange (orderId known), is live, and nothing says it failed.
      expect(rec?.state).toBe('NEW');
      expect(rec?.orderId).toBe(listed?.orderId);
      expect(rec?.reason).not.toMatch(/REJECTED|NOT_PLACED/);
    }
    expect(events.some((e) => e.type === 'orderUpdate' && (e.state === 'REJECTED' || e.state === 'CANCELED'))).toBe(false);

    // The fault is spent: the next look sees the order as it is; after it fills, that is final.
    const orderId = tracker.get(clientId)?.orderId ?? '';
    expect((await alice.orderDetail({ orderId, clientId })).status).toBe('NEW');
    sbx.state.exec((e, now) => e.placeOrder({ accountId: TEST_ACCOUNTS.bob.id, symbol: 'BTC_IDR', side: 'SELL', type: 'LIMIT', timeInForce: 'IOC', price: new Decimal('900000000'), quantity: new Decimal('0.001') }, now));
    sbx.faults.reportProcessing({ orderId, count: 1 });
    // Still processing as far as the answer goes: the tracker waits rather than concluding.
    const busy = await alice.orderDetail({ orderId, clientId });
    expect(busy.status).toBe('SYSTEM_PROCESSING');
    tracker.applyOrder(busy, 'poll');
    expect(tracker.get(clientId)?.state).not.toBe('FILLED');
    const done = await alice.orderDetail({ orderId, clientId });
    expect(done.status).toBe('FILLED');
    tracker.applyOrder(done, 'poll');
    expect(tracker.get(clientId)?.state).toBe('FILLED');
    expect(tracker.get(clientId)?.cumQty.toFixed()).toBe('0.001');
  });
});
