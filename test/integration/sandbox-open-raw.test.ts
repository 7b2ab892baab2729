/**
 * The sandbox's open API over real HTTP with hand-built requests: envelopes, signatures
 * (query-only, body-only, mixed, upper-case hex), the timing window, key restrictions, weights
 * and order-count headers, routing by symbol type, and a deliberately wrong client (bad
 * signature, stale timestamp, too many requests) refused as the spec says.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ManualClock, TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { hmacHex as hmac, signedQuery as signQuery } from '../../src/sandbox/test-signing.js';

const A = TEST_ACCOUNTS.alice;
let sbx: RunningSandbox;

interface Res {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(method: string, url: string, opts: { key?: string; query?: string; body?: string } = {}): Promise<Res> {
  const r = await fetch(`${url}${opts.query ? `?${opts.query}` : ''}`, {
    method,
    headers: { ...(opts.key ? { 'X-MBX-APIKEY': opts.key } : {}), ...(opts.body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
}

/** A GET whose parameters travel in a form body (fetch refuses a GET body, so node:http). */
function getWithBody(url: string, body: string, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: { ...(key ? { 'X-MBX-APIKEY': key } : {}), 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A signed request with everything in the query string (alice's secret unless told). */
const signedQuery = (params: string, secret: string = A.secret, ts = Date.now()): string => signQuery(params, secret, ts);

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  sbx.state.exec((e, now) =>
    e.applyDepthSnapshot(
      'BTC_USDT',
      {
        bids: [{ price: new Decimal('59990'), qty: new Decimal('1') }, { price: new Decimal('59980'), qty: new Decimal('2') }],
        asks: [{ price: new Decimal('60010'), qty: new Decimal('1') }, { price: new Decimal('60020'), qty: new Decimal('2') }],
      },
      now,
    ),
  );
});
afterAll(async () => {
  await sbx.stop();
});

describe('envelopes and weights', () => {
  it('common/time: code 0, msg, numeric timestamp, used-weight header', async () => {
    const r = await call('GET', `${sbx.urls.base_url}/open/v1/common/time`);
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.msg).toBe('success');
    expect(typeof r.body.timestamp).toBe('number');
    expect(Number(r.headers.get('x-mbx-used-weight-1m'))).toBeGreaterThan(0);
  });

  it('common/symbols: data.list with types, filters carrying applyToMarket, integer flags', async () => {
    const r = await call('GET', `${sbx.urls.base_url}/open/v1/common/symbols`);
    const list = (r.body.data as { list: Record<string, unknown>[] }).list;
    expect(list.map((s) => [s.symbol, s.type])).toEqual([
      ['BTC_USDT', 1],
      ['BTC_IDR', 1],
      ['DOGE_IDR', 2],
      ['ALCH_IDR', 3],
    ]);
    const btc = list[0] as Record<string, unknown>;
    expect(btc.icebergEnable).toBe(1);
    expect((btc.filters as Record<string, unknown>[]).every((f) => 'applyToMarket' in f)).toBe(true);
    expect(btc.allowedSelfTradePreventionModes).toContain('DECREMENT');
  });

  it('system-config carries the WebSocket API address in *WssApiBaseUrl fields', async () => {
    const r = await call('GET', `${sbx.urls.base_url}/v1/common/system-config`);
    const data = r.body.data as Record<string, unknown>;
    const key = Object.keys(data).find((k) => k.endsWith('WssApiBaseUrl')) as string;
    expect(data[key]).toBe(sbx.urls.ws_api_url);
    expect(data[`${key}List`]).toEqual([sbx.urls.ws_api_url]);
  });

  it('a request refused before routing (malformed path) still carries the weight header', async () => {
    // "Header on every response": X-MBX-USED-WEIGHT-* also on these early 4XX answers.
    const raw = (url: string, path: string): Promise<{ status: number; weight: unknown }> => {
      const u = new URL(url);
      return new Promise((resolve, reject) => {
        const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, weight: res.headers['x-mbx-used-weight-1m'] }));
        });
        req.on('error', reject);
        req.end();
      });
    };
    for (const url of [sbx.urls.base_url, sbx.urls.market_url, sbx.urls.depth_url]) {
      const bad = await raw(url, '/open/v1/%E0%A4%A');
      expect(bad.status, url).toBe(400);
      expect(bad.weight, url).toEqual(expect.any(String));
    }
  });

  it('unknown path: 404 with an envelope and still a weight header', async () => {
    const r = await call('GET', `${sbx.urls.base_url}/open/v1/nope`);
    expect(r.status).toBe(404);
    expect(r.body.code).not.toBe(0);
    expect(r.headers.get('x-mbx-used-weight-1m')).not.toBeNull();
  });
});

