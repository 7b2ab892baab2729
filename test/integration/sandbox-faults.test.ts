/**
 * Fault injection through the in-process controller and the admin HTTP endpoint: maintenance,
 * 5XX before/after an order is accepted, cancels spoiled after or instead of applying them,
 * black-holed and delayed responses, forced 429/418/403, orders rejected after acceptance, and
 * answers saying SYSTEM_PROCESSING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { legacyHeaders, signedQuery } from '../../src/sandbox/test-signing.js';

const A = TEST_ACCOUNTS.alice;
let sbx: RunningSandbox;

const signed = (params: string): string => signedQuery(params, A.secret);

async function admin(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${sbx.urls.admin_url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function order(clientId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${sbx.urls.base_url}/open/v1/orders?${signed(`symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.01&price=59000&clientId=${clientId}`)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': A.apiKey } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function cancel(clientId: string): Promise<{ status: number; body: Record<string, unknown> } | Error> {
  try {
    const r = await fetch(`${sbx.urls.base_url}/open/v1/orders/cancel?${signed(`clientId=${clientId}`)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': A.apiKey } });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  } catch (e) {
    return e as Error;
  }
}

let legacyNonce = 1_000;
async function legacyOrder(params: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> } | Error> {
  const headers = legacyHeaders(JSON.stringify({ nonce: ++legacyNonce, ...params }), A.apiKey, A.secret);
  try {
    const r = await fetch(`${sbx.urls.legacy_base_url}/v1/order`, { method: 'POST', headers });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  } catch (e) {
    return e as Error;
  }
}

const openClientIds = (): string[] => sbx.engine.openOrders('alice', 'BTC_USDT').map((o) => o.clientId);

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  sbx.state.exec((e, now) => e.applyDepthSnapshot('BTC_USDT', { bids: [{ price: new Decimal('59990'), qty: new Decimal('1') }], asks: [{ price: new Decimal('60010'), qty: new Decimal('1') }] }, now));
});
afterAll(async () => {
  await sbx.stop();
});

describe('faults', () => {
  it('5XX before acceptance: no order; 5XX after acceptance: the order exists', async () => {
    expect((await admin('/faults/fail-orders', { when: 'before', status: 503 })).body).toEqual({ ok: true });
    const before = await order('f-before');
    expect(before.status).toBe(503);
    expect(openClientIds()).not.toContain('f-before');
    sbx.faults.failOrders('after', { status: 502 });
    const after = await order('f-after');
    expect(after.status).toBe(502);
    expect(openClientIds()).toContain('f-after');
    // One-shot: the next order is answered normally.
    expect((await order('f-normal')).status).toBe(200);
  });

  it('rejected after acceptance: answered NEW, then REJECTED on the engine with an executionReport carrying the reason', async () => {
    expect((await admin('/faults/reject-orders', { reason: 'NOPE' })).status).toBe(400);
    expect((await admin('/faults/reject-orders', { reason: 'TRADING_DISABLED' })).body).toEqual({ ok: true });
    const reports: Record<string, unknown>[] = [];
    const off = sbx.engine.subscribe((ev) => {
      if (ev.type === 'executionReport' && ev.c === 'r-rejected') reports.push({ x: ev.x, X: ev.X, r: ev.r });
    });
    const placed = await order('r-rejected');
    off();
    expect(placed.status).toBe(200);
    expect((placed.body.data as Record<string, unknown>).status).toBe(0);
    expect(reports).toEqual([
      { x: 'NEW', X: 'NEW', r: 'NONE' },
      { x: 'REJECTED', X: 'REJECTED', r: 'TRADING_DISABLED' },
    ]);
    expect(openClientIds()).not.toContain('r-rejected');
    expect(sbx.engine.allOrders('alice', 'BTC_USDT').find((o) => o.clientId === 'r-rejected')?.status).toBe('REJECTED');
    // One-shot, and the locked quote was released: the next order rests normally.
    expect((await order('r-normal')).status).toBe(200);
    expect(openClientIds()).toContain('r-normal');
  });

  it('SYSTEM_PROCESSING: the next answers about the order say status -2, then the real status', async () => {
    expect((await order('p-1')).status).toBe(200);
    const id = sbx.engine.openOrders('alice', 'BTC_USDT').find((o) => o.clientId === 'p-1')?.orderId ?? '';
    const detail = async (): Promise<unknown> => {
      const r = await fetch(`${sbx.urls.base_url}/open/v1/orders/detail?${signed(`orderId=${id}`)}`, { headers: { 'X-MBX-APIKEY': A.apiKey } });
      return ((await r.json()) as { data: { status: number } }).data.status;
    };
    expect((await admin('/faults/processing-status', { orderId: 'other', count: 1 })).body).toEqual({ ok: true });
    expect(await detail()).toBe(0);
    expect((await admin('/faults/processing-status', { orderId: Number(id), count: 2 })).body).toEqual({ ok: true });
    expect(await detail()).toBe(-2);
    const r = await fetch(`${sbx.urls.base_url}/open/v1/orders?${signed('symbol=BTC_USDT&type=1')}`, { headers: { 'X-MBX-APIKEY': A.apiKey } });
    const listed = ((await r.json()) as { data: { list: { orderId: number; status: number }[] } }).data.list;
    expect(listed.find((o) => String(o.orderId) === id)?.status).toBe(-2);
    expect(await detail()).toBe(0);
    sbx.faults.clear();
  });

  it('cancel faults on the open API: applied then 5XX, applied then dropped, 5XX without applying; then answered normally', async () => {
    for (const id of ['c-5xx', 'c-drop', 'c-refused']) expect((await order(id)).status).toBe(200);
    expect((await admin('/faults/fail-cancels', { mode: 'apply-then-5xx', status: 502, scope: 'open' })).body).toEqual({ ok: true });
    const applied = await cancel('c-5xx');
    expect(applied).not.toBeInstanceOf(Error);
    expect((applied as { status: number }).status).toBe(502);
    expect(openClientIds()).not.toContain('c-5xx');

    sbx.faults.failCancels('apply-then-drop', { scope: 'open' });
    const dropped = await cancel('c-drop');
    // No answer at all: the client sees the socket close, not a status.
    expect(dropped).toBeInstanceOf(Error);
    expect(openClientIds()).not.toContain('c-drop');

    sbx.faults.failCancels('5xx-without-apply', { scope: 'open', count: 2 });
    for (let i = 0; i < 2; i++) {
      const refused = await cancel('c-refused');
      expect((refused as { status: number }).status).toBe(500);
      expect(openClientIds()).toContain('c-refused');
    }
    const settled = await cancel('c-refused');
    expect((settled as { status: number }).status).toBe(200);
    expect(openClientIds()).not.toContain('c-refused');
  });

  it('cancel faults on the legacy /v1 cancel (submission "2"), scoped away from the open API', async () => {
    const place = async (): Promise<number> => {
      const r = (await legacyOrder({ submission: '1', side: 'buy', type: 'limit', quantity: 0.001, price: 990000000, currency: 'btc' })) as { status: number; body: { data: { orderId: number } } };
      expect(r.status).toBe(200);
      return r.body.data.orderId;
    };
    const liveIds = (): number[] => sbx.engine.openOrders('alice', 'BTC_IDR').map((o) => Number(o.orderId));
    const a = await place();
    const b = await place();
    const c = await place();
    sbx.faults.failCancels('apply-then-5xx', { scope: 'legacy', status: 503 });
    // An open API cancel does not use a legacy-scoped fault.
    expect((await cancel('no-such-order')) as { status: number }).toHaveProperty('status', 400);
    expect(((await legacyOrder({ submission: '2', orderId: a })) as { status: number }).status).toBe(503);
    expect(liveIds()).not.toContain(a);
    expect((await admin('/faults/fail-cancels', { mode: 'apply-then-drop', scope: 'legacy' })).status).toBe(200);
    expect(await legacyOrder({ submission: '2', orderId: b })).toBeInstanceOf(Error);
    expect(liveIds()).not.toContain(b);
    sbx.faults.failCancels('5xx-without-apply', { scope: 'legacy' });
    expect(((await legacyOrder({ submission: '2', orderId: c })) as { status: number }).status).toBe(500);
    expect(liveIds()).toContain(c);
    expect(((await legacyOrder({ submission: '2', orderId: c })) as { status: number }).status).toBe(200);
    expect(liveIds()).not.toContain(c);
  });

  it('maintenance answers 503 on the open API only', async () => {
    await admin('/faults/maintenance', { scope: 'open' });
    const r = await fetch(`${sbx.urls.base_url}/open/v1/common/time`);
    expect(r.status).toBe(503);
    expect(((await r.json()) as { code: number }).code).not.toBe(0);
    expect((await fetch(`${sbx.urls.legacy_base_url}/v1/rates/tickers`)).status).toBe(200);
    await admin('/faults/maintenance', { scope: 'legacy' });
    expect((await fetch(`${sbx.urls.legacy_base_url}/v1/rates/tickers`)).status).toBe(503);
    expect((await fetch(`${sbx.urls.base_url}/open/v1/common/time`)).status).toBe(200);
    await admin('/faults/maintenance', { scope: null });
    expect((await fetch(`${sbx.urls.legacy_base_url}/v1/rates/tickers`)).status).toBe(200);
  });

  it('black hole: the request is never answered (the client times out); delay: answered later', async () => {
    await admin('/faults/blackhole', { pathPrefix: '/open/v1/common/time', count: 1 });
    const err = await fetch(`${sbx.urls.base_url}/open/v1/common/time`, { signal: AbortSignal.timeout(300) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TimeoutError');
    expect((await fetch(`${sbx.urls.base_url}/open/v1/common/time`)).status).toBe(200);
    sbx.faults.delay(200, { pathPrefix: '/open/v1/common/time', count: 1 });
    const slow = await fetch(`${sbx.urls.base_url}/open/v1/common/time`, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect((slow as Error).name).toBe('TimeoutError');
  });

  it('forced 429 answers 429 with Retry-After on every host of the open API; forced 418 is a ban', async () => {
    expect((await admin('/faults/rate-limit', { status: 429, seconds: 30 })).status).toBe(200);
    for (const url of [`${sbx.urls.market_url}/api/v3/depth?symbol=BTCUSDT`, `${sbx.urls.base_url}/open/v1/common/time`]) {
      const r = await fetch(url);
      expect(r.status, url).toBe(429);
      expect(Number(r.headers.get('retry-after')), url).toBeGreaterThanOrEqual(29);
      expect(((await r.json()) as { code: number }).code, url).toBe(-1003);
    }
    sbx.weights.reset();
    sbx.faults.forceRateLimit(418, 5);
    const banned = await fetch(`${sbx.urls.base_url}/open/v1/common/time`);
    expect([banned.status, banned.headers.get('retry-after')]).toEqual([418, '5']);
    sbx.weights.reset();
    expect((await fetch(`${sbx.urls.base_url}/open/v1/common/time`)).status).toBe(200);
  });

  it('forced 403 (web application firewall): every open API host answers 403 with an envelope and weight headers, no Retry-After', async () => {
    expect((await admin('/faults/rate-limit', { status: 403, seconds: 30 })).status).toBe(200);
    for (const url of [`${sbx.urls.base_url}/open/v1/common/time`, `${sbx.urls.market_url}/api/v3/depth?symbol=BTCUSDT`, `${sbx.urls.depth_url}/api/v1/depth?symbol=ALCH_IDR`]) {
      const r = await fetch(url);
      const body = (await r.json()) as Record<string, unknown>;
      expect(r.status, url).toBe(403);
      expect(body.code, url).not.toBe(0);
      expect(typeof body.msg, url).toBe('string');
      expect(r.headers.get('retry-after'), url).toBeNull();
      expect(r.headers.get('x-mbx-used-weight-1m'), url).not.toBeNull();
    }
    // A 403 is not a 429: sending on through it does not escalate to a 418 ban.
    expect((await fetch(`${sbx.urls.base_url}/open/v1/common/time`)).status).toBe(403);
    sbx.weights.reset();
    expect((await fetch(`${sbx.urls.base_url}/open/v1/common/time`)).status).toBe(200);
  });

  it('admin refuses malformed actions with a reason', async () => {
    const r = await admin('/faults/fail-orders', { when: 'sometimes' });
    expect(r.status).toBe(400);
    expect(String(r.body.error)).toContain('when');
    const c = await admin('/faults/fail-cancels', { mode: 'sometimes' });
    expect(c.status).toBe(400);
    expect(String(c.body.error)).toContain('mode');
    expect((await admin('/faults/nope', {})).status).toBe(404);
    const status = (await (await fetch(`${sbx.urls.admin_url}/status`)).json()) as Record<string, unknown>;
    expect(status).toHaveProperty('connections');
  });

  it('reference price set through the admin endpoint is served by /api/v3/referencePrice', async () => {
    await admin('/reference-price', { symbol: 'BTC_USDT', price: '61000' });
    const r = (await (await fetch(`${sbx.urls.market_url}/api/v3/referencePrice?symbol=BTCUSDT`)).json()) as Record<string, unknown>;
    expect(r.referencePrice).toBe('61000');
  });
});
