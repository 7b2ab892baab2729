/**
 * OpenClient over real HTTP on 127.0.0.1: every endpoint of the spec's summary table, with the
 * test server checking method, path, headers, signature and parameters, plus the error paths.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  Decimal,
  ExchangeError,
  NetworkError,
  ParseError,
  RateLimitedError,
  UnknownOutcomeError,
  ValidationError,
  type Clock,
} from '../../src/core/index.js';
import { OpenClient, type NewOrderParams } from '../../src/exchange/index.js';
import { LoopbackServer } from '../support/LoopbackServer.js';
import { capturingLogger, expectNoSecrets } from '../support/secretLeaks.js';
import { OPEN_KEY, OPEN_SECRET, businessParams, signed } from '../support/openRoutes.js';
import { ok, wireAccount, wireAccountTrade, wireKline, wireNewOrder, wireOco, wireOrderDetail, wireSymbol } from '../support/openWire.js';

/** A clock the test moves by hand, so rate-limit expiry needs no waiting. */
class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

const FAST_RETRY = { attempts: 3, baseDelayMs: 1, maxDelayMs: 4 };

let server: LoopbackServer;
let client: OpenClient;
let clock: ManualClock;

function makeClient(extra: Partial<ConstructorParameters<typeof OpenClient>[0]> = {}): OpenClient {
  return new OpenClient({
    baseUrl: server.url,
    // Path prefixes stand for the three hosts, so routing is visible in the request path.
    marketUrl: `${server.url}/market`,
    depthUrl: `${server.url}/depth`,
    apiKey: OPEN_KEY,
    apiSecret: OPEN_SECRET,
    timeoutMs: 2_000,
    clock,
    retry: FAST_RETRY,
    ...extra,
  });
}

beforeEach(async () => {
  server = await LoopbackServer.start();
  clock = new ManualClock(1_700_000_000_000);
  client = makeClient();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('general endpoints', () => {
  it('time() returns the envelope timestamp; syncTime() makes signed timestamps follow the server', async () => {
    server.on('GET', '/open/v1/common/time', { json: { code: 0, msg: 'Success', timestamp: 1_700_000_005_000 } });
    expect(await client.time()).toBe(1_700_000_005_000);
    expect(await client.syncTime()).toBe(5_000);
    server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok(wireAccount) })));
    await client.account();
    expect(server.only('GET', '/open/v1/account/spot').query.timestamp).toBe('1700000005000');
  });

  it('symbols() parses data.list with filters as decimals and flags as booleans', async () => {
    server.on('GET', '/open/v1/common/symbols', { json: ok({ list: [wireSymbol] }) });
    const [s] = await client.symbols();
    expect(s?.symbol).toBe('BTC_IDR');
    expect(s?.type).toBe(1);
    expect(s?.filters.priceFilter?.tickSize.eq('1')).toBe(true);
    expect(s?.filters.lotSize?.stepSize.eq('0.00001')).toBe(true);
    expect(s?.filters.notional?.minNotional.eq('20000')).toBe(true);
    expect(s?.filters.maxNumOrders).toBe(200);
    expect(s?.orderTypes).toContain('LIMIT_MAKER');
    expect(s?.allowedSelfTradePreventionModes).toEqual(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);
    expect([s?.icebergEnable, s?.ocoEnable, s?.marginTradingEnable]).toEqual([true, true, false]);
    expect(server.only('GET', '/open/v1/common/symbols').header('x-mbx-apikey')).toBeUndefined();
  });

  it('systemConfig() finds the field ending with WssApiBaseUrl', async () => {
    server.on('GET', '/v1/common/system-config', {
      json: ok({ vendorWssApiBaseUrl: 'wss://ws-api.example/ws-api/v3', vendorWssApiBaseUrlList: ['wss://a/ws-api/v3', 'wss://b/ws-api/v3'], other: 1 }),
    });
    const cfg = await client.systemConfig();
    expect(cfg.wsApiUrl).toBe('wss://ws-api.example/ws-api/v3');
    expect(cfg.wsApiUrlList).toEqual(['wss://a/ws-api/v3', 'wss://b/ws-api/v3']);
  });

  it('executionRules() goes to the market host, respells the symbol, reads the un-enveloped body', async () => {
    server.on('GET', '/market/api/v3/executionRules', {
      json: { symbolRules: [{ symbol: 'BTCIDR', rules: [{ ruleType: 'PRICE_RANGE', bidLimitMultUp: '1.05', askLimitMultDown: '0.95' }, { ruleType: 'FUTURE_RULE', x: 1 }] }] },
    });
    const rules = await client.executionRules({ symbol: 'BTC_IDR' });
    expect(server.only('GET', '/market/api/v3/executionRules').query).toEqual({ symbol: 'BTCIDR' });
    expect(rules.priceRange).toHaveLength(1);
    expect(rules.priceRange[0]?.bidLimitMultUp?.eq('1.05')).toBe(true);
    expect(rules.priceRange[0]?.bidLimitMultDown).toBeUndefined();
    expect(rules.other).toEqual([{ symbol: 'BTCIDR', rule: { ruleType: 'FUTURE_RULE', x: 1 } }]);
    await expect(client.executionRules({ symbol: 'BTC_IDR', symbolStatus: 'TRADING' })).rejects.toThrow(ValidationError);
  });

  it('executionRules() sends several symbols as a JSON array', async () => {
    server.on('GET', '/market/api/v3/executionRules', { json: { symbolRules: [] } });
    await client.executionRules({ symbols: ['BTC_IDR', 'ETH_IDR'] });
    expect(server.only('GET', '/market/api/v3/executionRules').query.symbols).toBe('["BTCIDR","ETHIDR"]');
  });

  it('referencePrice() reads price, null price and calculation type', async () => {
    server.on('GET', '/market/api/v3/referencePrice', (req) => ({
      json: req.query.symbol === 'BTCIDR' ? { symbol: 'BTCIDR', referencePrice: '1000000000.5', timestamp: 1, calculationType: 'EXTERNAL', externalCalculationId: 0 } : { symbol: req.query.symbol, referencePrice: null, timestamp: 2 },
    }));
    const r = await client.referencePrice('BTC_IDR');
    expect(r.referencePrice?.eq('1000000000.5')).toBe(true);
    expect(r.calculationType).toBe('EXTERNAL');
    expect(r.externalCalculationId).toBe(0);
    expect((await client.referencePrice('ETH_IDR')).referencePrice).toBeNull();
  });
});