describe('signatures (totalParams = query string + body)', () => {
  const order = 'symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.001&price=59000';

  it('query only: accepted, new-order envelope uses message/messageDetail/success and sends order counts', async () => {
    const r = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery(order) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: 0, message: 'success', messageDetail: null, success: true });
    expect(r.body).not.toHaveProperty('msg');
    const o = r.body.data as Record<string, unknown>;
    expect(o).toMatchObject({ symbol: 'BTC_USDT', symbolType: 1, side: 0, type: 1, timeInForce: 1, status: 0, price: '59000', origQty: '0.001', bOrderListId: -1 });
    expect(typeof o.orderId).toBe('number');
    expect(o.borderId).toBe(o.bOrderId);
    expect(r.headers.get('x-mbx-order-count-10s')).toBe('1');
    expect(r.headers.get('x-mbx-order-count-1d')).toBe('1');
  });

  it('body only, and mixed query + body (concatenated with nothing between)', async () => {
    const ts = Date.now();
    const body = `${order}&timestamp=${ts}`;
    const r1 = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, body: `${body}&signature=${hmac(A.secret, body)}` });
    expect(r1.body.code).toBe(0);
    const q = 'symbol=BTC_USDT&side=0&type=1';
    const b = `timeInForce=1&quantity=0.001&price=59000&timestamp=${ts}`;
    const r2 = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: q, body: `${b}&signature=${hmac(A.secret, q + b)}` });
    expect(r2.body.code).toBe(0);
    // The same mixed request signed with an '&' inserted between the parts is refused.
    const r3 = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: q, body: `${b}&signature=${hmac(A.secret, `${q}&${b}`)}` });
    expect([r3.status, r3.body.code]).toEqual([401, -1022]);
  });

  it('GET parameters are read from the query string only: the same parameters in a GET body are not seen', async () => {
    // The spec: "GET parameters are sent in the query string" (only POST may use a body).
    const signedGet = await getWithBody(`${sbx.urls.base_url}/open/v1/account/spot/asset`, signedQuery('asset=BTC'), A.apiKey);
    expect([signedGet.status, signedGet.body.code]).toEqual([400, -1102]);
    expect(String(signedGet.body.msg)).toContain("'timestamp'");
    const market = await getWithBody(`${sbx.urls.market_url}/api/v3/depth`, 'symbol=BTCUSDT&limit=5');
    expect([market.status, market.body.code]).toEqual([400, -1102]);
    expect(String(market.body.msg)).toContain("'symbol'");
  });

  it('hex comparison is case-insensitive', async () => {
    const q = `timestamp=${Date.now()}`;
    const r = await call('GET', `${sbx.urls.base_url}/open/v1/account/spot`, { key: A.apiKey, query: `${q}&signature=${hmac(A.secret, q).toUpperCase()}` });
    expect(r.body.code).toBe(0);
  });

  it('a deliberately wrong client is refused: bad signature, wrong/missing key, stale or future timestamp, recvWindow > 60000', async () => {
    const url = `${sbx.urls.base_url}/open/v1/account/spot`;
    const q = `timestamp=${Date.now()}`;
    const bad = await call('GET', url, { key: A.apiKey, query: `${q}&signature=${hmac('wrong-secret', q)}` });
    expect([bad.status, bad.body.code, bad.body.msg]).toEqual([401, -1022, 'Signature for this request is not valid.']);
    const wrongKey = await call('GET', url, { key: 'no-such-key', query: signedQuery('') });
    expect([wrongKey.status, wrongKey.body.code]).toEqual([401, -2015]);
    const noKey = await call('GET', url, { query: signedQuery('') });
    expect([noKey.status, noKey.body.code]).toEqual([401, -2014]);
    const stale = await call('GET', url, { key: A.apiKey, query: signedQuery('', A.secret, Date.now() - 6000) });
    expect([stale.status, stale.body.code]).toEqual([400, -1021]);
    const staleOk = await call('GET', url, { key: A.apiKey, query: signedQuery('recvWindow=10000', A.secret, Date.now() - 6000) });
    expect(staleOk.body.code).toBe(0);
    const future = await call('GET', url, { key: A.apiKey, query: signedQuery('', A.secret, Date.now() + 1500) });
    expect([future.status, future.body.code]).toEqual([400, -1021]);
    const rw = await call('GET', url, { key: A.apiKey, query: signedQuery('recvWindow=60001') });
    expect([rw.status, rw.body.code]).toEqual([400, -1131]);
    const noTs = await call('GET', url, { key: A.apiKey, query: `signature=${hmac(A.secret, '')}` });
    expect([noTs.status, noTs.body.code]).toEqual([400, -1102]);
  });

  it('keys restricted to security types: carol (API_KEY only) may create a listen key but not sign', async () => {
    const C = TEST_ACCOUNTS.carol;
    const signed = await call('GET', `${sbx.urls.base_url}/open/v1/account/spot`, { key: C.apiKey, query: signedQuery('', C.secret) });
    expect([signed.status, signed.body.code]).toEqual([401, -2015]);
    const lk = await call('POST', `${sbx.urls.base_url}/open/v1/user-data-stream`, { key: C.apiKey });
    expect(lk.body.code).toBe(0);
    expect(lk.body.data).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('orders and account', () => {
  it('detail, list, cancel by clientId, account trades after a fill, with the spec field types', async () => {
    const place = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&side=1&type=1&timeInForce=1&quantity=0.5&price=60100&clientId=raw-sell-1') });
    expect(place.body.code).toBe(0);
    const id = (place.body.data as { orderId: number }).orderId;
    const detail = await call('GET', `${sbx.urls.base_url}/open/v1/orders/detail`, { key: A.apiKey, query: signedQuery(`orderId=${id}`) });
    expect(detail.body).toMatchObject({ code: 0, message: 'success' });
    expect(detail.body.data).toMatchObject({ orderId: id, clientId: 'raw-sell-1', taxFeeAsset: expect.any(String), taxFee: expect.any(String) });
    const list = await call('GET', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&type=1') });
    expect((list.body.data as { list: { clientId: string }[] }).list.map((o) => o.clientId)).toContain('raw-sell-1');
    const cancel = await call('POST', `${sbx.urls.base_url}/open/v1/orders/cancel`, { key: A.apiKey, query: signedQuery('clientId=raw-sell-1') });
    expect(cancel.body).toMatchObject({ code: 0, message: 'success', data: { status: 3, clientId: 'raw-sell-1' } });
    const again = await call('POST', `${sbx.urls.base_url}/open/v1/orders/cancel`, { key: A.apiKey, query: signedQuery('orderId=999999') });
    expect([again.status, again.body.code]).toEqual([400, -2013]);
    expect(again.body).toHaveProperty('message');

    // Bob sells into Alice's 59000 bids? No: sell at market into the book's 59990 bid.
    const B = TEST_ACCOUNTS.bob;
    const mkt = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: B.apiKey, query: signedQuery('symbol=BTC_USDT&side=1&type=2&quantity=0.01', B.secret) });
    expect(mkt.body).toMatchObject({ code: 0, data: { status: 2, executedQty: '0.01' } });
    const trades = await call('GET', `${sbx.urls.base_url}/open/v1/orders/trades`, { key: B.apiKey, query: signedQuery('symbol=BTC_USDT', B.secret) });
    const t = (trades.body.data as { list: Record<string, unknown>[] }).list[0] as Record<string, unknown>;
    expect(t).toMatchObject({ symbol: 'BTC_USDT', price: '59990', qty: '0.01', isBuyer: 0, isMaker: 0, isBestMatch: 1 });
    for (const k of ['tradeId', 'orderId', 'matchId', 'quoteQty', 'commission', 'commissionAsset', 'taxAmount', 'taxRate', 'time']) expect(typeof t[k]).toBe('string');
  });

  it('missing per-type parameters and filter failures are refused with the order envelope', async () => {
    const r = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&side=0&type=4&quantity=0.001&price=60000') });
    expect([r.status, r.body.code, r.body.success]).toEqual([400, -1102, false]);
    expect(String(r.body.message)).toContain('stopPrice');
    const tick = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.001&price=59000.005') });
    expect([tick.status, tick.body.code]).toEqual([400, -2010]);
    expect(String(tick.body.message)).toContain('PRICE_FILTER');
    expect(tick.headers.get('x-mbx-order-count-10s')).toBeNull();
    const stp = await call('POST', `${sbx.urls.base_url}/open/v1/orders`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.001&price=59000&selfTradePreventionMode=3') });
    expect([stp.status, stp.body.code]).toEqual([400, -1130]);
  });

  it('account, asset, wallet: withdraw then history, deposits, deposit address', async () => {
    const acc = await call('GET', `${sbx.urls.base_url}/open/v1/account/spot`, { key: A.apiKey, query: signedQuery('') });
    const data = acc.body.data as Record<string, unknown>;
    expect(data).toMatchObject({ canTrade: 1, canWithdraw: 1, canDeposit: 1, makerCommission: '0.001' });
    const usdt = (data.accountAssets as { asset: string; free: string; locked: string }[]).find((a) => a.asset === 'USDT');
    expect(usdt && new Decimal(usdt.free).plus(usdt.locked).lte(1_000_000)).toBe(true);
    const w = await call('POST', `${sbx.urls.base_url}/open/v1/withdraws`, { key: A.apiKey, body: signedQuery('asset=IDR&address=1234567890&amount=100000&network=BCA') });
    expect(w.body.code).toBe(0);
    const withdrawId = (w.body.data as { withdrawId: string }).withdrawId;
    expect(typeof withdrawId).toBe('string');
    const hist = await call('GET', `${sbx.urls.base_url}/open/v1/withdraws`, { key: A.apiKey, query: signedQuery('asset=IDR') });
    expect((hist.body.data as { list: Record<string, unknown>[] }).list).toEqual([expect.objectContaining({ id: Number(withdrawId), asset: 'IDR', amount: '100000', fee: '0', status: 10 })]);
    const asset = await call('GET', `${sbx.urls.base_url}/open/v1/account/spot/asset`, { key: A.apiKey, query: signedQuery('asset=IDR') });
    expect(asset.body.data).toMatchObject({ asset: 'IDR', free: '99999900000' });
    const deps = await call('GET', `${sbx.urls.base_url}/open/v1/deposits`, { key: A.apiKey, query: signedQuery('asset=BTC') });
    expect((deps.body.data as { list: Record<string, unknown>[] }).list[0]).toMatchObject({ asset: 'BTC', amount: '10', status: 1, insertTime: expect.any(String) });
    const addr = await call('GET', `${sbx.urls.base_url}/open/v1/deposits/address`, { key: A.apiKey, query: signedQuery('asset=BTC&network=BTC') });
    expect(addr.body.data).toMatchObject({ asset: 'BTC', addressTag: '', address: expect.stringMatching(/^sbx/) });
  });

  it('listen keys (both paths) and listen tokens', async () => {
    const url = `${sbx.urls.base_url}/open/v1/private-n/user-data-stream`;
    const created = await call('POST', url, { key: A.apiKey });
    const key = created.body.data as string;
    expect((await call('PUT', url, { key: A.apiKey, query: `listenKey=${key}` })).body).toEqual({});
    expect((await call('DELETE', url, { key: A.apiKey, query: `listenKey=${key}` })).body).toEqual({});
    const gone = await call('PUT', url, { key: A.apiKey, query: `listenKey=${key}` });
    expect([gone.status, gone.body.code]).toEqual([400, -1125]);
    const token = await call('POST', `${sbx.urls.base_url}/open/v1/user-listen-token`, { key: A.apiKey, query: signedQuery('validity=60000') });
    const t = token.body.data as { token: string; expirationTime: number };
    expect(t.expirationTime - (token.body.timestamp as number)).toBe(60000);
    const tooLong = await call('POST', `${sbx.urls.base_url}/open/v1/user-listen-token`, { key: A.apiKey, query: signedQuery('validity=86400001') });
    expect(tooLong.status).toBe(400);
  });
});

describe('market data routing by symbol type', () => {
  it('type 1 on {market_url}/api/v3 without underscore; other hosts refuse it', async () => {
    const r = await call('GET', `${sbx.urls.market_url}/api/v3/depth`, { query: 'symbol=BTCUSDT&limit=5' });
    // The 59000 bids are Alice's resting orders from the tests above; 59990 was partly taken.
    expect(r.body).toEqual({ lastUpdateId: expect.any(Number), bids: [['59990', '0.99'], ['59980', '2'], ['59000', '0.003']], asks: [['60010', '1'], ['60020', '2']] });
    expect((await call('GET', `${sbx.urls.market_url}/api/v3/depth`, { query: 'symbol=BTC_USDT' })).body.code).toBe(-1121);
    expect((await call('GET', `${sbx.urls.depth_url}/api/v1/depth`, { query: 'symbol=BTC_USDT' })).body.code).toBe(-1121);
    expect((await call('GET', `${sbx.urls.market_url}/api/v3/depth`, { query: 'symbol=BTCUSDT&limit=7' })).body.code).toBe(-1130);
  });

  it('type 3 on {depth_url}/api/v1 with the envelope; type 2 trades on /open/v1/market/trades', async () => {
    const d = await call('GET', `${sbx.urls.depth_url}/api/v1/depth`, { query: 'symbol=ALCH_IDR&limit=5' });
    expect(d.body).toMatchObject({ code: 0, data: { bids: [], asks: [] } });
    const k = await call('GET', `${sbx.urls.depth_url}/api/v1/klines`, { query: 'symbol=ALCH_IDR&interval=1m' });
    expect(k.body).toMatchObject({ code: 0, data: [] });
    expect((await call('GET', `${sbx.urls.depth_url}/api/v1/klines`, { query: 'symbol=ALCH_IDR&interval=2m' })).body.code).toBe(-1130);
    const t = await call('GET', `${sbx.urls.base_url}/open/v1/market/trades`, { query: 'symbol=DOGE_IDR' });
    expect(t.body).toMatchObject({ code: 0, data: [] });
  });

  it('type 3 depth, aggTrades and klines moved to {depth_url}: the main host refuses them (its trades still serve type 3)', async () => {
    // Spec versioning: "Depth, aggregate trades, klines for symbol type 3 moved to the host {depth_url}".
    for (const path of ['depth', 'aggTrades', 'klines']) {
      const q = `symbol=ALCH_IDR${path === 'klines' ? '&interval=1m' : ''}`;
      const r = await call('GET', `${sbx.urls.base_url}/open/v1/market/${path}`, { query: q });
      expect([r.status, r.body.code], path).toEqual([400, -1121]);
      expect((await call('GET', `${sbx.urls.depth_url}/api/v1/${path}`, { query: q })).body.code, path).toBe(0);
    }
    expect((await call('GET', `${sbx.urls.base_url}/open/v1/market/trades`, { query: 'symbol=ALCH_IDR' })).body.code).toBe(0);
    expect((await call('GET', `${sbx.urls.base_url}/open/v1/market/depth`, { query: 'symbol=DOGE_IDR' })).body.code).toBe(0);
  });

  it('trades, aggTrades and klines reflect the engine trades', async () => {
    const trades = await call('GET', `${sbx.urls.market_url}/api/v3/trades`, { query: 'symbol=BTCUSDT' });
    expect(trades.body).toEqual(expect.arrayContaining([expect.objectContaining({ price: '59990', qty: '0.01', isBuyerMaker: true, isBestMatch: true })]));
    const aggs = (await call('GET', `${sbx.urls.market_url}/api/v3/aggTrades`, { query: 'symbol=BTCUSDT' })).body as unknown as Record<string, unknown>[];
    expect(aggs.at(-1)).toMatchObject({ p: '59990', q: '0.01', m: true });
    const klines = (await call('GET', `${sbx.urls.market_url}/api/v3/klines`, { query: 'symbol=BTCUSDT&interval=1m' })).body as unknown as unknown[][];
    const k = klines.at(-1) as unknown[];
    expect(k).toHaveLength(12);
    expect(k.slice(1, 6)).toEqual(['59990', '59990', '59990', '59990', '0.01']);
    expect(k[8]).toBe(1);
  });

  it('startTime and endTime bound aggTrades, klines, the order list and account trades; a negative bound is refused', async () => {
    const later = Date.now() + 3_600_000;
    const market = async (path: string, q: string): Promise<unknown[]> => (await call('GET', `${sbx.urls.market_url}/api/v3/${path}`, { query: q })).body as unknown as unknown[];
    for (const path of ['aggTrades', 'klines']) {
      const q = `symbol=BTCUSDT${path === 'klines' ? '&interval=1m' : ''}`;
      expect(await market(path, `${q}&startTime=0&endTime=${later}`), path).not.toHaveLength(0);
      expect(await market(path, `${q}&startTime=${later}`), path).toEqual([]);
      expect(await market(path, `${q}&endTime=1`), path).toEqual([]);
    }
    const B = TEST_ACCOUNTS.bob;
    const signedList = async (path: string, q: string): Promise<unknown[]> => {
      const r = await call('GET', `${sbx.urls.base_url}${path}`, { key: B.apiKey, query: signedQuery(q, B.secret) });
      return (r.body.data as { list: unknown[] }).list;
    };
    for (const path of ['/open/v1/orders', '/open/v1/orders/trades']) {
      const q = `symbol=BTC_USDT${path === '/open/v1/orders' ? '&type=-1' : ''}`;
      expect(await signedList(path, `${q}&startTime=0&endTime=${later}`), path).not.toHaveLength(0);
      expect(await signedList(path, `${q}&startTime=${later}`), path).toEqual([]);
      expect(await signedList(path, `${q}&endTime=1`), path).toEqual([]);
    }
    const bad = await call('GET', `${sbx.urls.market_url}/api/v3/aggTrades`, { query: 'symbol=BTCUSDT&endTime=-1' });
    expect([bad.status, bad.body.code]).toEqual([400, -1130]);
  });

  it('the length table bounds integer parameters: limit at most 4 characters, wallet status at most 2', async () => {
    const tooLong = async (r: Promise<Res>): Promise<unknown[]> => {
      const x = await r;
      return [x.status, x.body.code];
    };
    expect(await tooLong(call('GET', `${sbx.urls.market_url}/api/v3/depth`, { query: 'symbol=BTCUSDT&limit=00100' }))).toEqual([400, -1100]);
    for (const path of ['trades', 'aggTrades', 'klines']) {
      const q = `symbol=BTCUSDT${path === 'klines' ? '&interval=1m' : ''}`;
      expect(await tooLong(call('GET', `${sbx.urls.market_url}/api/v3/${path}`, { query: `${q}&limit=01000` })), path).toEqual([400, -1100]);
      expect((await call('GET', `${sbx.urls.market_url}/api/v3/${path}`, { query: `${q}&limit=1000` })).status, path).toBe(200);
    }
    for (const path of ['/open/v1/orders', '/open/v1/orders/trades']) {
      expect(await tooLong(call('GET', `${sbx.urls.base_url}${path}`, { key: A.apiKey, query: signedQuery('symbol=BTC_USDT&limit=00500') })), path).toEqual([400, -1100]);
    }
    for (const path of ['/open/v1/withdraws', '/open/v1/deposits']) {
      expect(await tooLong(call('GET', `${sbx.urls.base_url}${path}`, { key: A.apiKey, query: signedQuery('status=001') })), path).toEqual([400, -1100]);
      expect((await call('GET', `${sbx.urls.base_url}${path}`, { key: A.apiKey, query: signedQuery('status=1') })).body.code, path).toBe(0);
    }
  });

  it('executionRules (no envelope, weights by parameters) and referencePrice', async () => {
    const all = await call('GET', `${sbx.urls.market_url}/api/v3/executionRules`);
    expect(all.body).toEqual({
      symbolRules: [
        { symbol: 'BTCUSDT', rules: [{ ruleType: 'PRICE_RANGE', bidLimitMultUp: '1.05', bidLimitMultDown: '0.95', askLimitMultUp: '1.05', askLimitMultDown: '0.95' }] },
        { symbol: 'BTCIDR', rules: [] },
      ],
    });
    // What one call with a symbol adds to the minute's weight: two calls in one minute (a minute
    // starting between them resets the count), again if one did.
    const minute = (): number => Math.floor(Date.now() / 60_000);
    let added = Number.NaN;
    for (let i = 0; i < 3 && Number.isNaN(added); i++) {
      const m = minute();
      const before = Number((await call('GET', `${sbx.urls.market_url}/api/v3/executionRules`)).headers.get('x-mbx-used-weight-1m'));
      const one = await call('GET', `${sbx.urls.market_url}/api/v3/executionRules`, { query: 'symbol=BTCUSDT' });
      if (minute() === m) added = Number(one.headers.get('x-mbx-used-weight-1m')) - before;
    }
    expect(added).toBe(2);
    expect((await call('GET', `${sbx.urls.market_url}/api/v3/executionRules`, { query: 'symbol=BTCUSDT&symbolStatus=TRADING' })).status).toBe(400);
    const ref = await call('GET', `${sbx.urls.market_url}/api/v3/referencePrice`, { query: 'symbol=BTCUSDT' });
    expect(ref.body).toMatchObject({ symbol: 'BTCUSDT', referencePrice: '60000', calculationType: 'EXTERNAL', externalCalculationId: 0 });
  });
});

describe('request-weight limits', () => {
  it('429 with Retry-After when exceeded, 418 with Retry-After when the client keeps going', async () => {
    const clock = new ManualClock();
    const tight = await startSandbox(
      testSandboxConfig((d) => {
        d.limits = { requestWeight: [{ intervalNum: 1, intervalLetter: 'M', limit: 3 }], banBaseSec: 120 };
      }),
      // A clock that moves only when told keeps every request in one weight window.
      { quiet: true, clock },
    );
    try {
      const url = `${tight.urls.base_url}/open/v1/common/time`;
      const statuses: number[] = [];
      let r: Res | undefined;
      for (let i = 0; i < 4; i++) {
        r = await call('GET', url);
        statuses.push(r.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(r?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r?.body.code).toBe(-1003);
      // Within the grace after the 429 a request was already on the wire: 429 again, no ban.
      expect((await call('GET', url)).status).toBe(429);
      clock.advance(1_500);
      const banned = await call('GET', url);
      expect(banned.status).toBe(418);
      expect(banned.headers.get('retry-after')).toBe('120');
      expect(banned.headers.get('x-mbx-used-weight-1m')).not.toBeNull();
    } finally {
      await tight.stop();
    }
  });
});
