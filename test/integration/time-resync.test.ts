/**
 * A local clock that steps after the offset was measured makes every SIGNED request fall outside
 * the timing window (the spec: such a request is rejected, not processed). The client measures
 * the offset again on that refusal and sends the request once more, so a new order goes through
 * once; repeated refusals cost at most one time request per interval, never a loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/index.js';
import { ExchangeError } from '../../src/core/index.js';
import { OpenClient } from '../../src/exchange/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { countingProxy, type CountingProxy } from './pipeline-harness.js';

let sbx: RunningSandbox;
let proxy: CountingProxy;
/** The bot's wall clock: real time plus a step the test sets. */
let step = 0;
const stepped: Clock = { now: () => Date.now() + step };

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  proxy = await countingProxy(sbx.urls.base_url);
});

afterAll(async () => {
  await proxy.close();
  await sbx.stop();
});

// Wide recvWindow and timeout: on a loaded machine a request may take seconds, and only the
// 30 s clock step (or the 1 ms window set per call) may be what refuses it, never the load.
function client(resyncMinIntervalMs?: number): OpenClient {
  const a = TEST_ACCOUNTS.alice;
  return new OpenClient({ baseUrl: proxy.url, marketUrl: sbx.urls.market_url, depthUrl: sbx.urls.depth_url, apiKey: a.apiKey, apiSecret: a.secret, clock: stepped, recvWindow: 20_000, timeoutMs: 20_000, ...(resyncMinIntervalMs !== undefined ? { resyncMinIntervalMs } : {}) });
}

describe('timestamp refusal after a clock step', () => {
  it('re-measures the offset and places the order once', async () => {
    const c = client();
    try {
      step = 0;
      await c.syncTime();
      // The machine's clock jumps 30 s ahead (a VM resumed, NTP stepped it).
      step = 30_000;
      const timeBefore = proxy.count('GET', '/open/v1/common/time');
      const o = await c.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.001', price: '50000', clientId: 'resync-1' });
      expect(o.clientId).toBe('resync-1');
      expect(proxy.count('GET', '/open/v1/common/time')).toBe(timeBefore + 1);
      expect(proxy.count('POST', '/open/v1/orders')).toBe(2);
      expect(sbx.engine.allOrders(TEST_ACCOUNTS.alice.id, 'BTC_USDT').filter((x) => x.clientId === 'resync-1')).toHaveLength(1);
      expect(Math.abs(c.timeOffsetMs + 30_000)).toBeLessThan(1000);
      // The next orders go straight through on the new offset.
      await c.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.001', price: '50000', clientId: 'resync-2' });
      expect(proxy.count('POST', '/open/v1/orders')).toBe(3);
    } finally {
      await c.close();
    }
  });

  it('a server that refuses every timestamp: one retry per call and at most one time request per interval', async () => {
    // A least interval far longer than the test, so a slow machine cannot open a second one; the
    // client has never measured, so the first refusal may measure at once.
    const c = client(60_000);
    try {
      step = 0;
      const timeBefore = proxy.count('GET', '/open/v1/common/time');
      const accountBefore = proxy.count('GET', '/open/v1/account/spot');
      // recvWindow 1 ms with a 250 ms delay on every account read: the timestamp is always too
      // old. (With 5 ms, an offset measured 4 ms ahead on a loaded machine let a read through.)
      sbx.faults.delay(250, { pathPrefix: '/open/v1/account/spot' });
      const results = await Promise.all([c.account({ recvWindow: 1 }).catch((e: unknown) => e), c.account({ recvWindow: 1 }).catch((e: unknown) => e)]);
      for (const r of results) {
        expect(r).toBeInstanceOf(ExchangeError);
        expect((r as ExchangeError).exchangeCode).toBe(-1021);
      }
      // Each refused twice: the first refusal re-measured the offset (once for both), then no more.
      expect(proxy.count('GET', '/open/v1/account/spot') - accountBefore).toBe(4);
      const third = await c.account({ recvWindow: 1 }).catch((e: unknown) => e);
      expect(third).toBeInstanceOf(ExchangeError);
      expect(proxy.count('GET', '/open/v1/account/spot') - accountBefore).toBe(5);
      expect(proxy.count('GET', '/open/v1/common/time') - timeBefore).toBe(1);
    } finally {
      sbx.faults.clear();
      await c.close();
    }
  });
});
