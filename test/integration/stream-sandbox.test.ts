/**
 * The data side against the sandbox exchange and its fault injection: sequence gap, dropped
 * connections, short connection lifetime (the 24-hour limit, shortened), listen key expiry and
 * listen token expiry with renewal. After each fault the data a strategy sees must be complete
 * and correct: the local book equals the exchange's own REST depth, and every order event
 * arrives.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookStatusEvent, UserDataEvent } from '../../src/core/marketEvents.js';
import { LiveOrderBook } from '../../src/exchange/book/live-book.js';
import { OpenClient } from '../../src/exchange/open/OpenClient.js';
import { ListenKeyUserStream } from '../../src/exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../../src/exchange/stream/listen-token-stream.js';
import { StreamClient } from '../../src/exchange/stream/stream-client.js';
import type { UserStreamStatus } from '../../src/exchange/stream/user-stream-base.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { waitFor } from '../support-stream/fake-stream-server.js';

const silent = pino({ level: 'silent' });
const backoff = { initialMs: 20, maxMs: 100 };

describe('data side against the sandbox exchange', () => {
  let sb: RunningSandbox;
  let alice: OpenClient;
  let bob: OpenClient;
  const closers: (() => Promise<void> | void)[] = [];

  async function start(lifetimeMs?: number): Promise<void> {
    sb = await startSandbox(
      testSandboxConfig((doc) => {
        if (lifetimeMs !== undefined) (doc as { websocket?: unknown }).websocket = { pingIntervalMs: 180_000, pongTimeoutMs: 600_000, connectionLifetimeMs: lifetimeMs };
      }),
      { quiet: true },
    );
    const hosts = { baseUrl: sb.urls.base_url, marketUrl: sb.urls.market_url, depthUrl: sb.urls.depth_url };
    alice = new OpenClient({ ...hosts, apiKey: TEST_ACCOUNTS.alice.apiKey, apiSecret: TEST_ACCOUNTS.alice.secret });
    bob = new OpenClient({ ...hosts, apiKey: TEST_ACCOUNTS.bob.apiKey, apiSecret: TEST_ACCOUNTS.bob.secret });
  }

  beforeEach(() => {
    closers.length = 0;
  });
  afterEach(async () => {
    for (const c of closers.reverse()) await c();
    await sb.stop();
  });

  const place = (who: OpenClient, side: 'BUY' | 'SELL', price: string, qty = '0.001', symbol = 'BTC_IDR'): Promise<unknown> =>
    who.newOrder({ symbol, side, type: 'LIMIT', timeInForce: 'GTC', quantity: qty, price });

  /** The local book equals the exchange's REST depth (top 20 levels, exact). */
  async function expectBookMatchesExchange(book: LiveOrderBook): Promise<void> {
    const fmt = (l: readonly { price: { toFixed(): string }; qty: { toFixed(): string } }[]): string[] => l.slice(0, 20).map((x) => `${x.price.toFixed()}@${x.qty.toFixed()}`);
    await waitFor(() => book.ready, 10_000, 'book ready');
    let rest = await alice.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 100 });
    // The REST answer may be ahead of the stream by one 100 ms batch: wait until the book catches up.
    await waitFor(() => book.ready && book.lastUpdateId >= rest.lastUpdateId, 10_000, 'book catches up');
    rest = await alice.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 100 });
    const local = book.top(20);
    expect(fmt(local.bids)).toEqual(fmt(rest.bids));
    expect(fmt(local.asks)).toEqual(fmt(rest.asks));
  }

  function marketSide(): { client: StreamClient; book: LiveOrderBook; statuses: BookStatusEvent[] } {
    const client = new StreamClient({ url: sb.urls.stream_url, streams: ['btcidr@depth@100ms', 'btcidr@trade'], logger: silent, backoff, symbolOf: (s) => s });
    const book = new LiveOrderBook({ symbol: 'BTCIDR', restSymbol: 'BTC_IDR', symbolType: 1, snapshots: alice, logger: silent, staleAfterMs: 0 });
    const statuses: BookStatusEvent[] = [];
    book.status$.subscribe((s) => statuses.push(s));
    book.attach(client);
    client.start();
    closers.push(() => client.close(), () => book.close());
    return { client, book, statuses };
  }

  it('book: synchronises, survives a sequence gap and a dropped connection, and always equals the exchange', async () => {
    await start();
    const { client, book, statuses } = marketSide();
    await waitFor(() => client.connected, 10_000, 'connect');
    await place(alice, 'BUY', '1000000000');
    await place(bob, 'SELL', '1000100000');
    await expectBookMatchesExchange(book);
    expect(book.bestBid()?.price.toFixed()).toBe('1000000000');

    sb.faults.skipDepthUpdates('BTC_IDR', 1);
    // Separate 100 ms batches: the fault drops one, the next reveals the gap.
    for (const p of ['999990000', '999980000', '999970000']) {
      await place(alice, 'BUY', p);
      await new Promise((r) => setTimeout(r, 150));
    }
    await waitFor(() => statuses.some((s) => !s.ready && /gap/.test(s.reason)), 10_000, 'gap detected');
    await place(bob, 'SELL', '1000200000');
    await expectBookMatchesExchange(book);

    sb.faults.dropConnections();
    await waitFor(() => statuses.some((s) => !s.ready && /connection down/.test(s.reason)), 10_000, 'drop detected');
    await waitFor(() => client.connected, 10_000, 'reconnected');
    await place(bob, 'SELL', '1000300000');
    await expectBookMatchesExchange(book);
    expect(client.stats.reconnects).toBeGreaterThanOrEqual(1);
  });

  it('stream connection: rotates before a short server lifetime with no trade lost or duplicated', async () => {
    await start(1200);
    const client = new StreamClient({ url: sb.urls.stream_url, streams: ['btcidr@trade'], logger: silent, backoff, maxConnectionAgeMs: 300, rotationGraceMs: 100 });
    const trades: bigint[] = [];
    client.events$.subscribe((e) => {
      if (e.type === 'trade') trades.push(BigInt(e.tradeId));
    });
    client.start();
    closers.push(() => client.close());
    await waitFor(() => client.connected, 10_000, 'connect');
    const started = Date.now();
    let placed = 0;
    // Within the sandbox's order-rate limit (100 per 10 s per account) and MAX_NUM_ORDERS.
    while (Date.now() - started < 1500 && placed < 40) {
      await place(alice, 'BUY', '1000000000');
      await bob.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '0.001' });
      placed++;
      await new Promise((r) => setTimeout(r, 25));
    }
    await waitFor(() => trades.length >= placed, 10_000, 'all trades');
    expect(trades.length).toBe(placed);
    for (let i = 1; i < trades.length; i++) expect(trades[i]).toBeGreaterThan(trades[i - 1] as bigint);
    expect(new Set(trades).size).toBe(trades.length);
    expect(client.stats.rotations).toBeGreaterThanOrEqual(2);
  });

  it('listen key (type 3): expiry is detected, the key re-created, reconciliation requested, events keep coming', async () => {
    await start();
    const events: UserDataEvent[] = [];
    const statuses: UserStreamStatus[] = [];
    const us = new ListenKeyUserStream({ url: sb.urls.stream_url_new, symbolType: 3, api: alice, logger: silent, backoff, reorderWindowMs: 20 });
    us.events$.subscribe((e) => events.push(e));
    us.status$.subscribe((s) => statuses.push(s));
    us.start();
    closers.push(() => us.close());
    await waitFor(() => us.connected, 10_000, 'connect');
    await place(alice, 'BUY', '500', '30', 'ALCH_IDR');
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.executionType === 'NEW'), 10_000, 'NEW report');
    const first = us.listenKey as string;
    sb.faults.expireListenKey(first);
    sb.sweep();
    await waitFor(() => us.connected && us.listenKey !== first, 10_000, 'new key');
    await waitFor(() => statuses.some((s) => s.type === 'reconcileNeeded'), 10_000, 'reconcile');
    await place(alice, 'BUY', '501', '30', 'ALCH_IDR');
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.price.toFixed() === '501'), 10_000, 'report after new key');
    expect(events.some((e) => e.type === 'accountPosition')).toBe(true);
  });

  it('listen token (type 1): renews before expiry (subscribe new, then unsubscribe old) without missing events', async () => {
    await start();
    const events: UserDataEvent[] = [];
    const statuses: UserStreamStatus[] = [];
    const tokens: string[] = [];
    const api = { createListenToken: async (v?: number) => { const t = await alice.createListenToken(v); tokens.push(t.token); return t; } };
    const us = new ListenTokenUserStream({ url: sb.urls.ws_api_url, api, validityMs: 1500, renewBeforeMs: 700, logger: silent, backoff, reorderWindowMs: 20 });
    us.events$.subscribe((e) => events.push(e));
    us.status$.subscribe((s) => statuses.push(s));
    us.start();
    closers.push(() => us.close());
    await waitFor(() => us.subscribed, 10_000, 'subscribed');
    let n = 0;
    const started = Date.now();
    while (Date.now() - started < 2000 && n < 40) {
      n++;
      await place(alice, 'BUY', String(900000000 + n));
      await new Promise((r) => setTimeout(r, 40));
    }
    await waitFor(() => events.filter((e) => e.type === 'executionReport' && e.executionType === 'NEW').length >= n, 10_000, 'every NEW report');
    expect(events.filter((e) => e.type === 'executionReport' && e.executionType === 'NEW')).toHaveLength(n);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((s) => s.type === 'reconcileNeeded')).toEqual([]);

  });

  it('listen token (type 1): an early expiry (eventStreamTerminated) re-subscribes with a new token and asks for reconciliation', async () => {
    await start();
    const events: UserDataEvent[] = [];
    const statuses: UserStreamStatus[] = [];
    const tokens: string[] = [];
    const api = { createListenToken: async (v?: number) => { const t = await alice.createListenToken(v); tokens.push(t.token); return t; } };
    const us = new ListenTokenUserStream({ url: sb.urls.ws_api_url, api, logger: silent, backoff, reorderWindowMs: 20 });
    us.events$.subscribe((e) => events.push(e));
    us.status$.subscribe((s) => statuses.push(s));
    us.start();
    closers.push(() => us.close());
    await waitFor(() => us.subscribed, 10_000, 'subscribed');
    const sid = us.subscriptionId;
    sb.faults.expireListenToken(tokens[0] as string);
    sb.sweep();
    await waitFor(() => events.some((e) => e.type === 'streamTerminated' && e.subscriptionId === sid), 10_000, 'eventStreamTerminated');
    await waitFor(() => us.subscribed && us.subscriptionId !== sid, 10_000, 'resubscribed');
    await waitFor(() => statuses.some((s) => s.type === 'reconcileNeeded'), 10_000, 'reconcile');
    expect(tokens).toHaveLength(2);
    await place(alice, 'BUY', '800000000');
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.price.toFixed() === '800000000'), 10_000, 'event after re-subscribe');
  });

  /** Alice's listen-token stream with a ten-minute window: any event it held would never arrive within a test. */
  async function unheldStream(reorderWindowMs = 600_000): Promise<{ us: ListenTokenUserStream; events: UserDataEvent[] }> {
    await start();
    const events: UserDataEvent[] = [];
    const us = new ListenTokenUserStream({ url: sb.urls.ws_api_url, api: alice, logger: silent, backoff, reorderWindowMs });
    us.events$.subscribe((e) => events.push(e));
    us.start();
    closers.push(() => us.close());
    await waitFor(() => us.subscribed, 10_000, 'subscribed');
    return { us, events };
  }

  it('user stream: reports that arrive in order are not held (a window of ten minutes delays nothing)', async () => {
    const { us, events } = await unheldStream();
    await place(alice, 'BUY', '700000000');
    await place(bob, 'SELL', '700000000');
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.status === 'FILLED'), 10_000, 'the fill, unheld');
    const reports = events.flatMap((e) => (e.type === 'executionReport' ? [`${e.executionType}/${e.status}`] : []));
    expect(reports).toEqual(['NEW/NEW', 'TRADE/FILLED']);
    expect(us.ordering.held).toBe(0);
  });

  it('user stream: reports the exchange sends reversed (reorder fault) reach the client in E order', async () => {
    // A window of 1 s: once the client sees an event older than one it delivered, it holds every
    // event for the window (a cautious spell); ten minutes would outlast the test.
    const { us, events } = await unheldStream(1000);
    await place(alice, 'BUY', '700000000', '0.002');
    await waitFor(() => events.length >= 1, 10_000, 'NEW');
    const before = events.length;
    // Every user event of the two sells (both accounts' reports and account positions, 8) comes
    // reversed. Sent together, so the sandbox's 100 ms stream tick rarely falls between them (it
    // would release the first sell's events on their own).
    sb.faults.reorderUserEvents(8);
    await Promise.all([place(bob, 'SELL', '700000000', '0.001'), place(bob, 'SELL', '700000000', '0.001')]);
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.status === 'FILLED'), 10_000, 'both fills, reordered by the client');
    const fills = events.slice(before).flatMap((e) => (e.type === 'executionReport' ? [e.cumQty.toFixed()] : []));
    expect(fills).toEqual(['0.001', '0.002']);
    expect(us.ordering.held).toBeGreaterThan(0);
  });
});
