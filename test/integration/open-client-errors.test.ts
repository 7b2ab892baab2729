/**
 * OpenClient's rate-limit handling and error paths over real HTTP on 127.0.0.1 (the endpoints
 * themselves are open-client.test.ts's).
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ExchangeError, NetworkError, ParseError, RateLimitedError, UnknownOutcomeError, ValidationError } from '../../src/core/index.js';
import { OpenClient } from '../../src/exchange/index.js';
import { LoopbackServer } from '../support/LoopbackServer.js';
import { FAST_RETRY, openClientFixture } from '../support/openClientFixture.js';
import { capturingLogger, expectNoSecrets } from '../support/secretLeaks.js';
import { OPEN_KEY, OPEN_SECRET, signed } from '../support/openRoutes.js';
import { ok, wireAccount, wireNewOrder, wireOrderDetail } from '../support/openWire.js';

const f = openClientFixture();

describe('rate limits', () => {
  it('records X-MBX-USED-WEIGHT-* and X-MBX-ORDER-COUNT-* of the IP', async () => {
    f.server.on('POST', '/open/v1/orders', signed(() => ({ headers: { 'X-MBX-USED-WEIGHT-1M': '12', 'x-mbx-used-weight-1h': '40', 'X-MBX-ORDER-COUNT-10S': '3' }, json: ok(wireNewOrder, 'message') })));
    await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' });
    expect(f.client.rateLimits.usedWeight('1M')).toBe(12);
    expect(f.client.rateLimits.usedWeight('1H')).toBe(40);
    expect(f.client.rateLimits.orderCount('10S')).toBe(3);
    expect(f.client.rateLimits.snapshot()).toMatchObject({ usedWeight: { '1M': 12, '1H': 40 }, orderCount: { '10S': 3 }, blockedUntil: undefined });
  });

  it('429 with Retry-After: RateLimitedError, then local refusal without a request until it passes', async () => {
    let status = 429;
    f.server.on('GET', '/open/v1/common/time', () => (status === 429 ? { status: 429, headers: { 'Retry-After': '7' }, json: { code: -1003, msg: 'Too many requests' } } : { json: { code: 0, msg: '', timestamp: 1 } }));
    const err = await f.client.time().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ httpStatus: 429, retryAfterMs: 7_000, bannedUntil: undefined });
    expect(f.server.requests).toHaveLength(1);
    expect(f.client.rateLimits.snapshot()).toMatchObject({ blockedUntil: f.clock.t + 7_000, blockedBy: 429 });
    // Every path is refused locally; the server sees nothing.
    const local = await f.client.symbols().catch((e: unknown) => e);
    expect(local).toBeInstanceOf(RateLimitedError);
    expect(local).toMatchObject({ httpStatus: undefined, retryAfterMs: 7_000 });
    f.clock.t += 6_999;
    await expect(f.client.time()).rejects.toMatchObject({ retryAfterMs: 1 });
    expect(f.server.requests).toHaveLength(1);
    f.clock.t += 1;
    status = 200;
    expect(await f.client.time()).toBe(1);
    expect(f.server.requests).toHaveLength(2);
  });

  it('403 (web application firewall limit): the host is backed off like a 429, orders included, instead of hammered', async () => {
    f.server.on('POST', '/open/v1/orders', { status: 403, text: '<html>403 Forbidden</html>' });
    f.server.on('GET', '/open/v1/common/time', { json: { code: 0, msg: '', timestamp: 1 } });
    const err = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-waf' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ httpStatus: 403 });
    // Nothing more reaches the host until the wait (no Retry-After: the 429 default) has passed.
    await expect(f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-waf2' })).rejects.toBeInstanceOf(RateLimitedError);
    await expect(f.client.time()).rejects.toBeInstanceOf(RateLimitedError);
    expect(f.server.requests).toHaveLength(1);
    f.clock.t += 60_000;
    expect(await f.client.time()).toBe(1);
  });

  it('418 ban from one host: the whole IP is refused, every host (the spec limits per IP)', async () => {
    const other = await LoopbackServer.start();
    try {
      const c = new OpenClient({ baseUrl: f.server.url, marketUrl: other.url, depthUrl: other.url, clock: f.clock, retry: FAST_RETRY });
      f.server.on('GET', '/open/v1/common/time', { status: 418, headers: { 'Retry-After': '120' }, json: { code: -1003, msg: 'banned' } });
      other.on('GET', '/api/v3/depth', { json: { lastUpdateId: 1, bids: [], asks: [] } });
      const err = await c.time().catch((e: unknown) => e);
      expect(err).toMatchObject({ httpStatus: 418, retryAfterMs: 120_000, bannedUntil: f.clock.t + 120_000 });
      await expect(c.time()).rejects.toMatchObject({ bannedUntil: f.clock.t + 120_000, httpStatus: undefined });
      await expect(c.depth({ symbol: 'BTC_IDR', symbolType: 1 })).rejects.toMatchObject({ bannedUntil: f.clock.t + 120_000, httpStatus: undefined });
      expect(f.server.requests).toHaveLength(1);
      expect(other.requests).toHaveLength(0);
      expect(c.rateLimits.bannedUntil()).toBe(f.clock.t + 120_000);
      f.clock.t += 120_000;
      await expect(c.depth({ symbol: 'BTC_IDR', symbolType: 1 })).resolves.toMatchObject({ lastUpdateId: 1 });
      await c.close();
    } finally {
      await other.close();
    }
  });

  it('order-count 429 (-1015): new orders wait out Retry-After; cancels and account reads go on', async () => {
    f.server.on('POST', '/open/v1/orders', { status: 429, headers: { 'Retry-After': '10', 'X-MBX-USED-WEIGHT-1M': '5' }, json: { code: -1015, msg: 'Too many new orders; retry after 10 s.' } });
    f.server.on('POST', '/open/v1/orders/cancel', signed(() => ({ json: ok(wireOrderDetail, 'message') })));
    f.server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok(wireAccount) })));
    f.server.on('GET', '/open/v1/orders/detail', signed(() => ({ json: ok(wireOrderDetail, 'message') })));
    const first = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-1015' }).catch((e: unknown) => e);
    expect(first).toMatchObject({ httpStatus: 429, retryAfterMs: 10_000 });
    await expect(f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-1015b' })).rejects.toMatchObject({ httpStatus: undefined, retryAfterMs: 10_000 });
    expect(f.server.requests.filter((r) => r.path === '/open/v1/orders')).toHaveLength(1);
    await f.client.cancelOrder({ clientId: 'c-old' });
    await f.client.account();
    await f.client.orderDetail({ orderId: '1', clientId: 'c-old' });
    expect(f.client.rateLimits.snapshot()).toMatchObject({ blockedUntil: undefined, ordersBlockedUntil: f.clock.t + 10_000 });
    f.clock.t += 10_000;
    await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-1015c' }).catch(() => undefined);
    expect(f.server.requests.filter((r) => r.path === '/open/v1/orders')).toHaveLength(2);
  });

  it('throttles ahead of a known weight limit from the headers, keeping the last tenth for cancels', async () => {
    const c = f.makeClient({ weightLimits: { '1M': 100 } });
    try {
      f.server.on('GET', '/open/v1/common/time', { headers: { 'X-MBX-USED-WEIGHT-1M': '90' }, json: { code: 0, msg: '', timestamp: 1 } });
      f.server.on('POST', '/open/v1/orders/cancel', signed(() => ({ headers: { 'X-MBX-USED-WEIGHT-1M': '91' }, json: ok(wireOrderDetail, 'message') })));
      expect(await c.time()).toBe(1);
      const refused = await c.time().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).httpStatus).toBeUndefined();
      expect((refused as RateLimitedError).retryAfterMs).toBe(60_000 - (f.clock.t % 60_000));
      await c.cancelOrder({ clientId: 'c-old' });
      expect(f.server.requests).toHaveLength(2);
      f.clock.t += 60_000 - (f.clock.t % 60_000);
      expect(await c.time()).toBe(1);
    } finally {
      await c.close();
    }
  });
});

describe('error paths', () => {
  it('a GET whose 2XX body was spoiled on the way is asked again; a POST stays of unknown outcome', async () => {
    let n = 0;
    f.server.on('GET', '/open/v1/common/time', () => (++n === 1 ? { text: '{"code":0,"msg":"suc' } : { json: { code: 0, msg: '', timestamp: 5 } }));
    expect(await f.client.time()).toBe(5);
    expect(f.server.requests).toHaveLength(2);
    f.server.on('POST', '/open/v1/orders', { text: '{"code":0,"mess' });
    await expect(f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-cut' })).rejects.toBeInstanceOf(UnknownOutcomeError);
    expect(f.server.requests).toHaveLength(3);
  });

  it('401 -> AuthenticationError', async () => {
    f.server.on('GET', '/open/v1/account/spot', { status: 401, json: { code: -2015, msg: 'Invalid API-key' } });
    const err = await f.client.account().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toContain('Invalid API-key');
  });

  it('a refused signature, a GET whose signed query fails and an order whose answer is lost: no error or log line carries the key, the secret or a signature', async () => {
    const logger = capturingLogger();
    const c = f.makeClient({ logger, timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    try {
      f.server.on('GET', '/open/v1/account/spot', { status: 401, json: { code: -1022, msg: 'Signature for this request is not valid.' } });
      f.server.on('GET', '/open/v1/orders/detail', { reset: true });
      f.server.on('POST', '/open/v1/orders', { hang: true });
      const errors = [
        await c.account().catch((e: unknown) => e),
        await c.orderDetail({ orderId: '1' }).catch((e: unknown) => e),
        await c.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e),
      ];
      expect(errors[0]).toBeInstanceOf(AuthenticationError);
      expect(errors[1]).toBeInstanceOf(NetworkError);
      expect(errors[2]).toBeInstanceOf(UnknownOutcomeError);
      const signatures = f.server.requests.map((r) => r.params.signature).filter((x): x is string => x !== undefined);
      expect(signatures.length).toBeGreaterThanOrEqual(4);
      expect(logger.lines.length).toBeGreaterThan(0);
      expectNoSecrets(logger.lines, errors, [OPEN_KEY, OPEN_SECRET, ...signatures]);
    } finally {
      await c.close();
    }
  });

  it('5XX on order placement -> UnknownOutcomeError carrying the clientId, exactly one request', async () => {
    f.server.on('POST', '/open/v1/orders', { status: 503, json: { code: -1, msg: 'busy' } });
    const err = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    const sent = f.server.only('POST', '/open/v1/orders').params.clientId;
    expect((err as UnknownOutcomeError).clientId).toBe(sent);
    expect((err as UnknownOutcomeError).httpStatus).toBe(503);
  });

  it('5XX on cancel -> UnknownOutcomeError, exactly one request', async () => {
    f.server.on('POST', '/open/v1/orders/cancel', { status: 500, text: 'oops' });
    await expect(f.client.cancelOrder({ clientId: 'c-9' })).rejects.toMatchObject({ code: 'UNKNOWN_OUTCOME', clientId: 'c-9' });
    expect(f.server.received('POST', '/open/v1/orders/cancel')).toHaveLength(1);
  });

  it('5XX on a GET is retried with backoff, bounded', async () => {
    let n = 0;
    f.server.on('GET', '/open/v1/common/time', () => (++n < 3 ? { status: 502, text: 'bad gateway' } : { json: { code: 0, msg: '', timestamp: 42 } }));
    expect(await f.client.time()).toBe(42);
    expect(n).toBe(3);
    f.server.on('GET', '/open/v1/common/symbols', { status: 500, json: { code: -1, msg: 'down' } });
    const err = await f.client.symbols().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ httpStatus: 500, exchangeMsg: 'down' });
    expect(f.server.received('GET', '/open/v1/common/symbols')).toHaveLength(3);
  });

  it('envelope with a non-zero code -> ExchangeError with code and message (msg or message)', async () => {
    f.server.on('GET', '/open/v1/common/symbols', { json: { code: 3210, msg: 'symbol list unavailable', timestamp: 1 } });
    f.server.on('POST', '/open/v1/orders', { json: { code: 2202, message: 'insufficient balance', messageDetail: null, success: false, timestamp: 1 } });
    await expect(f.client.symbols()).rejects.toMatchObject({ code: 'EXCHANGE', exchangeCode: 3210, exchangeMsg: 'symbol list unavailable', httpStatus: 200 });
    // A definite rejection of an order is an ExchangeError, not an unknown outcome.
    const err = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ exchangeCode: 2202, exchangeMsg: 'insufficient balance' });
    expect(f.server.received('GET', '/open/v1/common/symbols')).toHaveLength(1);
  });

  it('4XX with a body -> ExchangeError naming the code', async () => {
    f.server.on('GET', '/open/v1/orders/detail', { status: 400, json: { code: -1021, msg: 'Timestamp outside recvWindow' } });
    await expect(f.client.orderDetail({ orderId: 1 })).rejects.toMatchObject({ httpStatus: 400, exchangeCode: -1021 });
  });

  it('malformed JSON: ParseError on a read, UnknownOutcomeError on an order (the server did act)', async () => {
    f.server.on('GET', '/open/v1/common/symbols', { text: '{"code":0,"data":{"list":[' });
    const err = await f.client.symbols().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/GET \/open\/v1\/common\/symbols response body.*malformed JSON/);
    f.server.on('POST', '/open/v1/orders', { text: '<html>ok</html>' });
    const err2 = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-1' }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(UnknownOutcomeError);
    expect(err2).toMatchObject({ clientId: 'c-1', httpStatus: 200 });
    expect((err2 as Error).cause).toBeInstanceOf(ParseError);
  });

  it('a payload of the wrong shape names the field', async () => {
    f.server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok({ ...wireAccount, accountAssets: [{ asset: 'BTC', free: 'lots', locked: '0' }] }) })));
    await expect(f.client.account()).rejects.toThrow(/account\.accountAssets\[0\]\.free/);
  });

  it('timeout: a read becomes NetworkError after bounded retries; an order becomes UnknownOutcomeError after one request', async () => {
    const slow = f.makeClient({ timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    try {
      f.server.on('GET', '/open/v1/common/time', { hang: true });
      f.server.on('POST', '/open/v1/orders', { hang: true });
      await expect(slow.time()).rejects.toBeInstanceOf(NetworkError);
      expect(f.server.received('GET', '/open/v1/common/time')).toHaveLength(2);
      const err = await slow.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownOutcomeError);
      expect((err as UnknownOutcomeError).clientId).toBe(f.server.only('POST', '/open/v1/orders').params.clientId);
      expect((err as Error).message).toMatch(/timeout/);
    } finally {
      await slow.close();
    }
  });

  it('a connection reset after the request went out: an order or a cancel is an unknown outcome (sent once), a read is retried', async () => {
    f.server.on('POST', '/open/v1/orders', { reset: true });
    f.server.on('POST', '/open/v1/orders/cancel', { reset: true });
    f.server.on('GET', '/open/v1/orders/detail', { reset: true });
    const placed = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-reset' }).catch((e: unknown) => e);
    expect(placed).toBeInstanceOf(UnknownOutcomeError);
    expect(placed).toMatchObject({ clientId: 'c-reset' });
    const cancelled = await f.client.cancelOrder({ clientId: 'c-reset' }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(UnknownOutcomeError);
    const read = await f.client.orderDetail({ orderId: '1' }).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(NetworkError);
    expect(f.server.received('POST', '/open/v1/orders')).toHaveLength(1);
    expect(f.server.received('POST', '/open/v1/orders/cancel')).toHaveLength(1);
    expect(f.server.received('GET', '/open/v1/orders/detail')).toHaveLength(3);
    // None of these errors may carry the credentials or the request's signature.
    const signature = f.server.only('POST', '/open/v1/orders').params.signature ?? 'no signature';
    expectNoSecrets([], [placed, cancelled, read], [OPEN_KEY, OPEN_SECRET, signature]);
  });

  it('connection refused on an order is a NetworkError (nothing was sent), not an unknown outcome', async () => {
    const gone = await LoopbackServer.start();
    const url = gone.url;
    await gone.close();
    const c = new OpenClient({ baseUrl: url, marketUrl: url, depthUrl: url, apiKey: OPEN_KEY, apiSecret: OPEN_SECRET, clock: f.clock, retry: FAST_RETRY });
    try {
      await expect(c.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '1' })).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await c.close();
    }
  });

  it('recvWindow above 60000 is refused at construction and per call', async () => {
    expect(() => f.makeClient({ recvWindow: 60_001 })).toThrow(ValidationError);
    await expect(f.client.account({ recvWindow: 120_000 })).rejects.toThrow(/recvWindow/);
    expect(f.server.requests).toHaveLength(0);
  });

  it('SIGNED endpoints without credentials are refused before sending', async () => {
    const anon = new OpenClient({ baseUrl: f.server.url, marketUrl: f.server.url, depthUrl: f.server.url });
    try {
      await expect(anon.account()).rejects.toThrow(/API key/);
      expect(f.server.requests).toHaveLength(0);
    } finally {
      await anon.close();
    }
  });

  it('an order id above 2^53 keeps every digit', async () => {
    const body = JSON.stringify(ok({ ...wireOrderDetail, orderId: 'BIG' }, 'message')).replace('"BIG"', '4611875134427364999');
    f.server.on('GET', '/open/v1/orders/detail', signed(() => ({ text: body })));
    expect((await f.client.orderDetail({ orderId: '4611875134427364999' })).orderId).toBe('4611875134427364999');
    expect(f.server.only('GET', '/open/v1/orders/detail').query.orderId).toBe('4611875134427364999');
  });
});