describe('market data routing by symbol type', () => {
  const book = { lastUpdateId: 246126979, bids: [['1421496253.00', '0.04232000']], asks: [['1422922291.00', '0.03799000']] };

  it('depth: type 1 market host without underscore (no envelope), type 3 depth host, type 2 main host', async () => {
    server.on('GET', '/market/api/v3/depth', { json: book });
    server.on('GET', '/depth/api/v1/depth', { json: ok(book) });
    server.on('GET', '/open/v1/market/depth', { json: ok(book) });
    const s1 = await client.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 5 });
    await client.depth({ symbol: 'ALCH_IDR', symbolType: 3 });
    await client.depth({ symbol: 'NXT_IDR', symbolType: 2, limit: 1000 });
    expect(server.only('GET', '/market/api/v3/depth').query).toEqual({ symbol: 'BTCIDR', limit: '5' });
    expect(server.only('GET', '/depth/api/v1/depth').query).toEqual({ symbol: 'ALCH_IDR' });
    expect(server.only('GET', '/open/v1/market/depth').query).toEqual({ symbol: 'NXT_IDR', limit: '1000' });
    expect(s1.lastUpdateId).toBe(246126979);
    expect(s1.bids[0]?.price.eq('1421496253')).toBe(true);
    expect(s1.asks[0]?.qty.eq('0.03799')).toBe(true);
  });

  it('depth: a limit outside the allowed set is refused before sending', async () => {
    await expect(client.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 7 as 5 })).rejects.toThrow(/limit/);
    expect(server.requests).toHaveLength(0);
  });

  it('trades: type 1 market host (bare array), other types /open/v1/market/trades (data.list)', async () => {
    const t = { id: 899732, price: '1362602579.00', qty: '0.00119000', time: 1787316719435, isBuyerMaker: true, isBestMatch: true };
    server.on('GET', '/market/api/v3/trades', { json: [t] });
    server.on('GET', '/open/v1/market/trades', { json: ok({ list: [t, { ...t, id: 899733 }] }) });
    const a = await client.trades({ symbol: 'BTC_IDR', symbolType: 1, limit: 1 });
    const b = await client.trades({ symbol: 'ALCH_IDR', symbolType: 3, fromId: 10 });
    expect(server.only('GET', '/market/api/v3/trades').query).toEqual({ symbol: 'BTCIDR', limit: '1' });
    expect(server.only('GET', '/open/v1/market/trades').query).toEqual({ symbol: 'ALCH_IDR', fromId: '10' });
    expect(a[0]?.price.eq('1362602579')).toBe(true);
    expect(b.map((x) => x.id)).toEqual(['899732', '899733']);
    await expect(client.trades({ symbol: 'BTC_IDR', symbolType: 1, limit: 1001 })).rejects.toThrow(ValidationError);
  });

  it('aggTrades: type 1 market host, type 3 depth host; fields a p q f l T m', async () => {
    const agg = { a: 14434, p: '500.00', q: '42.00000000', f: 15579, l: 15579, T: 1787301873244, m: false };
    server.on('GET', '/market/api/v3/aggTrades', { json: [agg] });
    server.on('GET', '/depth/api/v1/aggTrades', { json: ok({ list: [agg] }) });
    const [x] = await client.aggTrades({ symbol: 'BTC_IDR', symbolType: 1, startTime: 1, endTime: 2 });
    await client.aggTrades({ symbol: 'ALCH_IDR', symbolType: 3, limit: 1 });
    expect(server.only('GET', '/market/api/v3/aggTrades').query).toEqual({ symbol: 'BTCIDR', startTime: '1', endTime: '2' });
    expect(server.only('GET', '/depth/api/v1/aggTrades').query).toEqual({ symbol: 'ALCH_IDR', limit: '1' });
    expect(x).toMatchObject({ aggId: '14434', firstTradeId: '15579', lastTradeId: '15579', time: 1787301873244, isBuyerMaker: false, isBestMatch: false });
    expect(x?.qty.eq(42)).toBe(true);
    await expect(client.aggTrades({ symbol: 'BTC_IDR', symbolType: 1, startTime: 5, endTime: 4 })).rejects.toThrow(/startTime/);
  });

  it('klines: type 1 market host, type 3 depth host; 12-position arrays', async () => {
    server.on('GET', '/market/api/v3/klines', { json: [wireKline] });
    server.on('GET', '/depth/api/v1/klines', { json: ok([wireKline, wireKline]) });
    const [k] = await client.klines({ symbol: 'BTC_IDR', symbolType: 1, interval: '1h', limit: 2 });
    expect((await client.klines({ symbol: 'ALCH_IDR', symbolType: 3, interval: '1m' })).length).toBe(2);
    expect(server.only('GET', '/market/api/v3/klines').query).toEqual({ symbol: 'BTCIDR', interval: '1h', limit: '2' });
    expect(server.only('GET', '/depth/api/v1/klines').query).toEqual({ symbol: 'ALCH_IDR', interval: '1m' });
    expect(k).toMatchObject({ openTime: 1787817600000, closeTime: 1787821199999, trades: 9, interval: '1h' });
    expect(k?.high.eq('537')).toBe(true);
    expect(k?.takerBuyQuoteVolume.eq('548331.93')).toBe(true);
    await expect(client.klines({ symbol: 'BTC_IDR', symbolType: 1, interval: '2m' as '1m' })).rejects.toThrow(/interval/);
  });
});

