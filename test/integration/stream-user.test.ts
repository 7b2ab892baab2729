/** User data streams (listen key and listen token) against a local fake user-data host. */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserDataEvent } from '../../src/core/marketEvents.js';
import { ListenKeyUserStream } from '../../src/exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../../src/exchange/stream/listen-token-stream.js';
import type { UserStreamStatus } from '../../src/exchange/stream/user-stream-base.js';
import { waitFor } from '../support-stream/fake-stream-server.js';
import { FakeUserServer, executionReport } from '../support-stream/fake-user-server.js';

const silent = pino({ level: 'silent' });
const backoff = { initialMs: 10, maxMs: 40 };

describe('user data streams', () => {
  let server: FakeUserServer;
  let events: UserDataEvent[];
  let statuses: UserStreamStatus[];
  let closers: (() => Promise<void>)[];

  beforeEach(async () => {
    server = await FakeUserServer.start();
    events = [];
    statuses = [];
    closers = [];
  });
  afterEach(async () => {
    for (const c of closers) await c();
    await server.stop();
  });

  function keyStream(over: Partial<ConstructorParameters<typeof ListenKeyUserStream>[0]> = {}): ListenKeyUserStream {
    const s = new ListenKeyUserStream({ url: server.url, symbolType: 3, api: server.keyApi, logger: silent, backoff, reorderWindowMs: 0, ...over });
    s.events$.subscribe((e) => events.push(e));
    s.status$.subscribe((e) => statuses.push(e));
    s.start();
    closers.push(() => s.close());
    return s;
  }

  function tokenStream(over: Partial<ConstructorParameters<typeof ListenTokenUserStream>[0]> = {}): ListenTokenUserStream {
    const s = new ListenTokenUserStream({ url: `${server.url}/ws-api/v3`, api: server.tokenApi, logger: silent, backoff, reorderWindowMs: 0, ...over });
    s.events$.subscribe((e) => events.push(e));
    s.status$.subscribe((e) => statuses.push(e));
    s.start();
    closers.push(() => s.close());
    return s;
  }

  it('listen key: parses executionReport and outboundAccountPosition with every field exact', async () => {
    const s = keyStream();
    await waitFor(() => s.connected, 5000, 'connect');
    server.push(executionReport(1000, { eR: 'NONE' }));
    server.push({ e: 'outboundAccountPosition', E: 1001, m: 10, t: 10, b: 0, s: 0, T: true, W: true, D: false, u: 1000, B: [{ a: 'IDR', f: '1000000.50', l: '0.00' }, { a: 'BTC', f: '0.00060000', l: '0' }] });
    server.push({ e: 'executionReport', E: 'bad' });
    await waitFor(() => events.length === 2, 5000, 'events');
    expect(s.stats.malformed).toBe(1);
    const er = events[0];
    expect(er?.type).toBe('executionReport');
    if (er?.type === 'executionReport') {
      expect(er).toMatchObject({ symbol: 'BTCIDR', clientId: 'cid-1', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', executionType: 'TRADE', status: 'PARTIALLY_FILLED', orderId: '4242', tradeId: '77', isMaker: true, isWorking: false, commissionAsset: 'IDR', rejectReason: 'NONE', expiryReason: 'NONE' });
      expect(er.lastQty.toFixed()).toBe('0.0004');
      expect(er.cumQuoteQty.toFixed()).toBe('852897.75');
      expect(er.commission.toFixed()).toBe('0.5685985');
      expect(er.cumQuoteQty.div(er.cumQty).toFixed()).toBe('1421496250');
    }
    const ap = events[1];
    expect(ap).toMatchObject({ type: 'accountPosition', E: 1001, lastUpdateTime: 1000, makerCommission: 10, canDeposit: false });
    if (ap?.type === 'accountPosition') expect(ap.balances.map((b) => `${b.asset}:${b.free.toFixed()}`)).toEqual(['IDR:1000000.5', 'BTC:0.0006']);
  });

  it('listen key: keep-alive runs, expiry is detected, the key is re-created and reconciliation requested', async () => {
    const s = keyStream({ keepAliveMs: 40 });
    await waitFor(() => s.connected, 5000, 'connect');
    await waitFor(() => server.calls.includes('keepalive:key1'), 5000, 'keep-alive');
    server.expireKey('key1');
    await waitFor(() => s.connected && s.listenKey === 'key2', 5000, 'new key and reconnect');
    await waitFor(() => statuses.some((x) => x.type === 'reconcileNeeded'), 5000, 'reconcile');
    server.push(executionReport(5));
    await waitFor(() => events.length === 1, 5000, 'event on new key');
    await s.close();
    expect(server.calls).toContain('close:key2');
  });

  it('listen key: a dropped connection reconnects on the same valid key and asks for reconciliation', async () => {
    const s = keyStream();
    await waitFor(() => s.connected, 5000, 'connect');
    server.dropAll();
    await waitFor(() => statuses.filter((x) => x.type === 'connection' && x.status === 'up').length === 2, 5000, 'reconnect');
    expect(s.listenKey).toBe('key1');
    expect(statuses.map((x) => (x.type === 'connection' ? x.status : x.type))).toEqual(['up', 'down', 'up', 'reconcileNeeded']);
  });

  it('orders out-of-order events by E within the window', async () => {
    const s = keyStream({ reorderWindowMs: 80 });
    await waitFor(() => s.connected, 5000, 'connect');
    for (const E of [30, 10, 20, 10]) server.push(executionReport(E, { t: E }));
    await waitFor(() => events.length === 3, 5000, 'ordered events');
    expect(events.map((e) => e.E)).toEqual([10, 20, 30]);
    expect(s.ordering.duplicates).toBe(1);
  });

  it('a message that is not JSON is counted and skipped on both streams; the next event still arrives', async () => {
    const k = keyStream();
    const t = tokenStream();
    await waitFor(() => k.connected && t.subscribed, 5000, 'connect and subscribe');
    server.pushText('{not json');
    server.push(executionReport(1000, { eR: 'NONE' }));
    await waitFor(() => events.length === 2, 5000, 'events');
    expect([k.stats.malformed, t.stats.malformed]).toEqual([1, 1]);
  });

  it('listen token: renews before expirationTime (subscribe new, then unsubscribe old) without missing events', async () => {
    const s = tokenStream({ validityMs: 300, renewBeforeMs: 150 });
    await waitFor(() => s.subscribed, 5000, 'subscribed');
    let E = 0;
    const started = Date.now();
    while (Date.now() - started < 700) {
      E++;
      server.push(executionReport(E, { t: E }));
      await new Promise((r) => setTimeout(r, 3));
    }
    await waitFor(() => events.length >= E, 5000, 'all events');
    expect(events.map((e) => e.E)).toEqual(Array.from({ length: E }, (_, i) => i + 1));
    expect(server.calls.filter((c) => c.startsWith('token:')).length).toBeGreaterThanOrEqual(3);
    expect(server.unsubscribed.slice(0, 2)).toEqual([1, 2]);
    expect(statuses.filter((x) => x.type === 'reconcileNeeded')).toEqual([]);
  });

  it('listen token: eventStreamTerminated re-subscribes with a new token and requests reconciliation; shutdown unsubscribes', async () => {
    const s = tokenStream();
    await waitFor(() => s.subscribed, 5000, 'subscribed');
    server.expireToken('tok1');
    await waitFor(() => s.subscriptionId === 2, 5000, 'resubscribed');
    expect(events.at(-1)).toMatchObject({ type: 'streamTerminated', subscriptionId: 1 });
    await waitFor(() => statuses.some((x) => x.type === 'reconcileNeeded'), 5000, 'reconcile');
    server.push(executionReport(9));
    await waitFor(() => events.some((e) => e.E === 9), 5000, 'event after renewal');
    await s.close();
    expect(server.unsubscribed.at(-1)).toBe('all');
  });
});
