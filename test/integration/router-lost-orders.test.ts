/**
 * Orders the exchange lost, over loopback: the router places orders on one sandbox, then the
 * exchange "restarts" with its state gone (the proxy in front of it is pointed at a fresh sandbox).
 * Their cancels and lookups answer "Order does not exist" (-2013): the ORDER_LOST rule closes them
 * EXPIRED with a journal row, and a shutdown's cancel-all settles with none left (no exit 3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { OpenClient } from '../../src/exchange/open/OpenClient.js';
import { OrderRouter } from '../../src/execution/OrderRouter.js';
import { OrderTracker } from '../../src/execution/OrderTracker.js';
import { silentLogger } from '../../src/execution/log.js';
import { openPort } from '../../src/execution/openPort.js';
import { placeIntents } from '../../src/execution/testIntents.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Ledger } from '../../src/store/Ledger.js';
import { ALICE, countingProxy, sandboxDoc, waitFor, type CountingProxy } from './pipeline-harness.js';

let first: RunningSandbox;
let second: RunningSandbox;
let proxy: CountingProxy;

beforeAll(async () => {
  first = await startSandbox(resolveSandboxConfig(sandboxDoc(), 'lost-a', process.cwd()), { quiet: true });
  second = await startSandbox(resolveSandboxConfig(sandboxDoc(), 'lost-b', process.cwd()), { quiet: true });
  proxy = await countingProxy(first.urls.base_url);
});

afterAll(async () => {
  await proxy.close();
  await first.stop();
  await second.stop();
});

const intent = placeIntents('t', (n) => ({ intentId: `li-${n}`, clientId: `lost-${Date.now().toString(36)}-${n}` }));

describe('orders the exchange lost', () => {
  it('are closed EXPIRED by the ORDER_LOST rule, journalled, and a shutdown leaves none live', async () => {
    const ledger = Ledger.open(':memory:');
    const tracker = new OrderTracker({ ledger, clock: systemClock, emit: () => undefined });
    const open = new OpenClient({ baseUrl: proxy.url, marketUrl: first.urls.market_url, depthUrl: first.urls.depth_url, apiKey: ALICE.apiKey, apiSecret: ALICE.secret, recvWindow: 1000, timeoutMs: 3000 });
    const router = new OrderRouter({ open: openPort(open), tracker, ledger, clock: systemClock, log: silentLogger, symbols: ['BTC_IDR'], settleMs: 1500, pollMs: 100, cancelRetryMs: 300, lostOrders: { strikes: 3, minSpanMs: 1000 } });
    router.start();
    try {
      const a = intent();
      const b = intent();
      router.submit(a);
      router.submit(b);
      await router.idle();
      expect([ledger.order(a.clientId)?.state, ledger.order(b.clientId)?.state]).toEqual(['NEW', 'NEW']);
      proxy.retarget(second.urls.base_url);
      // One order a strategy cancels; the other the shutdown's cancel-all meets.
      router.submit({ kind: 'cancel', strategy: 't', intentId: 'x', symbol: 'BTC_IDR', clientId: a.clientId });
      expect(await waitFor(() => ledger.order(a.clientId)?.state === 'EXPIRED', 20_000)).toBe(true);
      expect(ledger.order(a.clientId)?.reason).toMatch(/^ORDER_LOST/);
      const left = await router.cancelAllAndWait(20_000);
      expect(left).toEqual([]);
      expect(ledger.order(b.clientId)?.state).toBe('EXPIRED');
      expect(ledger.countJournal('orderLost')).toBe(2);
      expect(router.stats.lost).toBe(2);
    } finally {
      await router.stop();
      await open.close();
      ledger.close();
    }
  }, 60_000);

  it('a shutdown met by the exchange saying "does not exist" waits for the rule (default 3 answers over 5 s) instead of leaving the order for exit 3', async () => {
    proxy.retarget(first.urls.base_url);
    const ledger = Ledger.open(':memory:');
    const tracker = new OrderTracker({ ledger, clock: systemClock, emit: () => undefined });
    const open = new OpenClient({ baseUrl: proxy.url, marketUrl: first.urls.market_url, depthUrl: first.urls.depth_url, apiKey: ALICE.apiKey, apiSecret: ALICE.secret, recvWindow: 1000, timeoutMs: 3000 });
    const router = new OrderRouter({ open: openPort(open), tracker, ledger, clock: systemClock, log: silentLogger, symbols: ['BTC_IDR'], settleMs: 1500, pollMs: 100 });
    router.start();
    try {
      const a = intent();
      router.submit(a);
      await router.idle();
      expect(ledger.order(a.clientId)?.state).toBe('NEW');
      proxy.retarget(second.urls.base_url);
      // The shortest shutdown wait kancil run uses; the rule needs more than 5 s.
      expect(await router.cancelAllAndWait(3000)).toEqual([]);
      expect(ledger.order(a.clientId)?.reason).toMatch(/^ORDER_LOST/);
    } finally {
      await router.stop();
      await open.close();
      ledger.close();
    }
  }, 60_000);
});