describe('orders', () => {
  it('newOrder LIMIT: signed form body with codes, generated clientId, parsed response (message field, borderId)', async () => {
    server.on('POST', '/open/v1/orders', signed(() => ({ json: { ...ok(wireNewOrder, 'message'), messageDetail: null, success: true } })));
    const order = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '0.001', price: new Decimal('1000000000'), timeInForce: 'GTC', selfTradePreventionMode: 'EXPIRE_BOTH' });
    const req = server.only('POST', '/open/v1/orders');
    expect(req.rawQuery).toBe('');
    expect(req.header('content-type')).toBe('application/x-www-form-urlencoded');
    const p = businessParams(req);
    expect(p.clientId).toMatch(/^k[0-9a-f]{32}$/);
    expect({ ...p, clientId: undefined }).toEqual({ symbol: 'BTC_IDR', side: '0', type: '1', timeInForce: '1', quantity: '0.001', price: '1000000000', selfTradePreventionMode: '2', clientId: undefined });
    expect(order).toMatchObject({ orderId: '912345', bOrderId: '7f0c', bOrderListId: '-1', side: 'BUY', type: 'LIMIT', status: 'NEW', timeInForce: 'GTC', isWorking: true });
    expect(order.price.eq('1000000000')).toBe(true);
    expect(order.stopPrice.isZero()).toBe(true);
  });

  it('newOrder sends the right parameters for all seven types', async () => {
    server.on('POST', '/open/v1/orders', signed(() => ({ json: ok(wireNewOrder, 'message') })));
    const cases: [NewOrderParams, Record<string, string>][] = [
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '0.5' }, { type: '2', side: '1', quantity: '0.5' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'MARKET', quoteOrderQty: '50000' }, { type: '2', side: '0', quoteOrderQty: '50000' }],
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'STOP_LOSS', quantity: '1', stopPrice: '90' }, { type: '3', side: '1', quantity: '1', stopPrice: '90' }],
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'STOP_LOSS_LIMIT', quantity: '1', price: '89', stopPrice: '90', icebergQty: '0.1' }, { type: '4', side: '1', quantity: '1', price: '89', stopPrice: '90', icebergQty: '0.1', timeInForce: '1' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT', quantity: '1', stopPrice: '80' }, { type: '5', side: '0', quantity: '1', stopPrice: '80' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT_LIMIT', quantity: '1', price: '81', stopPrice: '80', timeInForce: 'FOK' }, { type: '6', side: '0', quantity: '1', price: '81', stopPrice: '80', timeInForce: '3' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT_MAKER', quantity: '1', price: '79', clientId: 'mine-1' }, { type: '7', side: '0', quantity: '1', price: '79', clientId: 'mine-1' }],
    ];
    for (const [params] of cases) await client.newOrder(params);
    const got = server.received('POST', '/open/v1/orders').map(businessParams);
    expect(got).toHaveLength(7);
    got.forEach((p, i) => {
      const [, expected] = cases[i] as [NewOrderParams, Record<string, string>];
      expect({ ...p, clientId: expected.clientId ?? (p.clientId?.startsWith('k') ? undefined : 'generated id missing') }).toEqual({ symbol: 'BTC_IDR', ...expected, clientId: expected.clientId });
    });
  });

  it('newOrder refuses missing or misplaced parameters per type before sending', async () => {
    const bad: [NewOrderParams, string][] = [
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1' }, 'price'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', price: '1' }, 'quantity'],
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quoteOrderQty: '1' }, 'quoteOrderQty'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'MARKET' }, 'quantity'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'MARKET', quantity: '1', price: '5' }, 'price'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'STOP_LOSS', quantity: '1' }, 'stopPrice'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'STOP_LOSS_LIMIT', quantity: '1', stopPrice: '1' }, 'price'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT', stopPrice: '1' }, 'quantity'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT_LIMIT', quantity: '1', price: '1' }, 'stopPrice'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT_MAKER', quantity: '1' }, 'price'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', stopPrice: '1' }, 'stopPrice'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', icebergQty: '0.1', timeInForce: 'IOC' }, 'timeInForce'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '-1' }, 'price'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: 'abc', price: '1' }, 'quantity'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', selfTradePreventionMode: 'NONE' }, 'selfTradePreventionMode'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'x'.repeat(51) }, 'clientId'],
      [{ symbol: '', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }, 'symbol'],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', recvWindow: 60_001 }, 'recvWindow'],
    ];
    for (const [params, field] of bad) {
      const err = await client.newOrder(params).catch((e: unknown) => e);
      expect(err, JSON.stringify(params)).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field, JSON.stringify(params)).toBe(field);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('orderDetail: signed GET with the signature in the query; strings parsed', async () => {
    server.on('GET', '/open/v1/orders/detail', signed(() => ({ json: ok(wireOrderDetail, 'message') })));
    const o = await client.orderDetail({ orderId: 912345n, clientId: 'abc123' });
    const req = server.only('GET', '/open/v1/orders/detail');
    expect(req.rawBody).toBe('');
    expect(businessParams(req)).toEqual({ orderId: '912345', clientId: 'abc123' });
    expect(o).toMatchObject({ orderId: '912345', status: 'FILLED', bOrderId: '7f0c', taxFeeAsset: 'IDR' });
    expect(o.executedQuoteQty.eq('999999.99')).toBe(true);
    expect(o.taxFee?.eq('0.12')).toBe(true);
  });

  it('cancelOrder by orderId or by clientId, never both', async () => {
    server.on('POST', '/open/v1/orders/cancel', signed(() => ({ json: ok({ ...wireOrderDetail, status: 3 }, 'message') })));
    expect((await client.cancelOrder({ orderId: '912345' })).status).toBe('CANCELED');
    await client.cancelOrder({ clientId: 'abc123' });
    expect(server.received('POST', '/open/v1/orders/cancel').map(businessParams)).toEqual([{ orderId: '912345' }, { clientId: 'abc123' }]);
    await expect(client.cancelOrder({ orderId: 1, clientId: 'x' } as never)).rejects.toThrow(ValidationError);
    await expect(client.cancelOrder({} as never)).rejects.toThrow(ValidationError);
  });

  it('allOrders: codes for type and side, direct required with fromId', async () => {
    server.on('GET', '/open/v1/orders', signed(() => ({ json: ok({ list: [wireOrderDetail, wireNewOrder] }) })));
    const list = await client.allOrders({ symbol: 'BTC_IDR', type: 'ALL', side: 'SELL', fromId: '5', direct: 'next', limit: 10, startTime: 1, endTime: 2 });
    expect(businessParams(server.only('GET', '/open/v1/orders'))).toEqual({ symbol: 'BTC_IDR', type: '-1', side: '1', startTime: '1', endTime: '2', fromId: '5', direct: 'next', limit: '10' });
    expect(list.map((o) => o.status)).toEqual(['FILLED', 'NEW']);
    await expect(client.allOrders({ symbol: 'BTC_IDR', fromId: '5' })).rejects.toThrow(/direct/);
    await expect(client.allOrders({ symbol: 'BTC_IDR', fromId: '5', direct: 'up' as unknown as 'prev' })).rejects.toThrow(/prev or next/);
  });

  it('newOco: signed body, generated listClientId, order list parsed', async () => {
    server.on('POST', '/open/v1/orders/oco', signed(() => ({ json: ok(wireOco, 'message') })));
    const list = await client.newOco({ symbol: 'BTC_IDR', side: 'SELL', quantity: '1', price: '1100000000', stopPrice: '950000000', stopLimitPrice: '900000000', limitClientId: 'L1' });
    const p = businessParams(server.only('POST', '/open/v1/orders/oco'));
    expect(p.listClientId).toMatch(/^k[0-9a-f]{32}$/);
    expect({ ...p, listClientId: undefined }).toEqual({ symbol: 'BTC_IDR', listClientId: undefined, side: '1', quantity: '1', limitClientId: 'L1', price: '1100000000', stopPrice: '950000000', stopLimitPrice: '900000000' });
    expect(list).toMatchObject({ bOrderListId: '88', contingencyType: 'OCO', listOrderStatus: 'EXECUTING' });
    expect(list.orders.map((o) => o.type)).toEqual(['STOP_LOSS_LIMIT', 'LIMIT_MAKER']);
    await expect(client.newOco({ symbol: 'BTC_IDR', side: 'SELL', quantity: '1', price: '90', stopPrice: '95', stopLimitPrice: '89' })).rejects.toThrow(/price/);
  });
});

