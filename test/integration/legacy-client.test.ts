/**
 * LegacyClient over real HTTP on 127.0.0.1: all twelve endpoints (and the four submission
 * variants), signature and payload checked independently by the server, nonces, limits, errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, ExchangeError, ParseError, RateLimitedError, UnknownOutcomeError, ValidationError, type Clock } from '../../src/core/index.js';
import { LegacyClient } from '../../src/exchange/index.js';
import { LoopbackServer } from '../support/LoopbackServer.js';
import { capturingLogger, expectNoSecrets } from '../support/secretLeaks.js';
import { LEGACY_KEY, LEGACY_SECRET, authed, payloadOf, success } from '../support/legacyRoutes.js';

class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

let server: LoopbackServer;
let client: LegacyClient;
let clock: ManualClock;
let dir: string;

function makeClient(extra: Partial<ConstructorParameters<typeof LegacyClient>[0]> = {}): LegacyClient {
  return new LegacyClient({ baseUrl: server.url, apiKey: LEGACY_KEY, apiSecret: LEGACY_SECRET, nonceStore: join(dir, 'nonce'), clock, timeoutMs: 2_000, retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 4 }, ...extra });
}

beforeEach(async () => {
  server = await LoopbackServer.start();
  clock = new ManualClock(1_700_000_000_000);
  dir = mkdtempSync(join(tmpdir(), 'kancil-legacy-'));
  client = makeClient();
});

afterEach(async () => {
  await client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const bankDetails = JSON.stringify({ UpdatedAt: '2024-01-01T00:00:00.000Z', UserId: 'u1', City: 'Jakarta', AccountNumber: '123', BankAccountId: 'b1', BankName: 'BCA', BankAccountType: 'savings', Status: 'active', CreatedAt: '2023-01-01T00:00:00.000Z' });
const activeOrder = { orderId: 11, type: 'limit', side: 'buy', currencyPair: 'BTCIDR', quantity: 0.001, availableQuantity: 0.0005, postOnly: false, price: 1000000000, Status: 'active', Match: null, dateTime: '2024-01-01T00:00:00.000Z' };

describe('authenticated reads', () => {
  it('history endpoints: GET with everything in X-TC-PAYLOAD (nonce only), records parsed', async () => {
    server.on('GET', '/v1/history/transaction', authed(() => ({ json: success('get_transaction_success', [{ Id: 'a', Side: 'Buy', Currency: 'BTC', Amount: 0.5, Status: 'Success', DateTime: '2024-01-02T03:04:05.678Z' }]) })));
    server.on('GET', '/v1/history/deposit', authed(() => ({ json: success('get_deposit_success', [{ Id: 'd', TxId: null, Currency: 'IDR', Type: 'Deposit', Status: 'Success', Amount: 1000000, DateTime: '2024-01-02T03:04:05.678Z' }]) })));
    server.on('GET', '/v1/history/withdraw', authed(() => ({
      json: success('get_withdraw_success', [
        { Id: 'w', Fee: 0, Type: 'Withdraw', Status: 'Pending', Currency: 'IDR', Amount: 50000, TxId: null, BankDetails: bankDetails, DateTime: '2024-01-02T03:04:05.678Z' },
        { Id: 'w2', Fee: 0.0005, Type: 'Withdraw', Status: 'Pending', Currency: 'BTC', Amount: 0.1, TxId: null, BankDetails: null, DateTime: '2024-01-02T03:04:05.678Z' },
      ]),
    })));
    const [t] = await client.transactionHistory();
    const [d] = await client.depositHistory();
    const [w, w2] = await client.withdrawHistory();
    expect(t).toMatchObject({ id: 'a', side: 'Buy', currency: 'BTC', status: 'Success', time: Date.parse('2024-01-02T03:04:05.678Z') });
    expect(t?.amount.eq('0.5')).toBe(true);
    expect(d).toMatchObject({ id: 'd', txId: null, type: 'Deposit' });
    expect(w?.bankDetails).toMatchObject({ bankName: 'BCA', accountNumber: '123', city: 'Jakarta', userId: 'u1', status: 'active' });
    expect(w2?.bankDetails).toBeNull();
    expect(w2?.fee.eq('0.0005')).toBe(true);
    for (const path of ['/v1/history/transaction', '/v1/history/deposit', '/v1/history/withdraw']) {
      const req = server.only('GET', path);
      expect(req.rawQuery).toBe('');
      expect(req.rawBody).toBe('');
      expect(Object.keys(payloadOf(req))).toEqual(['nonce']);
    }
  });

  it('account(): balances', async () => {
    server.on('GET', '/v1/account', authed(() => ({ json: success('get_account_success', { Balance: [{ Amount: 1.5, AvailableBalance: 1.25, Status: 'active', Currency: 'BTC' }] }) })));
    const [b] = await client.account();
    expect(b).toMatchObject({ currency: 'BTC', status: 'active' });
    expect(b?.availableBalance.eq('1.25')).toBe(true);
  });

  it('activeOrders() reads Status, getOrder() reads status; orderId in the payload', async () => {
    server.on('GET', '/v1/order/list', authed(() => ({ json: success('get_all_active_order_success', [activeOrder]) })));
    server.on('GET', '/v1/order/get', authed((p) => ({ json: success('get_detail_order_success', { ...activeOrder, orderId: p.orderId, Status: undefined, Match: undefined, status: 'fulfilled' }) })));
    const [a] = await client.activeOrders();
    const g = await client.getOrder(11);
    expect(a).toMatchObject({ orderId: 11, status: 'active', currencyPair: 'BTCIDR', postOnly: false });
    expect(a?.availableQuantity.eq('0.0005')).toBe(true);
    expect(g).toMatchObject({ orderId: 11, status: 'fulfilled' });
    const payload = payloadOf(server.only('GET', '/v1/order/get'));
    expect(Object.keys(payload)).toEqual(['orderId', 'nonce']);
    expect(payload.orderId).toBe(11);
  });
});

describe('authenticated writes', () => {
  it('POST /v1/order: all four submission variants with exact JSON payloads', async () => {
    server.on('POST', '/v1/order', authed((p) => ({
      json: p.submission === '3' ? success('cancel_all_order_success', 'all orders cancelled') : success('order_success', p.submission === '1' ? { orderId: 77 } : { ok: true }),
    })));
    const created = await client.createOrder({ side: 'buy', type: 'limit', quantity: '0.001', price: '1000000000', currency: 'btc' });
    await client.createOrder({ side: 'sell', type: 'market', quantity: '0.5', currency: 'eth' });
    await client.cancelOrder(77);
    expect(await client.cancelAllOrders()).toBe('all orders cancelled');
    await client.cancelOrders([1, 2, 3]);
    expect(created.orderId).toBe('77');
    const sent = server.received('POST', '/v1/order');
    const texts = sent.map((r) => Buffer.from(r.header('x-tc-payload') ?? '', 'base64').toString('utf8').replace(/,"nonce":\d+\}$/, '}'));
    expect(texts).toEqual([
      '{"submission":"1","side":"buy","quantity":0.001,"type":"limit","price":1000000000,"currency":"btc"}',
      '{"submission":"1","side":"sell","quantity":0.5,"type":"market","currency":"eth"}',
      '{"submission":"2","orderId":77}',
      '{"submission":"3"}',
      '{"submission":"4","orders":[1,2,3]}',
    ]);
    // The body carries the same JSON as the signed payload.
    for (const r of sent) expect(Buffer.from(r.header('x-tc-payload') ?? '', 'base64').toString('utf8')).toBe(r.rawBody);
  });

  it('createOrder validation: price rules, precision a JSON number cannot hold, currency form', async () => {
    const cases: [Parameters<LegacyClient['createOrder']>[0], string][] = [
      [{ side: 'buy', type: 'limit', quantity: '1', currency: 'btc' }, 'price'],
      [{ side: 'buy', type: 'market', quantity: '1', price: '5', currency: 'btc' }, 'price'],
      [{ side: 'buy', type: 'limit', quantity: '0.12345678901234567', price: '5', currency: 'btc' }, 'quantity'],
      [{ side: 'buy', type: 'limit', quantity: '1', price: '5', currency: 'BTC' }, 'currency'],
      [{ side: 'hold' as 'buy', type: 'limit', quantity: '1', price: '5', currency: 'btc' }, 'side'],
    ];
    for (const [params, field] of cases) await expect(client.createOrder(params)).rejects.toMatchObject({ field });
    expect(server.requests).toHaveLength(0);
  });

  it('stp (deprecated conversion): payload and conversion record', async () => {
    server.on('POST', '/v1/stp', authed(() => ({ json: success('create_conversion_success', { ConversionId: 'c1', DateTime: '2024-01-02T03:04:05.678Z', Side: 'Buy', Price: 1000000000, Amount: 0.0001, Currency: 'BTC' }) })));
    const c = await client.stp({ currency: 'btc', amount: '100000', side: 'buy' });
    expect(c).toMatchObject({ conversionId: 'c1', side: 'Buy', currency: 'BTC' });
    expect(c.amount.eq('0.0001')).toBe(true);
    const p = payloadOf(server.only('POST', '/v1/stp'));
    expect({ ...p, nonce: undefined }).toEqual({ currency: 'btc', amount: 100000, side: 'buy', nonce: undefined });
    await expect(client.stp({ currency: 'doge' as 'btc', amount: '1', side: 'buy' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('public endpoints', () => {
  it('rates is a POST without credentials; ticker and tickers GET; order book without envelope', async () => {
    server.on('POST', '/v1/rates', { json: success('get_rates_success', [{ currencyPair: 'btcidr', buy: 1000, sell: 999.5 }]) });
    server.on('GET', '/v1/rates/ticker', { json: success('get_ticker_success', { Name: 'BTCIDR', Close: 10, Low: 9, High: 11, Open: 9.5, Volume: 123.45, Buy: 10, Sell: 10.5, DateTime: '2024-01-02' }) });
    server.on('GET', '/v1/rates/tickers', { json: success('get_tickers_success', [{ Name: 'ETHIDR', Close: 1, Low: 1, High: 1, Open: 1, Volume: 0, Buy: 1, Sell: 1, DateTime: '2024-01-02' }]) });
    server.on('GET', '/v1/orderbook/btcidr', { json: { bids: [[1000, 0.5]], asks: [[1001, 0.25]], timestamp: 1700000000000 } });
    const [r] = await client.rates();
    const t = await client.ticker('btcidr', 'days');
    const all = await client.tickers();
    const book = await client.orderBook('btcidr', 2);
    expect(r?.sell.eq('999.5')).toBe(true);
    expect(t).toMatchObject({ name: 'BTCIDR', date: '2024-01-02' });
    expect(t.volume.eq('123.45')).toBe(true);
    expect(all.map((x) => x.name)).toEqual(['ETHIDR']);
    expect(book.timestamp).toBe(1700000000000);
    expect(book.bids[0]?.price.eq(1000)).toBe(true);
    expect(book.asks[0]?.qty.eq('0.25')).toBe(true);
    expect(server.only('GET', '/v1/rates/ticker').query).toEqual({ currencyPair: 'btcidr', type: 'days' });
    expect(server.only('GET', '/v1/orderbook/btcidr').query).toEqual({ page: '2' });
    for (const req of server.requests) expect(req.header('x-tc-apikey')).toBeUndefined();
    await expect(client.ticker('BTC_IDR', 'days')).rejects.toBeInstanceOf(ValidationError);
    await expect(client.ticker('btcidr', 'weeks' as 'days')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('nonces', () => {
  it('strictly increase across calls and across a restart with the clock set back', async () => {
    server.on('GET', '/v1/order/list', authed(() => ({ json: success('get_all_active_order_success', []) })));
    await client.activeOrders();
    await client.activeOrders();
    await client.close();
    clock.t -= 10_000;
    client = makeClient();
    await client.activeOrders();
    const nonces = server.received('GET', '/v1/order/list').map((r) => payloadOf(r).nonce as number);
    expect(nonces).toHaveLength(3);
    expect(nonces[1]).toBeGreaterThan(nonces[0] as number);
    expect(nonces[2]).toBeGreaterThan(nonces[1] as number);
  });
});

describe('limits and errors', () => {
  it('60 requests per endpoint per minute are enforced client-side, per endpoint', async () => {
    server.on('GET', '/v1/rates/tickers', { json: success('get_tickers_success', []) });
    server.on('POST', '/v1/rates', { json: success('get_rates_success', []) });
    for (let i = 0; i < 60; i++) await client.tickers();
    const err = await client.tickers().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ httpStatus: undefined, retryAfterMs: 60_000 });
    expect(server.received('GET', '/v1/rates/tickers')).toHaveLength(60);
    await client.rates();
    clock.t += 60_000;
    await client.tickers();
    expect(server.received('GET', '/v1/rates/tickers')).toHaveLength(61);
  });

  it('err_str "limit exceeded" -> RateLimitedError, and that endpoint is then refused locally', async () => {
    server.on('GET', '/v1/account', { status: 429, json: { err_str: 'limit exceeded' } });
    await expect(client.account()).rejects.toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429, retryAfterMs: 60_000 });
    await expect(client.account()).rejects.toMatchObject({ code: 'RATE_LIMITED', httpStatus: undefined });
    expect(server.received('GET', '/v1/account')).toHaveLength(1);
    // The same text in a 200 answer is also a rate limit, not data.
    server.on('GET', '/v1/order/list', { json: { err_str: 'limit exceeded' } });
    await expect(client.activeOrders()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('401 -> AuthenticationError (wrong secret: the server rejects the signature)', async () => {
    server.on('GET', '/v1/account', authed(() => ({ json: success('get_account_success', { Balance: [] }) })));
    const bad = makeClient({ apiSecret: 'wrong' });
    try {
      await expect(bad.account()).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      await bad.close();
    }
  });

  it('a refused signature, a reset read and a lost order answer: no error or log line carries the key, the secret or a signature', async () => {
    const logger = capturingLogger();
    const c = makeClient({ logger, timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    try {
      server.on('GET', '/v1/account', { status: 401, json: { success: false, message_code: 'invalid_signature' } });
      server.on('GET', '/v1/order/list', { reset: true });
      server.on('POST', '/v1/order', { hang: true });
      const errors = [
        await c.account().catch((e: unknown) => e),
        await c.activeOrders().catch((e: unknown) => e),
        await c.createOrder({ side: 'buy', type: 'limit', quantity: '1', price: '1', currency: 'btc' }).catch((e: unknown) => e),
      ];
      expect(errors[0]).toBeInstanceOf(AuthenticationError);
      expect(errors[2]).toBeInstanceOf(UnknownOutcomeError);
      const signatures = server.requests.map((r) => r.header('x-tc-signature')).filter((x): x is string => x !== undefined);
      expect(signatures.length).toBeGreaterThanOrEqual(4);
      expect(logger.lines.length).toBeGreaterThan(0);
      expectNoSecrets(logger.lines, errors, [LEGACY_KEY, LEGACY_SECRET, ...signatures]);
    } finally {
      await c.close();
    }
  });

  it('success false -> ExchangeError with message_code', async () => {
    server.on('GET', '/v1/order/get', { status: 200, json: { success: false, message_code: 'order_not_found', data: null } });
    await expect(client.getOrder(5)).rejects.toMatchObject({ code: 'EXCHANGE', exchangeCode: 'order_not_found', exchangeMsg: 'order_not_found' });
    // A 4XX failure whose explanation is a string in data: the text is kept.
    server.on('POST', '/v1/order', { status: 400, json: { success: false, message_code: 'order_rejected', data: 'PERCENT_PRICE: price too low' } });
    await expect(client.cancelOrder(5)).rejects.toMatchObject({ httpStatus: 400, exchangeCode: 'order_rejected', exchangeMsg: 'PERCENT_PRICE: price too low' });
  });

  it('5XX on order creation -> UnknownOutcomeError, exactly one request', async () => {
    server.on('POST', '/v1/order', { status: 500, json: { success: false } });
    await expect(client.createOrder({ side: 'buy', type: 'limit', quantity: '1', price: '1', currency: 'btc' })).rejects.toBeInstanceOf(UnknownOutcomeError);
    await expect(client.cancelOrder(5)).rejects.toBeInstanceOf(UnknownOutcomeError);
    expect(server.received('POST', '/v1/order')).toHaveLength(2);
  });

  it('503 on a read is retried, then an ExchangeError', async () => {
    server.on('GET', '/v1/rates/tickers', { status: 503, text: 'maintenance' });
    const err = await client.tickers().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(server.received('GET', '/v1/rates/tickers')).toHaveLength(3);
  });

  it('malformed JSON and a malformed BankDetails string -> ParseError naming what was wrong', async () => {
    server.on('GET', '/v1/orderbook/ethidr', { text: '{"bids": [' });
    await expect(client.orderBook('ethidr')).rejects.toThrow(/GET \/v1\/orderbook\/\{currencyPair\} response body.*malformed JSON/);
    server.on('GET', '/v1/history/withdraw', authed(() => ({
      json: success('get_withdraw_success', [{ Id: 'w', Fee: 0, Type: 'Withdraw', Status: 'Pending', Currency: 'IDR', Amount: 1, TxId: null, BankDetails: '{not json', DateTime: '2024-01-02T03:04:05.678Z' }]),
    })));
    const err = await client.withdrawHistory().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/withdraws\[0\]\.BankDetails/);
  });
});
