/**
 * Contract suite: the project's own clients (OpenClient, LegacyClient) against the sandbox, for
 * every endpoint of both specs. A failure here means either side drifted from the spec.
 * To extend: add a case per new endpoint; the sandbox and clients are shared by the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, Decimal, ExchangeError, RateLimitedError, UnknownOutcomeError } from '../../src/core/index.js';
import { LegacyClient, OpenClient } from '../../src/exchange/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';

const A = TEST_ACCOUNTS.alice;
const B = TEST_ACCOUNTS.bob;
const NO_RETRY = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
let sbx: RunningSandbox;
let alice: OpenClient;
let bob: OpenClient;
let legacy: LegacyClient;
let anon: LegacyClient;
let nonceDir: string;

const lvl = (p: string, q: string): { price: Decimal; qty: Decimal } => ({ price: new Decimal(p), qty: new Decimal(q) });

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  sbx.state.exec((e, now) => {
    e.applyDepthSnapshot('BTC_USDT', { bids: [lvl('59990', '1'), lvl('59980', '2')], asks: [lvl('60010', '1'), lvl('60020', '2')] }, now);
    e.applyDepthSnapshot('BTC_IDR', { bids: [lvl('999999000', '1')], asks: [lvl('1000001000', '1')] }, now);
    e.applyDepthSnapshot('ALCH_IDR', { bids: [lvl('529', '100')], asks: [lvl('531', '100')] }, now);
  });
  const hosts = { baseUrl: sbx.urls.base_url, marketUrl: sbx.urls.market_url, depthUrl: sbx.urls.depth_url };
  alice = new OpenClient({ ...hosts, apiKey: A.apiKey, apiSecret: A.secret, retry: NO_RETRY });
  bob = new OpenClient({ ...hosts, apiKey: B.apiKey, apiSecret: B.secret, retry: NO_RETRY });
  nonceDir = mkdtempSync(path.join(tmpdir(), 'kancil-sbx-nonce-'));
  legacy = new LegacyClient({ baseUrl: sbx.urls.legacy_base_url, apiKey: A.apiKey, apiSecret: A.secret, nonceStore: path.join(nonceDir, 'alice'), retry: NO_RETRY });
  anon = new LegacyClient({ baseUrl: sbx.urls.legacy_base_url, retry: NO_RETRY });
});

afterAll(async () => {
  await Promise.all([alice.close(), bob.close(), legacy.close(), anon.close()]);
  await sbx.stop();
  rmSync(nonceDir, { recursive: true, force: true });
});

describe('OpenClient against the sandbox: general and market data', () => {
  it('time, syncTime, symbols, systemConfig', async () => {
    const t = await alice.time();
    expect(Math.abs(t - Date.now())).toBeLessThan(5000);
    await alice.syncTime();
    const symbols = await alice.symbols();
    expect(symbols.map((s) => s.symbol)).toEqual(['BTC_USDT', 'BTC_IDR', 'DOGE_IDR', 'ALCH_IDR']);
    expect(symbols[0]?.filters.priceFilter?.tickSize.toFixed()).toBe('0.01');
    const cfg = await alice.systemConfig();
    expect(JSON.stringify(cfg)).toContain(sbx.urls.ws_api_url);
  });

  it('executionRules and referencePrice', async () => {
    const rules = await alice.executionRules();
    expect(JSON.stringify(rules)).toContain('1.05');
    const ref = await alice.referencePrice('BTC_USDT');
    expect(ref.referencePrice?.toFixed()).toBe('60000');
  });

  it('depth, trades, aggTrades, klines for types 1 and 3 (host routing by the client)', async () => {
    const d1 = await alice.depth({ symbol: 'BTC_USDT', symbolType: 1, limit: 5 });
    expect(d1.bids[0]?.price.toFixed()).toBe('59990');
    const d3 = await alice.depth({ symbol: 'ALCH_IDR', symbolType: 3, limit: 5 });
    expect(d3.asks[0]?.price.toFixed()).toBe('531');
    await bob.newOrder({ symbol: 'BTC_USDT', side: 'SELL', type: 'MARKET', quantity: '0.02' });
    const trades = await alice.trades({ symbol: 'BTC_USDT', symbolType: 1 });
    expect(trades.at(-1)?.price.toFixed()).toBe('59990');
    const aggs = await alice.aggTrades({ symbol: 'BTC_USDT', symbolType: 1 });
    expect(aggs.at(-1)?.qty.toFixed()).toBe('0.02');
    const k = await alice.klines({ symbol: 'BTC_USDT', symbolType: 1, interval: '1m' });
    expect(k.at(-1)?.volume.toFixed()).toBe('0.02');
    expect(await alice.trades({ symbol: 'DOGE_IDR', symbolType: 2 })).toEqual([]);
    expect(await alice.klines({ symbol: 'ALCH_IDR', symbolType: 3, interval: '1h' })).toEqual([]);
  });
});

describe('OpenClient against the sandbox: orders, account, wallet, user data keys', () => {
  it('new order (limit), detail, all orders, cancel by orderId and by clientId', async () => {
    const o = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '59000', clientId: 'contract-1' });
    expect(o.status).toBe('NEW');
    expect(o.clientId).toBe('contract-1');
    const d = await alice.orderDetail({ orderId: o.orderId });
    expect(d.price.toFixed()).toBe('59000');
    const open = await alice.allOrders({ symbol: 'BTC_USDT', type: 'OPEN' });
    expect(open.map((x) => x.clientId)).toContain('contract-1');
    const c = await alice.cancelOrder({ clientId: 'contract-1' });
    expect(c.status).toBe('CANCELED');
    const o2 = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '59000' });
    expect((await alice.cancelOrder({ orderId: o2.orderId })).status).toBe('CANCELED');
  });

  it('market buy by quoteOrderQty, stop-limit, limit maker, OCO', async () => {
    const m = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '600.1' });
    expect(m.status).toBe('FILLED');
    expect(m.executedQty.toFixed()).toBe('0.01');
    // Spec rule 4 on the wire: 0.01001 (600.7001) is 0.2901 above 600.41, closer than 0.01 (600.1) is below.
    const up = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'MARKET', quoteOrderQty: '600.41' });
    expect([up.status, up.origQty.toFixed(), up.origQuoteQty.toFixed(), up.executedQty.toFixed(), up.executedQuoteQty.toFixed()]).toEqual(['FILLED', '0.01001', '600.41', '0.01001', '600.7001']);
    const sl = await alice.newOrder({ symbol: 'BTC_USDT', side: 'SELL', type: 'STOP_LOSS_LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '58000', stopPrice: '58100' });
    expect(sl.status).toBe('NEW');
    const lm = await alice.newOrder({ symbol: 'BTC_USDT', side: 'SELL', type: 'LIMIT_MAKER', quantity: '0.01', price: '61000' });
    expect(lm.status).toBe('NEW');
    const oco = await alice.newOco({ symbol: 'BTC_USDT', side: 'SELL', quantity: '0.01', price: '62000', stopPrice: '58000', stopLimitPrice: '57900' });
    expect(oco.orders).toHaveLength(2);
  });

  it('a filter failure surfaces as an ExchangeError with the HTTP status and code', async () => {
    const err = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '10' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect((err as ExchangeError).httpStatus).toBe(400);
  });

  it('account, asset, account trades', async () => {
    const acc = await alice.account();
    expect(acc.canTrade).toBe(true);
    expect(acc.balances.find((b) => b.asset === 'BTC')?.free.gt(0)).toBe(true);
    const usdt = await alice.asset('USDT');
    expect(usdt.asset).toBe('USDT');
    const trades = await bob.accountTrades({ symbol: 'BTC_USDT' });
    expect(trades[0]?.isBuyer).toBe(false);
    expect(trades[0]?.qty.toFixed()).toBe('0.02');
  });

  it('withdraw, withdraw history, deposits, deposit address', async () => {
    const ack = await alice.withdraw({ asset: 'USDT', address: 'TXYZsandboxaddress', amount: '10', network: 'TRX' });
    expect(JSON.stringify(ack)).toMatch(/\d/);
    const hist = await alice.withdrawHistory({ asset: 'USDT' });
    expect(hist[0]?.amount.toFixed()).toBe('10');
    const deps = await alice.deposits({ asset: 'BTC' });
    expect(deps[0]?.amount.toFixed()).toBe('10');
    const addr = await alice.depositAddress({ asset: 'BTC', network: 'BTC' });
    expect(addr.address).toMatch(/^sbx/);
  });

  it('listen key create/keep-alive/close on both paths, listen token', async () => {
    for (const type of [1, 3] as const) {
      const key = await alice.createListenKey(type);
      await alice.keepAliveListenKey(type, key);
      await alice.closeListenKey(type, key);
    }
    const token = await alice.createListenToken(60_000);
    expect(token.expirationTime).toBeGreaterThan(Date.now());
  });

  it('a wrong secret is an AuthenticationError', async () => {
    const bad = new OpenClient({ baseUrl: sbx.urls.base_url, marketUrl: sbx.urls.market_url, depthUrl: sbx.urls.depth_url, apiKey: A.apiKey, apiSecret: 'wrong-secret-000000000', retry: NO_RETRY });
    try {
      await expect(bad.account()).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      await bad.close();
    }
  });

  it('a forced 403 (web application firewall) reaches the client as a RateLimitedError with HTTP 403', async () => {
    const fresh = new OpenClient({ baseUrl: sbx.urls.base_url, marketUrl: sbx.urls.market_url, depthUrl: sbx.urls.depth_url, apiKey: A.apiKey, apiSecret: A.secret, retry: NO_RETRY });
    sbx.faults.forceRateLimit(403, 30);
    try {
      const e = await fresh.time().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RateLimitedError);
      expect((e as RateLimitedError).httpStatus).toBe(403);
    } finally {
      sbx.weights.reset();
      await fresh.close();
    }
  });

  it('a 5XX after the engine accepted an order is an unknown outcome, and the order exists', async () => {
    sbx.faults.failOrders('after', { status: 500 });
    const err = await alice.newOrder({ symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '58500', clientId: 'unknown-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    const open = await alice.allOrders({ symbol: 'BTC_USDT', type: 'OPEN' });
    expect(open.filter((o) => o.clientId === 'unknown-1')).toHaveLength(1);
  });
});

describe('LegacyClient against the sandbox: all twelve endpoints', () => {
  it('public: rates (POST), ticker, tickers, order book with page', async () => {
    const rates = await anon.rates();
    expect(rates.length).toBeGreaterThan(0);
    const ticker = await anon.ticker('btcidr', 'days');
    expect(JSON.stringify(ticker)).toContain('BTCIDR');
    const tickers = await anon.tickers();
    expect(tickers.length).toBe(4);
    const book = await anon.orderBook('btcidr', 0);
    expect(JSON.stringify(book)).toContain('999999000');
  });

  it('orders through /v1 live in the same engine and account as /open/v1', async () => {
    const created = await legacy.createOrder({ side: 'buy', type: 'limit', quantity: '0.001', price: '990000000', currency: 'btc' });
    expect(created.orderId).toBeDefined();
    const viaOpen = await alice.allOrders({ symbol: 'BTC_IDR', type: 'OPEN' });
    expect(viaOpen.map((o) => o.orderId)).toContain(String(created.orderId));
    const active = await legacy.activeOrders();
    expect(active.length).toBeGreaterThan(0);
    const one = await legacy.getOrder(Number(created.orderId));
    expect(JSON.stringify(one)).toContain('active');
    await legacy.cancelOrder(Number(created.orderId));
    const a = await legacy.createOrder({ side: 'buy', type: 'limit', quantity: '0.001', price: '990000000', currency: 'btc' });
    const b = await legacy.createOrder({ side: 'buy', type: 'limit', quantity: '0.001', price: '990000001', currency: 'btc' });
    await legacy.cancelOrders([Number(a.orderId)]);
    expect(JSON.stringify(await legacy.getOrder(Number(a.orderId)))).toContain('cancelled');
    expect(JSON.stringify(await legacy.getOrder(Number(b.orderId)))).toContain('active');
    expect(typeof (await legacy.cancelAllOrders())).toBe('string');
    expect((await alice.allOrders({ symbol: 'BTC_IDR', type: 'OPEN' })).length).toBe(0);
  });

  it('account, histories, conversion (deprecated /v1/stp)', async () => {
    const balances = await legacy.account();
    expect(JSON.stringify(balances)).toContain('IDR');
    const conv = await legacy.stp({ currency: 'btc', amount: '100000', side: 'buy' });
    expect(JSON.stringify(conv)).toContain('BTC');
    expect(Array.isArray(await legacy.transactionHistory())).toBe(true);
    expect((await legacy.depositHistory()).length).toBeGreaterThan(0);
    expect(Array.isArray(await legacy.withdrawHistory())).toBe(true);
  });

  it('a wrong key is refused (401)', async () => {
    const wrong = new LegacyClient({ baseUrl: sbx.urls.legacy_base_url, apiKey: 'nobody-0000000000', apiSecret: 'nothing-000000000', nonceStore: path.join(nonceDir, 'wrong'), retry: NO_RETRY });
    try {
      const e = await wrong.account().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AuthenticationError);
    } finally {
      await wrong.close();
    }
  });

  it('maintenance of the open API leaves /v1 usable (the router fallback path)', async () => {
    sbx.faults.setMaintenance('open');
    try {
      const e = await alice.account().catch((x: unknown) => x);
      expect(e instanceof ExchangeError || e instanceof UnknownOutcomeError || e instanceof RateLimitedError).toBe(true);
      expect((await legacy.account()).length).toBeGreaterThan(0);
    } finally {
      sbx.faults.setMaintenance(undefined);
    }
  });
});