describe('account and wallet', () => {
  it('account(), asset(), accountTrades()', async () => {
    server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok(wireAccount) })));
    server.on('GET', '/open/v1/account/spot/asset', signed(() => ({ json: ok({ asset: 'BTC', free: '1.5', locked: '0' }) })));
    server.on('GET', '/open/v1/orders/trades', signed(() => ({ json: ok({ list: [wireAccountTrade] }) })));
    const acc = await client.account({ recvWindow: 10_000 });
    expect(server.only('GET', '/open/v1/account/spot').query.recvWindow).toBe('10000');
    expect(acc).toMatchObject({ canTrade: true, canWithdraw: true, canDeposit: false });
    expect(acc.balances[0]?.free.eq('0.12345678')).toBe(true);
    expect(acc.takerCommission.eq('0.002')).toBe(true);
    const bal = await client.asset('BTC');
    expect(businessParams(server.only('GET', '/open/v1/account/spot/asset'))).toEqual({ asset: 'BTC' });
    expect(bal.free.eq('1.5')).toBe(true);
    const [t] = await client.accountTrades({ symbol: 'BTC_IDR', orderId: 912345, fromId: 1, direct: 'prev', rebateStatus: 10 });
    expect(businessParams(server.only('GET', '/open/v1/orders/trades'))).toEqual({ symbol: 'BTC_IDR', orderId: '912345', fromId: '1', direct: 'prev', rebateStatus: '10' });
    expect(t).toMatchObject({ tradeId: '77', matchId: '5', isBuyer: true, isMaker: false, time: 1700000000001 });
    expect(t?.commission.eq('1999.99')).toBe(true);
    await expect(client.accountTrades({ symbol: 'BTC_IDR', fromId: 1 })).rejects.toThrow(/direct.*required when fromId/);
  });

  it('withdraw(): signed body, clientId generated and returned with withdrawId', async () => {
    server.on('POST', '/open/v1/withdraws', signed(() => ({ json: ok({ withdrawId: 'w-1' }) })));
    const ack = await client.withdraw({ asset: 'BTC', address: 'bc1qxyz', amount: '0.01', network: 'BTC', addressTag: 'memo' });
    const p = businessParams(server.only('POST', '/open/v1/withdraws'));
    expect(p).toEqual({ asset: 'BTC', clientId: ack.clientId, network: 'BTC', address: 'bc1qxyz', addressTag: 'memo', amount: '0.01' });
    expect(ack.withdrawId).toBe('w-1');
    await expect(client.withdraw({ asset: 'BTC', address: 'a'.repeat(129), amount: '1' })).rejects.toThrow(/address/);
  });

  it('withdrawHistory() and deposits(): status codes, records parsed', async () => {
    server.on('GET', '/open/v1/withdraws', signed(() => ({
      json: ok({ list: [{ id: 1, clientId: 'c', asset: 'BTC', network: 'BTC', address: 'a', amount: '0.1', fee: '0.0005', txId: '', status: 10, createTime: 5 }] }),
    })));
    server.on('GET', '/open/v1/deposits', signed(() => ({
      json: ok({ list: [{ id: 2, asset: 'IDR', network: 'BANK', address: 'x', addressTag: '', txId: 't', amount: '100000', status: 1, insertTime: '6' }] }),
    })));
    const [w] = await client.withdrawHistory({ asset: 'BTC', status: 'COMPLETED', fromId: 3 });
    const [d] = await client.deposits({ status: 'SUCCESS', startTime: 1, endTime: 9 });
    expect(businessParams(server.only('GET', '/open/v1/withdraws'))).toEqual({ asset: 'BTC', status: '10', fromId: '3' });
    expect(businessParams(server.only('GET', '/open/v1/deposits'))).toEqual({ status: '1', startTime: '1', endTime: '9' });
    expect(w).toMatchObject({ id: '1', status: 'COMPLETED', txId: '', createTime: 5 });
    expect(w?.fee.eq('0.0005')).toBe(true);
    expect(d).toMatchObject({ id: '2', status: 'SUCCESS', insertTime: 6 });
  });

  it('depositAddress()', async () => {
    server.on('GET', '/open/v1/deposits/address', signed(() => ({ json: ok({ address: 'bc1q', addressTag: '', asset: 'BTC' }) })));
    expect(await client.depositAddress({ asset: 'BTC', network: 'BTC' })).toEqual({ address: 'bc1q', addressTag: '', asset: 'BTC' });
    expect(businessParams(server.only('GET', '/open/v1/deposits/address'))).toEqual({ asset: 'BTC', network: 'BTC' });
  });
});

