/**
 * A live-mode run against the sandbox checks PERCENT_PRICE against the exchange's windowed average
 * price (warmed from REST aggregate trades, not the last trade) and PRICE_RANGE against the
 * exchange's execution rule and reference price, refusing both orders before any request reaches
 * the exchange, while an order inside every limit is sent.
 *
 * Market: before the run, bob sells to carol 1 BTC at 60000 and 0.001 BTC at 65000. The 5-minute
 * average is 60065 / 1.001 = 60004.995...; the last trade is 65000. PERCENT_PRICE (x1.1 / x0.9)
 * therefore allows [54004.5, 66005.5] on the average but would allow [58500, 71500] on the last
 * trade; PRICE_RANGE around the reference 62000 allows bids in [58900, 65100] (x0.95, x1.05) and
 * asks in [55800, 65100] (x0.9, x1.05), so the trades above happened inside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { runLogger } from '../../src/cli/run.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { RunSession } from '../../src/cli/runSession.js';
import { Decimal } from '../../src/core/decimal.js';
import { OpenClient } from '../../src/exchange/open/OpenClient.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { testFilters } from '../../src/sandbox/test-config.js';
import { defineStrategy, type PlaceRequest, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, BOB, countingProxy, waitFor, type CountingProxy } from './pipeline-harness.js';

/** Test credentials of the local sandbox only. */
const CAROL = { id: 'carol', apiKey: 'pipeCarolKey-0123456789abcdef0123456789abcd', secret: 'pipeCarolSecret-0123456789abcdef01234567' } as const;

const seen: BusEvent[] = [];
const ids: { percent?: string; range?: string; inside?: string } = {};

/** The three orders, placed once the BTC_USDT book is synchronised. */
function placeOrders(place: (i: PlaceRequest) => string): void {
  const qty = new Decimal('0.001');
  const limit = (side: 'BUY' | 'SELL', timeInForce: 'GTC' | 'IOC', price: string): PlaceRequest => ({ symbol: 'BTC_USDT', side, orderType: 'LIMIT', timeInForce, price: new Decimal(price), quantity: qty });
  // Inside PERCENT_PRICE on the last trade (65000), above it on the average: refused locally.
  ids.percent = place(limit('BUY', 'GTC', '67000'));
  // Inside PERCENT_PRICE, above the PRICE_RANGE bid limit 65100: the exchange would expire its taker phase.
  ids.range = place(limit('BUY', 'IOC', '66000'));
  // Below PERCENT_PRICE on the last trade (58500) but inside it on the average: the only order sent.
  ids.inside = place(limit('SELL', 'GTC', '58000'));
}

const trader = defineStrategy({
  name: 'trader',
  description: 'test: one order outside PERCENT_PRICE on the average, one outside PRICE_RANGE, one inside both',
  params: z.object({}),
  create: (ctx) => {
    let done = false;
    const onEvent = (e: BusEvent): void => {
      seen.push(e);
      if (done || e.type !== 'timer' || ctx.book('BTC_USDT')?.ready !== true) return;
      done = true;
      placeOrders((i) => ctx.place(i));
    };
    return { onEvent };
  },
});

let sandbox: RunningSandbox;
let proxy: CountingProxy;
let bob: OpenClient;
let carol: OpenClient;

