/**
 * The sandbox's HTTP hosts (open API, market data, legacy /v1) under hostile requests from a
 * neighbour on the machine: random methods, paths, query strings, headers and bodies, signed and
 * not. The invariant: every request gets an HTTP answer (a status from the spec's table, a body),
 * the sandbox records no internal failure, and it answers a normal request afterwards.
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { signedQuery } from '../../src/sandbox/test-signing.js';

let sbx: RunningSandbox;
beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
});
afterAll(async () => {
  await sbx.stop();
});

/** One raw request (no client-side validation, so anything can be sent); resolves with the status. */
function send(base: string, method: string, target: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: target, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const A = TEST_ACCOUNTS.alice;
const segment = fc.oneof(fc.constantFrom('open', 'v1', 'api', 'v3', 'orders', 'order', 'depth', 'klines', 'account', 'tapi', 'cancel', 'user-listen-token', 'userDataStream', 'market', 'trades', '%', '%ZZ', '..', ''), fc.string({ maxLength: 12 }).map(encodeURIComponent));
const param = fc.tuple(fc.constantFrom('symbol', 'side', 'type', 'quantity', 'price', 'limit', 'orderId', 'clientId', 'recvWindow', 'timestamp', 'interval', 'fromId', 'method', 'pair', 'x'), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('BTC_USDT', 'btcusdt', '-1', '1e400', '99999999999999999999999', '0', 'NaN', '[]', '{}')));
const query = fc.array(param, { maxLength: 6 }).map((ps) => ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
const request = fc.record({
  host: fc.constantFrom('base_url', 'market_url', 'depth_url', 'legacy_base_url'),
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  path: fc.oneof(
    fc.constantFrom('/open/v1/orders', '/open/v1/orders/detail', '/open/v1/orders/cancel', '/open/v1/orders/oco', '/open/v1/account/spot', '/open/v1/common/symbols', '/open/v1/user-listen-token', '/api/v3/depth', '/api/v3/klines', '/api/v3/ticker/price', '/v1/order', '/v1/account', '/v1/orders'),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`),
  ),
  query,
  signed: fc.boolean(),
  body: fc.oneof(fc.constant(''), query, fc.string({ maxLength: 200 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))),
  key: fc.oneof(fc.constant(A.apiKey), fc.string({ maxLength: 40 }).filter((k) => /^[\x21-\x7e]*$/.test(k))),
});

describe('sandbox HTTP hosts under hostile requests', () => {
  it('answer every request with a status and stay up', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const base = sbx.urls[r.host as 'base_url'];
        const q = r.signed ? signedQuery(r.query, A.secret) : r.query;
        const status = await send(base, r.method, `${r.path}${q === '' ? '' : `?${q}`}`, { 'X-MBX-APIKEY': r.key, Key: r.key, Sign: 'x', 'content-type': 'application/x-www-form-urlencoded' }, r.body);
        expect([200, 400, 401, 403, 404, 405, 409, 413, 418, 429, 503]).toContain(status);
      }),
      { numRuns: 300 },
    );
    expect(sbx.failures.count).toBe(0);
    expect(await send(sbx.urls.base_url, 'GET', '/open/v1/common/time', {}, '')).toBe(200);
  });
});