describe('user data stream keys and listen token', () => {
  it('listen key create / keep-alive / close on both symbol-type paths, with the API key header', async () => {
    for (const path of ['/open/v1/user-data-stream', '/open/v1/private-n/user-data-stream']) {
      server.on('POST', path, { json: ok(`key-for-${path}`) });
      // The spec's answer to keep-alive and close is an empty object; an envelope is accepted too.
      server.on('PUT', path, { json: {} });
      server.on('DELETE', path, { json: ok({}) });
    }
    expect(await client.createListenKey(1)).toBe('key-for-/open/v1/user-data-stream');
    expect(await client.createListenKey(3)).toBe('key-for-/open/v1/private-n/user-data-stream');
    await client.keepAliveListenKey(1, 'k1');
    await client.closeListenKey(3, 'k3');
    expect(server.only('PUT', '/open/v1/user-data-stream').query).toEqual({ listenKey: 'k1' });
    expect(server.only('DELETE', '/open/v1/private-n/user-data-stream').query).toEqual({ listenKey: 'k3' });
    for (const r of server.requests) expect(r.header('x-mbx-apikey')).toBe(OPEN_KEY);
    await expect(client.createListenKey(2 as 1)).rejects.toThrow(/symbolType/);
    await expect(client.keepAliveListenKey(1, 'x'.repeat(65))).rejects.toThrow(/listenKey/);
  });

  it('createListenToken(): signed, validity sent, above 24 h refused', async () => {
    server.on('POST', '/open/v1/user-listen-token', signed(() => ({ json: ok({ token: 'tok', expirationTime: 1_700_003_600_000 }) })));
    expect(await client.createListenToken(3_600_000)).toEqual({ token: 'tok', expirationTime: 1_700_003_600_000 });
    expect(businessParams(server.only('POST', '/open/v1/user-listen-token'))).toEqual({ validity: '3600000' });
    await expect(client.createListenToken(86_400_001)).rejects.toThrow(ValidationError);
  });
});

