/**
 * MAX_NUM_ORDERS as the exchange counts it: per account and symbol, every open order, including
 * ones this bot did not place (a trader's manual orders, another tool on the same account). Two
 * strategies on one symbol of an account that already has manual orders resting (RunSession
 * against the sandbox, which enforces the filter): the order that would exceed the limit must be
 * refused by the risk gate before any request, not sent and refused by the exchange.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import { Decimal } from '../../src/core/decimal.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { testFilters } from '../../src/sandbox/test-config.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, logSink, sandboxDoc, waitFor } from './pipeline-harness.js';

/** MAX_NUM_ORDERS of BTC_IDR in this test. */
const LIMIT = 4;
const seen = new Map<string, BusEvent[]>();

/** Rests one bid far below the market on its first timer. */
const oneBid = (price: string) =>
  defineStrategy({
    name: 'one-bid',
    description: 'test: one resting bid',
    params: z.object({}),
    create(ctx) {
      let done = false;
      return {
        onEvent(e) {
          const l = seen.get(ctx.name) ?? [];
          l.push(e);
          seen.set(ctx.name, l);
          if (done || e.type !== 'timer' || !ctx.book('BTC_IDR')?.ready) return;
          done = true;
          ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal(price), quantity: new Decimal('0.001') });
        },
      };
    },
  });

let sandbox: RunningSandbox;
const logText: string[] = [];

beforeAll(async () => {
  const doc = sandboxDoc({ synthetic: true });
  const btcIdr = doc.symbols[0];
  if (btcIdr === undefined) throw new Error('sandboxDoc has no BTC_IDR');
  btcIdr.filters = testFilters('1', '0.00001', '20000', LIMIT);
  sandbox = await startSandbox(resolveSandboxConfig(doc, 'pipeline-order-limits', process.cwd()));
});

afterAll(async () => {
  await sandbox.stop();
});

describe('MAX_NUM_ORDERS across strategies and manual orders', () => {
  it('counts the account\'s orders the bot did not place, and refuses the one the exchange would', async () => {
    // The trader's own resting orders, placed before the bot starts.
    for (const [i, price] of ['800000000', '800000001'].entries()) {
      const r = sandbox.engine.placeOrder({ accountId: ALICE.id, symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price, quantity: '0.001', clientId: `manual-${i}` }, Date.now());
      expect(r.ok).toBe(true);
    }
    const config = parseRunConfig(
      {
        mode: 'live',
        name: 'order-limits',
        exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url },
        strategies: [
          { name: 'a', plugin: 'a', symbols: ['BTC_IDR'], budget: { IDR: '10000000' } },
          { name: 'b', plugin: 'b', symbols: ['BTC_IDR'], budget: { IDR: '10000000' } },
          { name: 'c', plugin: 'c', symbols: ['BTC_IDR'], budget: { IDR: '10000000' } },
        ],
        storage: { path: ':memory:' },
        run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
        logging: { level: 'warn' },
      },
      'order-limits.yaml',
    );
    const session = await RunSession.start({
      config,
      endpoints: sandbox.urls,
      credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
      plugins: new Map<string, StrategyPlugin>([
        ['a', oneBid('900000000')],
        ['b', oneBid('900000001')],
        ['c', oneBid('900000002')],
      ]),
      log: runLogger('warn', logSink(logText)),
      bookReadyTimeoutMs: 5000,
    });
    const settled = (name: string) => (seen.get(name) ?? []).some((e) => (e.type === 'orderUpdate' && e.state !== 'PENDING') || e.type === 'intentRejected');
    try {
      expect(await waitFor(() => settled('a') && settled('b') && settled('c'), 10_000), logText.join('')).toBe(true);
    } finally {
      await session.stop('test done');
    }
    const outcome = (name: string) =>
      (seen.get(name) ?? []).flatMap((e) => (e.type === 'intentRejected' ? [`refused ${e.reason}`] : e.type === 'orderUpdate' && e.state !== 'PENDING' ? [e.state] : []))[0];
    const outcomes = ['a', 'b', 'c'].map(outcome).sort();
    // Two manual orders + two of the bot's = the limit; the third strategy's order is refused
    // before any request (the exchange would have refused it: REJECTED).
    expect(outcomes).toEqual(['NEW', 'NEW', 'refused MAX_NUM_ORDERS']);
    expect(sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').filter((o) => o.clientId.startsWith('manual-')).every((o) => o.status === 'NEW')).toBe(true);
  }, 30_000);
});
