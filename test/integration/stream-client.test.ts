/** StreamClient over real WebSockets against a local fake stream host. */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamError } from '../../src/core/errors.js';
import type { ConnectionStatusEvent, MarketEvent } from '../../src/core/marketEvents.js';
import { StreamClient, type StreamClientOptions } from '../../src/exchange/stream/stream-client.js';
import { FakeStreamServer, tradePayload, waitFor } from '../support-stream/fake-stream-server.js';

const silent = pino({ level: 'silent' });

describe('StreamClient', () => {
  let server: FakeStreamServer;
  let client: StreamClient | undefined;
  let events: MarketEvent[];
  let statuses: ConnectionStatusEvent[];

  beforeEach(async () => {
    server = await FakeStreamServer.start();
    events = [];
    statuses = [];
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await server.stop();
  });

  function make(opts: Partial<StreamClientOptions> = {}): StreamClient {
    const c = new StreamClient({ url: server.url, logger: silent, backoff: { initialMs: 20, maxMs: 100 }, ...opts });
    c.events$.subscribe((e) => events.push(e));
    c.status$.subscribe((s) => statuses.push(s));
    c.start();
    client = c;
    return c;
  }

  it('combined connection: typed events with exact decimals; malformed payloads counted, not thrown', async () => {
    const c = make({ streams: ['btcidr@trade', 'btcidr@depth@100ms'] });
    await waitFor(() => c.connected, 5000, 'connect');
    expect(server.open()[0]?.path).toBe('/stream?streams=btcidr@trade/btcidr@depth@100ms');
    server.publish('btcidr@trade', tradePayload('BTCIDR', 7, '1421496253.00', '0.00119000'));
    server.sendRaw('{not json');
    server.publish('btcidr@trade', { e: 'trade', E: 'x' });
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 1, s: 'BTCIDR', U: 3, u: 4, b: [['1.10', '2']], a: [] });
    await waitFor(() => events.length === 2, 5000, 'events');
    expect(c.stats.malformed).toBe(2);
    const t = events[0];
    expect(t?.type).toBe('trade');
    if (t?.type === 'trade') {
      expect(t.price.toFixed()).toBe('1421496253');
      expect(t.qty.toFixed()).toBe('0.00119');
      expect(t.tradeId).toBe('7');
    }
    expect(events[1]).toMatchObject({ type: 'depthDiff', firstUpdateId: 3, finalUpdateId: 4 });
    expect(statuses.map((s) => s.status)).toEqual(['up']);
  });

  it('amounts out of the strict rule (1e-400, negative, exponent, 1e29) are logged naming the field, counted, never delivered', async () => {
    const logs: string[] = [];
    const c = make({ streams: ['btcidr@trade', 'btcidr@depth@100ms'], logger: pino({ level: 'warn' }, { write: (s: string) => void logs.push(s) }) });
    await waitFor(() => c.connected, 5000, 'connect');
    server.publish('btcidr@trade', tradePayload('BTCIDR', 1, '1e-400', '0.001'));
    server.publish('btcidr@trade', tradePayload('BTCIDR', 2, '1421496253.00', '-0.5'));
    server.publish('btcidr@trade', { ...tradePayload('BTCIDR', 3, '1', '1'), p: 1e29 });
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 1, s: 'BTCIDR', U: 3, u: 4, b: [['1.5E2', '2']], a: [] });
    server.publish('btcidr@trade', tradePayload('BTCIDR', 4, '1421496253.00', '0.00119000'));
    await waitFor(() => events.length === 1 && c.stats.malformed === 4, 5000, 'the good trade after four refused payloads');
    expect(events[0]).toMatchObject({ type: 'trade', tradeId: '4' });
    const warned = logs.join('');
    for (const shown of ['p=\\"1e-400\\"', 'q=\\"-0.5\\"', 'p=1e+29', 'b[0][0]=\\"1.5E2\\"']) expect(warned).toContain(shown);
  });

  it('raw connection and live control messages matched by id; errors carry the spec codes', async () => {
    const c = make({ streams: ['btcidr@trade'], combined: false });
    await waitFor(() => c.connected, 5000, 'connect');
    expect(server.open()[0]?.path).toBe('/ws/btcidr@trade');
    await c.subscribe(['ethidr@aggTrade']);
    expect((await c.listSubscriptions()).sort()).toEqual(['btcidr@trade', 'ethidr@aggTrade']);
    expect(await c.getProperty('combined')).toBe(false);
    await expect(c.setProperty('combined', 'yes')).rejects.toMatchObject({ streamCode: 1, streamMsg: 'Invalid value type: expected Boolean' });
    await expect(c.getProperty('foo')).rejects.toBeInstanceOf(StreamError);
    await expect(c.request('SUBSCRIBEX', [])).rejects.toMatchObject({ streamCode: 2 });
    server.publish('ethidr@aggTrade', { e: 'aggTrade', E: 5, s: 'ETHIDR', a: 9, p: '50.5', q: '2', f: 1, l: 2, T: 5, m: false, M: true });
    await waitFor(() => events.length === 1, 5000, 'aggTrade');
    expect(events[0]).toMatchObject({ type: 'aggTrade', aggId: '9' });
    await c.unsubscribe(['ethidr@aggTrade']);
    expect(await c.listSubscriptions()).toEqual(['btcidr@trade']);
  });

  it('dropped connection: down, reconnect with backoff, everything resubscribed, data flows again', async () => {
    const c = make({ streams: ['btcidr@trade'] });
    await waitFor(() => c.connected, 5000, 'connect');
    await c.subscribe(['ethidr@trade']);
    server.dropAll();
    await waitFor(() => statuses.length === 3, 5000, 'down and up');
    expect(statuses.map((s) => s.status)).toEqual(['up', 'down', 'up']);
    expect(statuses[2]?.reason).toBe('reconnected');
    await waitFor(() => server.open().length === 1, 5000, 'server sees reconnect');
    expect(server.open()[0]?.path).toBe('/stream?streams=btcidr@trade/ethidr@trade');
    server.publish('ethidr@trade', tradePayload('ETHIDR', 1));
    await waitFor(() => events.length === 1, 5000, 'event after reconnect');
    expect(c.stats.reconnects).toBe(1);
  });

  it('detects a silent (dead) connection through unanswered pings and reconnects', async () => {
    server.answerPings = false;
    const c = make({ streams: ['btcidr@trade'], pingIntervalMs: 50, pongTimeoutMs: 50 });
    await waitFor(() => c.connected, 5000, 'connect');
    await waitFor(() => statuses.some((s) => s.status === 'down'), 5000, 'dead detection');
    server.answerPings = true;
    await waitFor(() => statuses.filter((s) => s.status === 'up').length === 2, 5000, 'reconnect');
  });

  it('rotates ahead of the server lifetime limit with no lost and no duplicated message', async () => {
    server.maxLifetimeMs = 1000; // the server kills connections older than this, like the 24 h limit
    const c = make({ streams: ['btcidr@trade', 'btcidr@depth@100ms'], maxConnectionAgeMs: 150, rotationGraceMs: 60 });
    await waitFor(() => c.connected, 5000, 'connect');
    let id = 0;
    let depthU = 0;
    const started = Date.now();
    while (Date.now() - started < 1200) {
      id++;
      server.publish('btcidr@trade', tradePayload('BTCIDR', id));
      // Depth batches of varying width; continuity across the cut is checked below.
      const U = depthU + 1;
      depthU += 1 + (id % 3);
      server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: id, s: 'BTCIDR', U, u: depthU, b: [[`${id}.0`, '1']], a: [] });
      await new Promise((r) => setTimeout(r, 2));
    }
    await waitFor(() => events.filter((e) => e.type === 'trade').length >= id, 5000, 'all trades');
    const trades = events.filter((e) => e.type === 'trade').map((e) => (e.type === 'trade' ? e.tradeId : '-'));
    expect(trades).toEqual(Array.from({ length: id }, (_, i) => String(i + 1)));
    const depth = events.flatMap((e) => (e.type === 'depthDiff' ? [e] : []));
    for (let i = 1; i < depth.length; i++) expect(depth[i]?.firstUpdateId).toBe((depth[i - 1]?.finalUpdateId ?? 0) + 1);
    expect(depth.at(-1)?.finalUpdateId).toBe(depthU);
    expect(c.stats.rotations).toBeGreaterThanOrEqual(2);
    // Rotation is seamless: the consumer never saw the connection go down.
    expect(statuses.map((s) => s.status)).toEqual(['up']);
  });

  it('rotation: a diff batch that straddles the cut is trimmed to continue exactly where the old connection stopped', async () => {
    const c = make({ streams: ['btcidr@depth@100ms'], maxConnectionAgeMs: 100, rotationGraceMs: 150 });
    await waitFor(() => c.connected, 5000, 'connect');
    const d = (U: number, u: number): Record<string, unknown> => ({ e: 'depthUpdate', E: u, s: 'BTCIDR', U, u, b: [[`${u}.0`, '1']], a: [] });
    server.publishTo(0, 'btcidr@depth@100ms', d(1, 2));
    server.publishTo(0, 'btcidr@depth@100ms', d(3, 4));
    await waitFor(() => server.open().length === 2, 5000, 'replacement connection');
    // The new connection batches differently: 3..6 overlaps what the old one delivered (3..4).
    server.publishTo(1, 'btcidr@depth@100ms', d(3, 6));
    server.publishTo(1, 'btcidr@depth@100ms', d(7, 8));
    await waitFor(() => c.stats.rotations === 1, 5000, 'cut-over');
    await waitFor(() => events.length === 4, 5000, 'events');
    const ranges = events.map((e) => (e.type === 'depthDiff' ? `${e.firstUpdateId}-${e.finalUpdateId}` : e.type));
    expect(ranges).toEqual(['1-2', '3-4', '5-6', '7-8']);
    // The new primary rotates in its turn (its age timer fired while it was the replacement).
    await waitFor(() => c.stats.rotations >= 2, 5000, 'second rotation');
  });
});