describe('rate limits', () => {
  it('records X-MBX-USED-WEIGHT-* and X-MBX-ORDER-COUNT-* per host', async () => {
    server.on('POST', '/open/v1/orders', signed(() => ({ headers: { 'X-MBX-USED-WEIGHT-1M': '12', 'x-mbx-used-weight-1h': '40', 'X-MBX-ORDER-COUNT-10S': '3' }, json: ok(wireNewOrder, 'message') })));
    await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' });
    const origin = new URL(server.url).origin;
    expect(client.rateLimits.usedWeight(origin, '1M')).toBe(12);
    expect(client.rateLimits.usedWeight(origin, '1H')).toBe(40);
    expect(client.rateLimits.orderCount(origin, '10S')).toBe(3);
    expect(client.rateLimits.host(origin)).toMatchObject({ usedWeight: { '1M': 12, '1H': 40 }, orderCount: { '10S': 3 }, blockedUntil: undefined });
  });

  it('429 with Retry-After: RateLimitedError, then local refusal without a request until it passes', async () => {
    let status = 429;
    server.on('GET', '/open/v1/common/time', () => (status === 429 ? { status: 429, headers: { 'Retry-After': '7' }, json: { code: -1003, msg: 'Too many requests' } } : { json: { code: 0, msg: '', timestamp: 1 } }));
    const err = await client.time().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ httpStatus: 429, retryAfterMs: 7_000, bannedUntil: undefined });
    expect(server.requests).toHaveLength(1);
    const origin = new URL(server.url).origin;
    expect(client.rateLimits.host(origin)).toMatchObject({ blockedUntil: clock.t + 7_000, blockedBy: 429 });
    // Every path on the same host is refused locally; the server sees nothing.
    const local = await client.symbols().catch((e: unknown) => e);
    expect(local).toBeInstanceOf(RateLimitedError);
    expect(local).toMatchObject({ httpStatus: undefined, retryAfterMs: 7_000 });
    clock.t += 6_999;
    await expect(client.time()).rejects.toMatchObject({ retryAfterMs: 1 });
    expect(server.requests).toHaveLength(1);
    clock.t += 1;
    status = 200;
    expect(await client.time()).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('403 (web application firewall limit): the host is backed off like a 429, orders included, instead of hammered', async () => {
    server.on('POST', '/open/v1/orders', { status: 403, text: '<html>403 Forbidden</html>' });
    server.on('GET', '/open/v1/common/time', { json: { code: 0, msg: '', timestamp: 1 } });
    const err = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-waf' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ httpStatus: 403 });
    // Nothing more reaches the host until the wait (no Retry-After: the 429 default) has passed.
    await expect(client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-waf2' })).rejects.toBeInstanceOf(RateLimitedError);
    await expect(client.time()).rejects.toBeInstanceOf(RateLimitedError);
    expect(server.requests).toHaveLength(1);
    clock.t += 60_000;
    expect(await client.time()).toBe(1);
  });

  it('418 ban: bannedUntil set, only that host refused', async () => {
    const other = await LoopbackServer.start();
    try {
      const c = new OpenClient({ baseUrl: server.url, marketUrl: other.url, depthUrl: other.url, clock, retry: FAST_RETRY });
      server.on('GET', '/open/v1/common/time', { status: 418, headers: { 'Retry-After': '120' }, json: { code: -1003, msg: 'banned' } });
      other.on('GET', '/api/v3/depth', { json: { lastUpdateId: 1, bids: [], asks: [] } });
      const err = await c.time().catch((e: unknown) => e);
      expect(err).toMatchObject({ httpStatus: 418, retryAfterMs: 120_000, bannedUntil: clock.t + 120_000 });
      await expect(c.time()).rejects.toMatchObject({ bannedUntil: clock.t + 120_000, httpStatus: undefined });
      expect(server.requests).toHaveLength(1);
      await expect(c.depth({ symbol: 'BTC_IDR', symbolType: 1 })).resolves.toMatchObject({ lastUpdateId: 1 });
      expect(c.rateLimits.bannedUntil(new URL(server.url).origin)).toBe(clock.t + 120_000);
      await c.close();
    } finally {
      await other.close();
    }
  });
});

describe('error paths', () => {
  it('401 -> AuthenticationError', async () => {
    server.on('GET', '/open/v1/account/spot', { status: 401, json: { code: -2015, msg: 'Invalid API-key' } });
    const err = await client.account().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toContain('Invalid API-key');
  });

  it('a refused signature, a GET whose signed query fails and an order whose answer is lost: no error or log line carries the key, the secret or a signature', async () => {
    const logger = capturingLogger();
    const c = makeClient({ logger, timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    try {
      server.on('GET', '/open/v1/account/spot', { status: 401, json: { code: -1022, msg: 'Signature for this request is not valid.' } });
      server.on('GET', '/open/v1/orders/detail', { reset: true });
      server.on('POST', '/open/v1/orders', { hang: true });
      const errors = [
        await c.account().catch((e: unknown) => e),
        await c.orderDetail({ orderId: '1' }).catch((e: unknown) => e),
        await c.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e),
      ];
      expect(errors[0]).toBeInstanceOf(AuthenticationError);
      expect(errors[1]).toBeInstanceOf(NetworkError);
      expect(errors[2]).toBeInstanceOf(UnknownOutcomeError);
      const signatures = server.requests.map((r) => r.params.signature).filter((x): x is string => x !== undefined);
      expect(signatures.length).toBeGreaterThanOrEqual(4);
      expect(logger.lines.length).toBeGreaterThan(0);
      expectNoSecrets(logger.lines, errors, [OPEN_KEY, OPEN_SECRET, ...signatures]);
    } finally {
      await c.close();
    }
  });

  it('5XX on order placement -> UnknownOutcomeError carrying the clientId, exactly one request', async () => {
    server.on('POST', '/open/v1/orders', { status: 503, json: { code: -1, msg: 'busy' } });
    const err = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    const sent = server.only('POST', '/open/v1/orders').params.clientId;
    expect((err as UnknownOutcomeError).clientId).toBe(sent);
    expect((err as UnknownOutcomeError).httpStatus).toBe(503);
  });

  it('5XX on cancel -> UnknownOutcomeError, exactly one request', async () => {
    server.on('POST', '/open/v1/orders/cancel', { status: 500, text: 'oops' });
    await expect(client.cancelOrder({ clientId: 'c-9' })).rejects.toMatchObject({ code: 'UNKNOWN_OUTCOME', clientId: 'c-9' });
    expect(server.received('POST', '/open/v1/orders/cancel')).toHaveLength(1);
  });

  it('5XX on a GET is retried with backoff, bounded', async () => {
    let n = 0;
    server.on('GET', '/open/v1/common/time', () => (++n < 3 ? { status: 502, text: 'bad gateway' } : { json: { code: 0, msg: '', timestamp: 42 } }));
    expect(await client.time()).toBe(42);
    expect(n).toBe(3);
    server.on('GET', '/open/v1/common/symbols', { status: 500, json: { code: -1, msg: 'down' } });
    const err = await client.symbols().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ httpStatus: 500, exchangeMsg: 'down' });
    expect(server.received('GET', '/open/v1/common/symbols')).toHaveLength(3);
  });

  it('envelope with a non-zero code -> ExchangeError with code and message (msg or message)', async () => {
    server.on('GET', '/open/v1/common/symbols', { json: { code: 3210, msg: 'symbol list unavailable', timestamp: 1 } });
    server.on('POST', '/open/v1/orders', { json: { code: 2202, message: 'insufficient balance', messageDetail: null, success: false, timestamp: 1 } });
    await expect(client.symbols()).rejects.toMatchObject({ code: 'EXCHANGE', exchangeCode: 3210, exchangeMsg: 'symbol list unavailable', httpStatus: 200 });
    // A definite rejection of an order is an ExchangeError, not an unknown outcome.
    const err = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ exchangeCode: 2202, exchangeMsg: 'insufficient balance' });
    expect(server.received('GET', '/open/v1/common/symbols')).toHaveLength(1);
  });

  it('4XX with a body -> ExchangeError naming the code', async () => {
    server.on('GET', '/open/v1/orders/detail', { status: 400, json: { code: -1021, msg: 'Timestamp outside recvWindow' } });
    await expect(client.orderDetail({ orderId: 1 })).rejects.toMatchObject({ httpStatus: 400, exchangeCode: -1021 });
  });

  it('malformed JSON: ParseError on a read, UnknownOutcomeError on an order (the server did act)', async () => {
    server.on('GET', '/open/v1/common/symbols', { text: '{"code":0,"data":{"list":[' });
    const err = await client.symbols().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/GET \/open\/v1\/common\/symbols response body.*malformed JSON/);
    server.on('POST', '/open/v1/orders', { text: '<html>ok</html>' });
    const err2 = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-1' }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(UnknownOutcomeError);
    expect(err2).toMatchObject({ clientId: 'c-1', httpStatus: 200 });
    expect((err2 as Error).cause).toBeInstanceOf(ParseError);
  });

  it('a payload of the wrong shape names the field', async () => {
    server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok({ ...wireAccount, accountAssets: [{ asset: 'BTC', free: 'lots', locked: '0' }] }) })));
    await expect(client.account()).rejects.toThrow(/account\.accountAssets\[0\]\.free/);
  });

  it('timeout: a read becomes NetworkError after bounded retries; an order becomes UnknownOutcomeError after one request', async () => {
    const slow = makeClient({ timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    try {
      server.on('GET', '/open/v1/common/time', { hang: true });
      server.on('POST', '/open/v1/orders', { hang: true });
      await expect(slow.time()).rejects.toBeInstanceOf(NetworkError);
      expect(server.received('GET', '/open/v1/common/time')).toHaveLength(2);
      const err = await slow.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownOutcomeError);
      expect((err as UnknownOutcomeError).clientId).toBe(server.only('POST', '/open/v1/orders').params.clientId);
      expect((err as Error).message).toMatch(/timeout/);
    } finally {
      await slow.close();
    }
  });

  it('a connection reset after the request went out: an order or a cancel is an unknown outcome (sent once), a read is retried', async () => {
    server.on('POST', '/open/v1/orders', { reset: true });
    server.on('POST', '/open/v1/orders/cancel', { reset: true });
    server.on('GET', '/open/v1/orders/detail', { reset: true });
    const placed = await client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1', clientId: 'c-reset' }).catch((e: unknown) => e);
    expect(placed).toBeInstanceOf(UnknownOutcomeError);
    expect(placed).toMatchObject({ clientId: 'c-reset' });
    const cancelled = await client.cancelOrder({ clientId: 'c-reset' }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(UnknownOutcomeError);
    const read = await client.orderDetail({ orderId: '1' }).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(NetworkError);
    expect(server.received('POST', '/open/v1/orders')).toHaveLength(1);
    expect(server.received('POST', '/open/v1/orders/cancel')).toHaveLength(1);
    expect(server.received('GET', '/open/v1/orders/detail')).toHaveLength(3);
    // None of these errors may carry the credentials or the request's signature.
    const signature = server.only('POST', '/open/v1/orders').params.signature ?? 'no signature';
    expectNoSecrets([], [placed, cancelled, read], [OPEN_KEY, OPEN_SECRET, signature]);
  });

  it('connection refused on an order is a NetworkError (nothing was sent), not an unknown outcome', async () => {
    const gone = await LoopbackServer.start();
    const url = gone.url;
    await gone.close();
    const c = new OpenClient({ baseUrl: url, marketUrl: url, depthUrl: url, apiKey: OPEN_KEY, apiSecret: OPEN_SECRET, clock, retry: FAST_RETRY });
    try {
      await expect(c.newOrder({ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '1' })).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await c.close();
    }
  });

  it('recvWindow above 60000 is refused at construction and per call', async () => {
    expect(() => makeClient({ recvWindow: 60_001 })).toThrow(ValidationError);
    await expect(client.account({ recvWindow: 120_000 })).rejects.toThrow(/recvWindow/);
    expect(server.requests).toHaveLength(0);
  });

  it('SIGNED endpoints without credentials are refused before sending', async () => {
    const anon = new OpenClient({ baseUrl: server.url, marketUrl: server.url, depthUrl: server.url });
    try {
      await expect(anon.account()).rejects.toThrow(/API key/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await anon.close();
    }
  });

  it('an order id above 2^53 keeps every digit', async () => {
    const body = JSON.stringify(ok({ ...wireOrderDetail, orderId: 'BIG' }, 'message')).replace('"BIG"', '4611875134427364999');
    server.on('GET', '/open/v1/orders/detail', signed(() => ({ text: body })));
    expect((await client.orderDetail({ orderId: '4611875134427364999' })).orderId).toBe('4611875134427364999');
    expect(server.only('GET', '/open/v1/orders/detail').query.orderId).toBe('4611875134427364999');
  });
});
