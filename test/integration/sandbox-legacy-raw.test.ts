/**
 * The sandbox's legacy /v1 interface with hand-built requests: header signing computed with
 * node:crypto (test-signing.ts, independent of src/core), increasing nonces, 401 for a wrong key, the envelope,
 * the un-enveloped order book, and the 60-per-endpoint-per-minute limit answered with err_str.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ManualClock, TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { legacyHeaders } from '../../src/sandbox/test-signing.js';

const A = TEST_ACCOUNTS.alice;
let sbx: RunningSandbox;
let nonce = 1_000;

function headers(params: Record<string, unknown>, key: string = A.apiKey, secret: string = A.secret): Record<string, string> {
  return legacyHeaders(JSON.stringify(params), key, secret);
}

async function call(method: string, path: string, h: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${sbx.urls.legacy_base_url}${path}`, { method, headers: h });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  sbx.state.exec((e, now) =>
    e.applyDepthSnapshot('BTC_IDR', { bids: [{ price: new Decimal('999999000'), qty: new Decimal('0.5') }], asks: [{ price: new Decimal('1000001000'), qty: new Decimal('0.25') }] }, now),
  );
});
afterAll(async () => {
  await sbx.stop();
});

describe('legacy /v1', () => {
  it('account: success envelope with message_code and numeric amounts', async () => {
    const r = await call('GET', '/v1/account', headers({ nonce: ++nonce }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message_code: 'get_account_success' });
    const idr = (r.body.data as { Balance: Record<string, unknown>[] }).Balance.find((b) => b.Currency === 'IDR');
    expect(idr).toEqual({ Amount: 100000000000, AvailableBalance: 100000000000, Status: 'active', Currency: 'IDR' });
  });

  it('nonce must increase: a repeated or smaller nonce is refused', async () => {
    const n = ++nonce;
    expect((await call('GET', '/v1/order/list', headers({ nonce: n }))).status).toBe(200);
    const again = await call('GET', '/v1/order/list', headers({ nonce: n }));
    expect([again.status, again.body.success, again.body.message_code]).toEqual([400, false, 'invalid_nonce']);
  });

  it('401 for a wrong key and for a bad signature', async () => {
    expect((await call('GET', '/v1/account', headers({ nonce: ++nonce }, 'nobody'))).status).toBe(401);
    expect((await call('GET', '/v1/account', headers({ nonce: ++nonce }, A.apiKey, 'not-the-secret'))).status).toBe(401);
  });

  it('the signature is the lowercase hex digest: the same digest in upper case is refused (401)', async () => {
    // Unlike the open API ("comparison is not case sensitive"), the legacy spec defines the value as lowercase hex.
    const h = headers({ nonce: ++nonce });
    const upper = await call('GET', '/v1/account', { ...h, 'X-TC-SIGNATURE': (h['X-TC-SIGNATURE'] as string).toUpperCase() });
    expect([upper.status, upper.body.success, upper.body.message_code]).toEqual([401, false, 'invalid_signature']);
    expect((await call('GET', '/v1/account', headers({ nonce: ++nonce }))).status).toBe(200);
  });

  it('create (submission 1) and read back: active list uses Status/Match, detail uses status', async () => {
    const c = await call('POST', '/v1/order', headers({ nonce: ++nonce, submission: '1', side: 'buy', type: 'limit', quantity: 0.001, price: 990000000, currency: 'btc' }));
    expect(c.body).toMatchObject({ success: true, message_code: 'create_order_success' });
    const id = (c.body.data as { orderId: number }).orderId;
    const list = await call('GET', '/v1/order/list', headers({ nonce: ++nonce }));
    expect(list.body.data).toEqual([
      { orderId: id, type: 'limit', side: 'buy', currencyPair: 'BTCIDR', quantity: 0.001, availableQuantity: 0.001, postOnly: false, price: 990000000, Status: 'active', Match: null, dateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
    ]);
    const one = await call('GET', '/v1/order/get', headers({ nonce: ++nonce, orderId: id }));
    expect(one.body).toMatchObject({ message_code: 'get_detail_order_success', data: { orderId: id, status: 'active' } });
    expect(one.body.data).not.toHaveProperty('Match');
    const all = await call('POST', '/v1/order', headers({ nonce: ++nonce, submission: '3' }));
    expect(all.body).toMatchObject({ success: true, message_code: 'cancel_all_order_success', data: expect.any(String) });
  });

  it('payload fields have the types of the spec: submission a string, quantity/price/amount numbers, currency a lower-case code', async () => {
    const order = { side: 'buy', type: 'limit', quantity: 0.001, price: 990000000, currency: 'btc' };
    const refused = async (params: Record<string, unknown>, path = '/v1/order'): Promise<unknown[]> => {
      const r = await call('POST', path, headers({ nonce: ++nonce, ...params }));
      return [r.status, r.body.success, r.body.message_code];
    };
    const bad = [400, false, 'invalid_parameter'];
    expect(await refused({ ...order, submission: 1 })).toEqual(bad);
    expect(await refused({ ...order, submission: '1', quantity: '0.001' })).toEqual(bad);
    expect(await refused({ ...order, submission: '1', price: '990000000' })).toEqual(bad);
    expect(await refused({ ...order, submission: '1', currency: 'BTC' })).toEqual(bad);
    expect(await refused({ submission: 3 })).toEqual(bad);
    expect(await refused({ currency: 'btc', side: 'buy', amount: '100000' }, '/v1/stp')).toEqual(bad);
    const ok = await call('POST', '/v1/order', headers({ nonce: ++nonce, ...order, submission: '1' }));
    expect(ok.body).toMatchObject({ success: true, message_code: 'create_order_success' });
    expect((await call('POST', '/v1/order', headers({ nonce: ++nonce, submission: '3' }))).body.success).toBe(true);
  });

  it('a quantity JavaScript prints in exponent form (5e-7) is still a positive JSON number', async () => {
    // A symbol whose step allows it; JSON.parse gives 5e-7, which must not be refused as malformed.
    const fine = await startSandbox(
      testSandboxConfig((doc) => {
        const btc = doc.symbols.find((x) => x.symbol === 'BTC_IDR');
        if (btc) btc.filters = [{ filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '100000000000', tickSize: '1' }, { filterType: 'LOT_SIZE', minQty: '0.00000001', maxQty: '100000', stepSize: '0.00000001' }];
      }),
      { quiet: true },
    );
    try {
      const json = '{"nonce":1,"submission":"1","side":"buy","type":"limit","quantity":0.0000005,"price":990000000,"currency":"btc"}';
      const r = await fetch(`${fine.urls.legacy_base_url}/v1/order`, { method: 'POST', headers: legacyHeaders(json, A.apiKey, A.secret) });
      const body = (await r.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ success: true, message_code: 'create_order_success', data: { quantity: 5e-7, price: 990000000 } });
    } finally {
      await fine.stop();
    }
  });

  it('order book: no envelope, number pairs, timestamp, page', async () => {
    const r = await call('GET', '/v1/orderbook/btcidr?page=0');
    expect(r.body).toEqual({ bids: [[999999000, 0.5]], asks: [[1000001000, 0.25]], timestamp: expect.any(Number) });
    const p1 = await call('GET', '/v1/orderbook/btcidr?page=1');
    expect(p1.body).toMatchObject({ bids: [], asks: [] });
    expect((await call('GET', '/v1/orderbook/nopeidr')).status).toBe(404);
  });

  it('rates is POST; GET on it is 405; ticker checks pair and type', async () => {
    const r = await call('POST', '/v1/rates');
    expect(r.body).toMatchObject({ success: true, message_code: 'get_rates_success' });
    expect((r.body.data as Record<string, unknown>[]).find((x) => x.currencyPair === 'btcidr')).toEqual({ currencyPair: 'btcidr', buy: 1000001000, sell: 999999000 });
    expect((await call('GET', '/v1/rates')).status).toBe(405);
    const t = await call('GET', '/v1/rates/ticker?currencyPair=btcidr&type=hours');
    expect(t.body).toMatchObject({ message_code: 'get_ticker_success', data: { Name: 'BTCIDR', Buy: 999999000, Sell: 1000001000, DateTime: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) } });
    expect((await call('GET', '/v1/rates/ticker?currencyPair=btcidr&type=weeks')).status).toBe(400);
  });

  it('60 requests per endpoint per minute, then err_str: limit exceeded (other endpoints unaffected)', async () => {
    // A clock that stands still keeps all 61 requests in one minute window.
    const fresh = await startSandbox(testSandboxConfig(), { quiet: true, clock: new ManualClock() });
    try {
      const statuses: number[] = [];
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 61; i++) {
        const r = await fetch(`${fresh.urls.legacy_base_url}/v1/rates/tickers`);
        statuses.push(r.status);
        last = (await r.json()) as Record<string, unknown>;
      }
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
      expect(statuses[60]).toBe(429);
      expect(last).toEqual({ err_str: 'limit exceeded' });
      expect((await fetch(`${fresh.urls.legacy_base_url}/v1/orderbook/btcidr`)).status).toBe(200);
    } finally {
      await fresh.stop();
    }
  });
});