beforeAll(async () => {
  const balances = { BTC: '10', USDT: '1000000' };
  sandbox = await startSandbox(
    resolveSandboxConfig(
      {
        symbols: [
          {
            symbol: 'BTC_USDT',
            type: 1,
            filters: [...(testFilters('0.01', '0.00001', '5', 200) ?? []), { filterType: 'PERCENT_PRICE', multiplierUp: '1.1', multiplierDown: '0.9', avgPriceMins: 5 }],
            lastPrice: '60000',
            referencePrice: '62000',
            priceRange: { bidLimitMultUp: '1.05', bidLimitMultDown: '0.95', askLimitMultUp: '1.05', askLimitMultDown: '0.9' },
          },
        ],
        accounts: [
          { ...ALICE, balances },
          { ...BOB, balances },
          { ...CAROL, balances },
        ],
        market: [],
      },
      'pipeline-live-prices',
      process.cwd(),
    ),
  );
  const client = (a: { apiKey: string; secret: string }): OpenClient => new OpenClient({ baseUrl: sandbox.urls.base_url, marketUrl: sandbox.urls.market_url, depthUrl: sandbox.urls.depth_url, apiKey: a.apiKey, apiSecret: a.secret });
  bob = client(BOB);
  carol = client(CAROL);
  for (const [price, quantity] of [['60000', '1'], ['65000', '0.001']] as const) {
    await bob.newOrder({ symbol: 'BTC_USDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price, quantity });
    await carol.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'IOC', price, quantity });
  }
  proxy = await countingProxy(sandbox.urls.base_url);
}, 30_000);

afterAll(async () => {
  await bob.close();
  await carol.close();
  await proxy.close();
  await sandbox.stop();
});

describe('live risk checks on the exchange’s average and reference prices', () => {
  it('refuses orders outside PERCENT_PRICE (windowed average) and PRICE_RANGE before any request', async () => {
    // No market feed: a quiet book only synchronises on a depth update after its snapshot, so bob
    // keeps adding a small ask far from every price the test uses until the run has started.
    let starting = true;
    const poke = (async () => {
      while (starting) {
        await bob.newOrder({ symbol: 'BTC_USDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price: '65500', quantity: '0.0001' });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const session = await RunSession.start({
      config: parseRunConfig(
        {
          mode: 'live',
          name: 'pipeline-live-prices',
          exchange: { base_url: proxy.url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url },
          strategies: [{ name: 'trader', plugin: 'trader', symbols: ['BTC_USDT'], budget: { USDT: '1000000', BTC: '1' } }],
          storage: { path: ':memory:' },
          run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
          logging: { level: 'warn' },
        },
        'pipeline-live-prices.yaml',
      ),
      endpoints: { ...sandbox.urls, base_url: proxy.url },
      credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
      plugins: new Map<string, StrategyPlugin>([['trader', trader]]),
      log: runLogger('warn'),
      bookReadyTimeoutMs: 10_000,
    }).finally(() => {
      starting = false;
    });
    await poke;
    try {
      await waitFor(() => seen.some((e) => e.type === 'orderUpdate' && e.clientId === ids.inside && e.state === 'NEW'), 10_000);
    } finally {
      await session.stop('test done');
    }

    const rejected = new Map(seen.flatMap((e) => (e.type === 'intentRejected' && e.intent.kind === 'place' ? [[e.intent.clientId, e] as const] : [])));
    const percent = rejected.get(ids.percent ?? '');
    expect(percent?.reason).toBe('PERCENT_PRICE');
    // The exact 5-minute average of the two REST trades (60065 / 1.001), not the last trade.
    expect(percent?.message).toContain(`average price ${new Decimal(60065).div('1.001').toFixed()}`);
    const range = rejected.get(ids.range ?? '');
    expect(range?.reason).toBe('PRICE_RANGE');
    expect(range?.message).toContain('reference price 62000');
    expect(rejected.has(ids.inside ?? '')).toBe(false);

    // Only the order inside every limit reached the exchange.
    expect(proxy.count('POST', '/open/v1/orders')).toBe(1);
    const onExchange = sandbox.engine.allOrders(ALICE.id, 'BTC_USDT').map((o) => o.clientId);
    expect(onExchange).toEqual([ids.inside]);
    // The sandbox's own average agrees with the one the gate used.
    expect(sandbox.engine.averagePrice('BTC_USDT', 5, Date.now())?.toFixed()).toBe(new Decimal(60065).div('1.001').toFixed());
  }, 40_000);
});
