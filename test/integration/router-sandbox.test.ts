/**
 * The order router against the sandbox exchange over loopback, with the sandbox's fault
 * injection: a 5XX after (and before) the engine accepted an order never produces a duplicate,
 * and open-API maintenance sends eligible orders to the legacy /v1 interface and back.
 * Requests are counted at the network, in front of the sandbox's main host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { Decimal } from '../../src/core/decimal.js';
import { LegacyClient } from '../../src/exchange/legacy/LegacyClient.js';
import { OpenClient } from '../../src/exchange/open/OpenClient.js';
import { OrderRouter } from '../../src/execution/OrderRouter.js';
import { OrderTracker } from '../../src/execution/OrderTracker.js';
import { legacyPort } from '../../src/execution/legacyAdapter.js';
import { silentLogger } from '../../src/execution/log.js';
import { openPort } from '../../src/execution/openPort.js';
import { placeIntents } from '../../src/execution/testIntents.js';
import { TimeNonceStore } from '../../src/exchange/legacy/NonceStore.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Ledger } from '../../src/store/Ledger.js';
import { ALICE, BOB, countingProxy, sandboxDoc, waitFor, type CountingProxy } from './pipeline-harness.js';

let sandbox: RunningSandbox;
let proxy: CountingProxy;
let legacyProxy: CountingProxy;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc(), 'router-sandbox', process.cwd()), { quiet: true });
  proxy = await countingProxy(sandbox.urls.base_url);
  legacyProxy = await countingProxy(sandbox.urls.legacy_base_url);
});

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await proxy.close();
  await legacyProxy.close();
  await sandbox.stop();
});

// The clock in the clientId keeps ids unique across runs against one sandbox.
const intent = placeIntents('t', (n) => ({ intentId: `ri-${n}`, clientId: `rt-${Date.now().toString(36)}-${n}` }));

function makeRouter(timeoutMs = 3000, cancelRetryMs?: number) {
  const ledger = Ledger.open(':memory:');
  const tracker = new OrderTracker({ ledger, clock: systemClock, emit: () => undefined });
  const open = new OpenClient({ baseUrl: proxy.url, marketUrl: sandbox.urls.market_url, depthUrl: sandbox.urls.depth_url, apiKey: ALICE.apiKey, apiSecret: ALICE.secret, recvWindow: 1000, timeoutMs });
  const legacy = new LegacyClient({ baseUrl: legacyProxy.url, apiKey: ALICE.apiKey, apiSecret: ALICE.secret, timeoutMs: 3000, nonceStore: new TimeNonceStore(systemClock) });
  const router = new OrderRouter({
    open: openPort(open),
    legacy: legacyPort(legacy),
    tracker,
    ledger,
    clock: systemClock,
    log: silentLogger,
    symbols: ['BTC_IDR'],
    settleMs: 1500,
    maxRetryAgeMs: 10_000,
    pollMs: 100,
    breaker: { failureThreshold: 3, openMs: 300 },
    ...(cancelRetryMs !== undefined ? { cancelRetryMs } : {}),
  });
  router.start();
  closers.push(async () => {
    await router.stop();
    await open.close();
    await legacy.close();
    ledger.close();
  });
  return { router, ledger };
}

const exchangeOrders = (clientId: string) => sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').filter((o) => o.clientId === clientId);

describe('router against the sandbox', () => {
  it('places and cancels over the open API, every order carrying our clientId', async () => {
    const { router, ledger } = makeRouter();
    const i = intent();
    router.submit(i);
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('NEW');
    expect(exchangeOrders(i.clientId)).toHaveLength(1);
    router.submit({ kind: 'cancel', strategy: 't', intentId: 'c', symbol: 'BTC_IDR', clientId: i.clientId });
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('CANCELED');
    expect(exchangeOrders(i.clientId)[0]?.status).toBe('CANCELED');
  });

  it('a 5XX after the exchange accepted the order: reconciled by clientId, never sent twice', async () => {
    const { router, ledger } = makeRouter();
    const before = proxy.count('POST', '/open/v1/orders');
    sandbox.faults.failOrders('after', { status: 502, scope: 'open' });
    const i = intent();
    router.submit(i);
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('UNKNOWN');
    expect(await waitFor(() => ledger.order(i.clientId)?.state === 'NEW', 5000)).toBe(true);
    expect(exchangeOrders(i.clientId)).toHaveLength(1);
    expect(proxy.count('POST', '/open/v1/orders') - before).toBe(1);
    expect(ledger.order(i.clientId)?.orderId).toBe(exchangeOrders(i.clientId)[0]?.orderId);
  });

  it('a 5XX before the engine saw it: proven absent after the settle time, then sent once more', async () => {
    const { router, ledger } = makeRouter();
    const before = proxy.count('POST', '/open/v1/orders');
    sandbox.faults.failOrders('before', { status: 500, scope: 'open' });
    const i = intent();
    router.submit(i);
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('UNKNOWN');
    expect(await waitFor(() => ledger.order(i.clientId)?.state === 'NEW', 6000)).toBe(true);
    expect(exchangeOrders(i.clientId)).toHaveLength(1);
    expect(proxy.count('POST', '/open/v1/orders') - before).toBe(2);
  });

  it('a placement that times out is unknown, reconciled by clientId, and sent once more only when proven absent', async () => {
    const { router, ledger } = makeRouter(400);
    const before = proxy.count('POST', '/open/v1/orders');
    sandbox.faults.blackhole({ scope: 'open', pathPrefix: '/open/v1/orders', count: 1 });
    const i = intent();
    router.submit(i);
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('UNKNOWN');
    expect(ledger.order(i.clientId)?.reason).toMatch(/timeout/);
    expect(await waitFor(() => ledger.order(i.clientId)?.state === 'NEW', 6000)).toBe(true);
    expect(exchangeOrders(i.clientId)).toHaveLength(1);
    expect(proxy.count('POST', '/open/v1/orders') - before).toBe(2);
  });

  it('open API in maintenance: eligible orders go to legacy /v1, the unknown one is not resent until reconciled', async () => {
    const { router, ledger } = makeRouter();
    sandbox.faults.setMaintenance('open');
    const first = intent();
    try {
      router.submit(first);
      await router.idle();
      expect(ledger.order(first.clientId)?.state).toBe('UNKNOWN');
      expect(router.breaker.state).toBe('open');

      const second = intent({ price: new Decimal('900000001') });
      const notEligible = intent({ symbol: 'BTC_USDT', price: new Decimal('50000') });
      router.submit(second);
      router.submit(notEligible);
      await router.idle();
      const viaLegacy = ledger.order(second.clientId);
      expect(viaLegacy?.venue).toBe('legacy');
      expect(viaLegacy?.state).toBe('NEW');
      const onExchange = sandbox.engine.openOrders(ALICE.id, 'BTC_IDR').filter((o) => o.orderId === viaLegacy?.orderId);
      expect(onExchange).toHaveLength(1);
      expect(onExchange[0]?.price.eq('900000001')).toBe(true);
      expect(ledger.order(notEligible.clientId)?.state).toBe('REJECTED');

      // Cancelled through the interface that can see it while the open API is down.
      router.submit({ kind: 'cancel', strategy: 't', intentId: 'c2', symbol: 'BTC_IDR', clientId: second.clientId });
      await router.idle();
      expect(ledger.order(second.clientId)?.state).toBe('CANCELED');
      expect(exchangeOrders(first.clientId)).toHaveLength(0);
    } finally {
      sandbox.faults.setMaintenance(undefined);
    }
    // The half-open probe closes the breaker; the first order is resolved (absent: sent once more).
    expect(await waitFor(() => router.breaker.state === 'closed', 3000)).toBe(true);
    expect(await waitFor(() => ledger.order(first.clientId)?.state === 'NEW', 6000)).toBe(true);
    expect(exchangeOrders(first.clientId)).toHaveLength(1);
  });

  it('open API down and the legacy cancel applied but answered 5XX: the retry is refused as not open and the refresh settles it (no user stream here)', async () => {
    const { router, ledger } = makeRouter(3000, 150);
    const i = intent();
    router.submit(i);
    await router.idle();
    expect(ledger.order(i.clientId)?.state).toBe('NEW');
    // Legacy creates and cancels share POST /v1/order; only cancels go out in this test.
    const before = legacyProxy.count('POST', '/v1/order');
    const legacyCancels = (): number => legacyProxy.count('POST', '/v1/order') - before;
    sandbox.faults.setMaintenance('open');
    sandbox.faults.failCancels('apply-then-5xx', { scope: 'legacy', status: 502 });
    try {
      router.submit({ kind: 'cancel', strategy: 't', intentId: 'lc', symbol: 'BTC_IDR', clientId: i.clientId });
      // The open API cancel meets maintenance (the breaker opens); the retries go to the legacy
      // interface, whose first cancel is applied but answered 5XX.
      expect(await waitFor(() => legacyCancels() >= 1, 5000)).toBe(true);
      // The proxy counts a request as it passes; the sandbox applies it a moment later.
      expect(await waitFor(() => exchangeOrders(i.clientId)[0]?.status === 'CANCELED', 3000)).toBe(true);
      expect(await waitFor(() => ledger.order(i.clientId)?.state === 'CANCELED', 3000)).toBe(true);
      // Settled: no legacy cancel goes out for it any more.
      const settled = legacyCancels();
      await new Promise((r) => setTimeout(r, 600));
      expect(legacyCancels()).toBe(settled);
    } finally {
      sandbox.faults.setMaintenance(undefined);
      sandbox.faults.clear();
    }
  });

  it('a legacy order answered 503 after the exchange accepted and filled it: linked to our order once the open API is back, its fills recorded, and no lookups after', async () => {
    const { router, ledger } = makeRouter();
    const price = new Decimal('900000003');
    // Bob's resting sell fills our legacy buy on arrival, so the legacy active orders never list it.
    sandbox.state.exec((e, now) => e.placeOrder({ accountId: BOB.id, symbol: 'BTC_IDR', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price, quantity: new Decimal('0.001') }, now));
    sandbox.faults.setMaintenance('open');
    router.breaker.recordFailure('maintenance');
    sandbox.faults.failOrders('after', { status: 503, scope: 'legacy' });
    const i = intent({ price });
    try {
      router.submit(i);
      await router.idle();
      expect(ledger.order(i.clientId)?.venue).toBe('legacy');
      expect(ledger.order(i.clientId)?.state).toBe('UNKNOWN');
      await new Promise((r) => setTimeout(r, 400));
    } finally {
      sandbox.faults.setMaintenance(undefined);
    }
    const onExchange = sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').filter((o) => o.price.eq(price));
    expect(onExchange.map((o) => o.status)).toEqual(['FILLED']);
    expect(await waitFor(() => ledger.order(i.clientId)?.state === 'FILLED' && ledger.fills(i.clientId).length > 0, 6000)).toBe(true);
    const o = ledger.order(i.clientId);
    expect(o?.orderId).toBe(onExchange[0]?.orderId);
    expect(o?.cumQty.toFixed()).toBe('0.001');
    expect(ledger.fills(i.clientId).reduce((a, f) => a.plus(f.qty), new Decimal(0)).toFixed()).toBe('0.001');
    expect(ledger.transitions(i.clientId).some((t) => t.source === 'legacy-link')).toBe(true);
    // Settled: the router no longer looks it up.
    const lookups = proxy.count('GET', '/open/v1/orders');
    await new Promise((r) => setTimeout(r, 600));
    expect(proxy.count('GET', '/open/v1/orders')).toBe(lookups);
  });

  it('a 418 ban: the intent is rejected with a RATE_LIMITED reason, the next ones are refused locally until Retry-After, then trading resumes', async () => {
    const { router, ledger } = makeRouter();
    const before = proxy.count('POST', '/open/v1/orders');
    sandbox.faults.forceRateLimit(418, 1);
    const first = intent();
    router.submit(first);
    await router.idle();
    expect(ledger.order(first.clientId)?.state).toBe('REJECTED');
    expect(ledger.order(first.clientId)?.reason).toMatch(/^RATE_LIMITED: retry after \d+ ms/);
    const second = intent();
    router.submit(second);
    await router.idle();
    expect(ledger.order(second.clientId)?.reason).toMatch(/^RATE_LIMITED/);
    // Only the first request reached the exchange; a refusal is not a server failure.
    expect(proxy.count('POST', '/open/v1/orders') - before).toBe(1);
    expect(router.breaker.state).toBe('closed');
    expect(exchangeOrders(first.clientId)).toHaveLength(0);
    // Once the ban has passed (Retry-After 1 s), orders go out again.
    await new Promise((r) => setTimeout(r, 1100));
    const third = intent();
    router.submit(third);
    await router.idle();
    expect(ledger.order(third.clientId)?.state).toBe('NEW');
    expect(exchangeOrders(third.clientId)).toHaveLength(1);
  });
});
