/**
 * Stream frames as hostile input, into our market and user data stream clients over real loopback
 * WebSockets: random text, random JSON, event envelopes with wrong values, JSON nested 100,000
 * deep, and a frame larger than the clients accept. The invariant: nothing escapes (an uncaught
 * exception would fail the test run), bad frames are counted as malformed, the connection stays up
 * (or, for the oversized frame, is replaced), and the next valid event is delivered.
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketEvent, UserDataEvent } from '../../src/core/marketEvents.js';
import { MAX_STREAM_FRAME_BYTES } from '../../src/exchange/stream/frame-limit.js';
import { ListenKeyUserStream } from '../../src/exchange/stream/listen-key-stream.js';
import { StreamClient } from '../../src/exchange/stream/stream-client.js';
import { FakeStreamServer, tradePayload, waitFor } from '../support-stream/fake-stream-server.js';
import { FakeUserServer, executionReport } from '../support-stream/fake-user-server.js';

const silent = pino({ level: 'silent' });
const wrong = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('1e400', '-1', 'NaN', '', '99999999999999999999999', null));
const frame = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.record({ e: fc.constantFrom('trade', 'depthUpdate', 'aggTrade', 'kline', '24hrMiniTicker', 'executionReport', 'outboundAccountPosition', 'eventStreamTerminated'), E: wrong, s: wrong, p: wrong, q: wrong, t: wrong, U: wrong, u: wrong, b: wrong, a: wrong, k: wrong, B: wrong, X: wrong, x: wrong, i: wrong }, { requiredKeys: ['e'] }).map((v) => JSON.stringify(v)),
  fc.record({ stream: fc.constantFrom('btcidr@trade', 'btcidr@depth@100ms', 'nope'), data: fc.jsonValue({ maxDepth: 3 }) }).map((v) => JSON.stringify(v)),
  fc.constantFrom(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, `{"stream":"btcidr@trade","data":${'['.repeat(50_000)}`, '{"result":null,"id":"x"}', '{"code":3,"msg":"x"}'),
);

describe('market stream client under hostile frames', () => {
  let server: FakeStreamServer;
  let client: StreamClient;
  let events: MarketEvent[];
  beforeEach(async () => {
    server = await FakeStreamServer.start();
    events = [];
    client = new StreamClient({ url: server.url, streams: ['btcidr@trade', 'btcidr@depth@100ms'], logger: silent, backoff: { initialMs: 20, maxMs: 100 } });
    client.events$.subscribe((e) => events.push(e));
    client.start();
    await waitFor(() => client.connected, 5000, 'connect');
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('counts bad frames, stays connected and delivers the next valid event', async () => {
    let id = 1;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 10 }), async (frames) => {
        for (const f of frames) server.sendRaw(f);
        const sentinel = ++id * 1000;
        server.publish('btcidr@trade', tradePayload('BTCIDR', sentinel));
        await waitFor(() => events.some((e) => e.type === 'trade' && e.tradeId === String(sentinel)), 10_000, 'the valid trade after the bad frames');
      }),
      { numRuns: 40 },
    );
    expect(client.stats.malformed).toBeGreaterThan(0);
    expect(client.stats.reconnects).toBe(0);
  });

  it('refuses a frame over the limit by replacing the connection, and goes on', async () => {
    server.sendRaw('x'.repeat(MAX_STREAM_FRAME_BYTES + 1));
    await waitFor(() => client.stats.reconnects >= 1 && client.connected, 10_000, 'a new connection');
    server.publish('btcidr@trade', tradePayload('BTCIDR', 7));
    await waitFor(() => events.some((e) => e.type === 'trade' && e.tradeId === '7'), 10_000, 'the trade on the new connection');
  });
});

describe('user data stream under hostile frames', () => {
  let server: FakeUserServer;
  let stream: ListenKeyUserStream;
  let events: UserDataEvent[];
  beforeEach(async () => {
    server = await FakeUserServer.start();
    events = [];
    stream = new ListenKeyUserStream({ url: server.url, symbolType: 3, api: server.keyApi, logger: silent, backoff: { initialMs: 10, maxMs: 40 }, reorderWindowMs: 0 });
    stream.events$.subscribe((e) => events.push(e));
    stream.start();
    await waitFor(() => stream.connected, 5000, 'connect');
  });
  afterEach(async () => {
    await stream.close();
    await server.stop();
  });

  it('counts bad frames and delivers the next valid execution report', async () => {
    let E = 1_000;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 10 }), async (frames) => {
        for (const f of frames) server.pushText(f);
        const sentinel = (E += 1_000);
        server.push(executionReport(sentinel, { c: `cid-${sentinel}` }));
        await waitFor(() => events.some((e) => e.type === 'executionReport' && e.clientId === `cid-${sentinel}`), 10_000, 'the valid report after the bad frames');
      }),
      { numRuns: 40 },
    );
    expect(stream.stats.malformed).toBeGreaterThan(0);
  });

  it('refuses a frame over the limit by replacing the connection, and goes on', async () => {
    server.pushText('x'.repeat(MAX_STREAM_FRAME_BYTES + 1));
    await waitFor(() => stream.stats.reconnects >= 1 && stream.connected, 10_000, 'a new connection');
    server.push(executionReport(5_000_000, { c: 'cid-after' }));
    await waitFor(() => events.some((e) => e.type === 'executionReport' && e.clientId === 'cid-after'), 10_000, 'the report on the new connection');
  });
});
