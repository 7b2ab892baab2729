/**
 * REST answers as hostile input, into both clients over real loopback HTTP: random statuses,
 * headers and bodies (random text, random JSON, the right envelope around wrong values, deep
 * nesting, huge numbers). The invariant: every call resolves or rejects with one of our named
 * errors (core/errors.ts); nothing else escapes, and the client keeps working afterwards.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KancilError } from '../../src/core/errors.js';
import { LegacyClient, OpenClient } from '../../src/exchange/index.js';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

let answer: Answer = { status: 200, headers: {}, body: '{}' };
let server: http.Server;
let url = '';
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-fuzz-rest-'));
const clock = { t: 1_700_000_000_000, now(): number {
  return this.t;
} };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const wrongValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('1e400', '-0', 'NaN', '99999999999999999999999', '', '0.', '1e-400', null));
const body = fc.oneof(
  fc.string({ maxLength: 100 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.record({ code: fc.oneof(fc.constant(0), fc.integer()), msg: fc.string(), data: fc.jsonValue({ maxDepth: 3 }) }).map((v) => JSON.stringify(v)),
  // The right envelope and keys, wrong values: what a changed or broken exchange would send.
  fc.record({ symbol: wrongValue, orderId: wrongValue, price: wrongValue, origQty: wrongValue, executedQty: wrongValue, status: wrongValue, type: wrongValue, side: wrongValue, timestamp: wrongValue, serverTime: wrongValue, bids: wrongValue, asks: wrongValue, balances: wrongValue }, { requiredKeys: [] }).map((data) => JSON.stringify({ code: 0, msg: '', data, timestamp: 1 })),
  fc.record({ success: fc.oneof(fc.constant(1), fc.jsonValue()), return: fc.jsonValue({ maxDepth: 3 }), error: fc.string() }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.nat({ max: 100_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
);
const reply = fc.record({
  status: fc.constantFrom(200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 418, 429, 500, 502, 503),
  headers: fc.record({ 'retry-after': fc.constantFrom('1', '-5', 'soon', '99999999999'), 'x-mbx-used-weight-1m': fc.constantFrom('1', 'x', '-1', '1e309') }, { requiredKeys: [] }),
  body,
});

async function named(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (e) {
    expect(e instanceof KancilError, `${(e as Error)?.name}: ${(e as Error)?.message}`).toBe(true);
  }
}

describe('REST clients under hostile answers', () => {
  it('the open API client: every answer resolves or is a named error', async () => {
    const client = new OpenClient({ baseUrl: url, marketUrl: url, depthUrl: url, apiKey: 'fuzzKey-0123456789', apiSecret: 'fuzzSecret-0123456789', timeoutMs: 2_000, clock, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    try {
      await fc.assert(
        fc.asyncProperty(reply, async (r) => {
          answer = r;
          clock.t += 3_600_000; // past any ban the previous answer caused
          await named(client.time());
          await named(client.symbols());
          await named(client.depth({ symbol: 'BTC_IDR', symbolType: 2 }));
          await named(client.account());
          await named(client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }));
          await named(client.orderDetail({ orderId: '1' }));
          await named(client.cancelOrder({ orderId: '1' }));
          await named(client.klines({ symbol: 'BTC_IDR', symbolType: 2, interval: '1m' }));
        }),
        { numRuns: 60 },
      );
    } finally {
      await client.close();
    }
  });

  it('the legacy client: every answer resolves or is a named error', async () => {
    const client = new LegacyClient({ baseUrl: url, apiKey: 'fuzzLegacyKey-0123', apiSecret: 'fuzzLegacySecret-0123', nonceStore: path.join(dir, 'nonce'), clock, timeoutMs: 2_000, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    try {
      await fc.assert(
        fc.asyncProperty(reply, async (r) => {
          answer = r;
          clock.t += 3_600_000;
          await named(client.account());
          await named(client.activeOrders());
          await named(client.getOrder(1));
          await named(client.cancelOrder(1));
          await named(client.createOrder({ side: 'buy', type: 'limit', quantity: '0.001', price: '100000000', currency: 'btc' }));
          await named(client.orderBook('btcidr'));
          await named(client.tickers());
        }),
        { numRuns: 60 },
      );
    } finally {
      await client.close();
    }
  });
});
