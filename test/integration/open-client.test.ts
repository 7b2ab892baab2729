/**
 * OpenClient over real HTTP on 127.0.0.1: every endpoint of the spec's summary table, with the
 * test server checking method, path, headers, signature and parameters, (error paths: open-client-errors.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { Decimal, ValidationError } from '../../src/core/index.js';
import type { NewOrderParams } from '../../src/exchange/index.js';
import { openClientFixture } from '../support/openClientFixture.js';
import { OPEN_KEY, businessParams, signed } from '../support/openRoutes.js';
import { ok, wireAccount, wireAccountTrade, wireKline, wireNewOrder, wireOco, wireOrderDetail, wireSymbol } from '../support/openWire.js';

const f = openClientFixture();

describe('general endpoints', () => {
  it('time() returns the envelope timestamp; syncTime() makes signed timestamps follow the server', async () => {
    f.server.on('GET', '/open/v1/common/time', { json: { code: 0, msg: 'Success', timestamp: 1_700_000_005_000 } });
    expect(await f.client.time()).toBe(1_700_000_005_000);
    expect(await f.client.syncTime()).toBe(5_000);
    f.server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok(wireAccount) })));
    await f.client.account();
    expect(f.server.only('GET', '/open/v1/account/spot').query.timestamp).toBe('1700000005000');
  });

  it('symbols() parses data.list with filters as decimals and flags as booleans', async () => {
    f.server.on('GET', '/open/v1/common/symbols', { json: ok({ list: [wireSymbol] }) });
    const [s] = await f.client.symbols();
    expect(s?.symbol).toBe('BTC_IDR');
    expect(s?.type).toBe(1);
    expect(s?.filters.priceFilter?.tickSize.eq('1')).toBe(true);
    expect(s?.filters.lotSize?.stepSize.eq('0.00001')).toBe(true);
    expect(s?.filters.notional?.minNotional.eq('20000')).toBe(true);
    expect(s?.filters.maxNumOrders).toBe(200);
    expect(s?.orderTypes).toContain('LIMIT_MAKER');
    expect(s?.allowedSelfTradePreventionModes).toEqual(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);
    expect([s?.icebergEnable, s?.ocoEnable, s?.marginTradingEnable]).toEqual([true, true, false]);
    expect(f.server.only('GET', '/open/v1/common/symbols').header('x-mbx-apikey')).toBeUndefined();
  });

  it('systemConfig() finds the field ending with WssApiBaseUrl', async () => {
    f.server.on('GET', '/v1/common/system-config', {
      json: ok({ vendorWssApiBaseUrl: 'wss://ws-api.example/ws-api/v3', vendorWssApiBaseUrlList: ['wss://a/ws-api/v3', 'wss://b/ws-api/v3'], other: 1 }),
    });
    const cfg = await f.client.systemConfig();
    expect(cfg.wsApiUrl).toBe('wss://ws-api.example/ws-api/v3');
    expect(cfg.wsApiUrlList).toEqual(['wss://a/ws-api/v3', 'wss://b/ws-api/v3']);
  });

  it('executionRules() goes to the market host, respells the symbol, reads the un-enveloped body', async () => {
    f.server.on('GET', '/market/api/v3/executionRules', {
      json: { symbolRules: [{ symbol: 'BTCIDR', rules: [{ ruleType: 'PRICE_RANGE', bidLimitMultUp: '1.05', askLimitMultDown: '0.95' }, { ruleType: 'FUTURE_RULE', x: 1 }] }] },
    });
    const rules = await f.client.executionRules({ symbol: 'BTC_IDR' });
    expect(f.server.only('GET', '/market/api/v3/executionRules').query).toEqual({ symbol: 'BTCIDR' });
    expect(rules.priceRange).toHaveLength(1);
    expect(rules.priceRange[0]?.bidLimitMultUp?.eq('1.05')).toBe(true);
    expect(rules.priceRange[0]?.bidLimitMultDown).toBeUndefined();
    expect(rules.other).toEqual([{ symbol: 'BTCIDR', rule: { ruleType: 'FUTURE_RULE', x: 1 } }]);
    await expect(f.client.executionRules({ symbol: 'BTC_IDR', symbolStatus: 'TRADING' })).rejects.toThrow(ValidationError);
  });

  it('executionRules() sends several symbols as a JSON array', async () => {
    f.server.on('GET', '/market/api/v3/executionRules', { json: { symbolRules: [] } });
    await f.client.executionRules({ symbols: ['BTC_IDR', 'ETH_IDR'] });
    expect(f.server.only('GET', '/market/api/v3/executionRules').query.symbols).toBe('["BTCIDR","ETHIDR"]');
  });

  it('referencePrice() reads price, null price and calculation type', async () => {
    f.server.on('GET', '/market/api/v3/referencePrice', (req) => ({
      json: req.query.symbol === 'BTCIDR' ? { symbol: 'BTCIDR', referencePrice: '1000000000.5', timestamp: 1, calculationType: 'EXTERNAL', externalCalculationId: 0 } : { symbol: req.query.symbol, referencePrice: null, timestamp: 2 },
    }));
    const r = await f.client.referencePrice('BTC_IDR');
    expect(r.referencePrice?.eq('1000000000.5')).toBe(true);
    expect(r.calculationType).toBe('EXTERNAL');
    expect(r.externalCalculationId).toBe(0);
    expect((await f.client.referencePrice('ETH_IDR')).referencePrice).toBeNull();
  });
});

describe('market data routing by symbol type', () => {
  const book = { lastUpdateId: 246126979, bids: [['1421496253.00', '0.04232000']], asks: [['1422922291.00', '0.03799000']] };

  it('depth: type 1 market host without underscore (no envelope), type 3 depth host, type 2 main host', async () => {
    f.server.on('GET', '/market/api/v3/depth', { json: book });
    f.server.on('GET', '/depth/api/v1/depth', { json: ok(book) });
    f.server.on('GET', '/open/v1/market/depth', { json: ok(book) });
    const s1 = await f.client.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 5 });
    await f.client.depth({ symbol: 'ALCH_IDR', symbolType: 3 });
    await f.client.depth({ symbol: 'NXT_IDR', symbolType: 2, limit: 1000 });
    expect(f.server.only('GET', '/market/api/v3/depth').query).toEqual({ symbol: 'BTCIDR', limit: '5' });
    expect(f.server.only('GET', '/depth/api/v1/depth').query).toEqual({ symbol: 'ALCH_IDR' });
    expect(f.server.only('GET', '/open/v1/market/depth').query).toEqual({ symbol: 'NXT_IDR', limit: '1000' });
    expect(s1.lastUpdateId).toBe(246126979);
    expect(s1.bids[0]?.price.eq('1421496253')).toBe(true);
    expect(s1.asks[0]?.qty.eq('0.03799')).toBe(true);
  });

  it('depth: a limit outside the allowed set is refused before sending', async () => {
    await expect(f.client.depth({ symbol: 'BTC_IDR', symbolType: 1, limit: 7 as 5 })).rejects.toThrow(/limit/);
    expect(f.server.requests).toHaveLength(0);
  });

  it('trades: type 1 market host (bare array), other types /open/v1/market/trades (data.list)', async () => {
    const t = { id: 899732, price: '1362602579.00', qty: '0.00119000', time: 1787316719435, isBuyerMaker: true, isBestMatch: true };
    f.server.on('GET', '/market/api/v3/trades', { json: [t] });
    f.server.on('GET', '/open/v1/market/trades', { json: ok({ list: [t, { ...t, id: 899733 }] }) });
    const a = await f.client.trades({ symbol: 'BTC_IDR', symbolType: 1, limit: 1 });
    const b = await f.client.trades({ symbol: 'ALCH_IDR', symbolType: 3, fromId: 10 });
    expect(f.server.only('GET', '/market/api/v3/trades').query).toEqual({ symbol: 'BTCIDR', limit: '1' });
    expect(f.server.only('GET', '/open/v1/market/trades').query).toEqual({ symbol: 'ALCH_IDR', fromId: '10' });
    expect(a[0]?.price.eq('1362602579')).toBe(true);
    expect(b.map((x) => x.id)).toEqual(['899732', '899733']);
    await expect(f.client.trades({ symbol: 'BTC_IDR', symbolType: 1, limit: 1001 })).rejects.toThrow(ValidationError);
  });

  it('aggTrades: type 1 market host, type 3 depth host; fields a p q f l T m', async () => {
    const agg = { a: 14434, p: '500.00', q: '42.00000000', f: 15579, l: 15579, T: 1787301873244, m: false };
    f.server.on('GET', '/market/api/v3/aggTrades', { json: [agg] });
    f.server.on('GET', '/depth/api/v1/aggTrades', { json: ok({ list: [agg] }) });
    const [x] = await f.client.aggTrades({ symbol: 'BTC_IDR', symbolType: 1, startTime: 1, endTime: 2 });
    await f.client.aggTrades({ symbol: 'ALCH_IDR', symbolType: 3, limit: 1 });
    expect(f.server.only('GET', '/market/api/v3/aggTrades').query).toEqual({ symbol: 'BTCIDR', startTime: '1', endTime: '2' });
    expect(f.server.only('GET', '/depth/api/v1/aggTrades').query).toEqual({ symbol: 'ALCH_IDR', limit: '1' });
    expect(x).toMatchObject({ aggId: '14434', firstTradeId: '15579', lastTradeId: '15579', time: 1787301873244, isBuyerMaker: false, isBestMatch: false });
    expect(x?.qty.eq(42)).toBe(true);
    await expect(f.client.aggTrades({ symbol: 'BTC_IDR', symbolType: 1, startTime: 5, endTime: 4 })).rejects.toThrow(/startTime/);
  });

  it('klines: type 1 market host, type 3 depth host; 12-position arrays', async () => {
    f.server.on('GET', '/market/api/v3/klines', { json: [wireKline] });
    f.server.on('GET', '/depth/api/v1/klines', { json: ok([wireKline, wireKline]) });
    const [k] = await f.client.klines({ symbol: 'BTC_IDR', symbolType: 1, interval: '1h', limit: 2 });
    expect((await f.client.klines({ symbol: 'ALCH_IDR', symbolType: 3, interval: '1m' })).length).toBe(2);
    expect(f.server.only('GET', '/market/api/v3/klines').query).toEqual({ symbol: 'BTCIDR', interval: '1h', limit: '2' });
    expect(f.server.only('GET', '/depth/api/v1/klines').query).toEqual({ symbol: 'ALCH_IDR', interval: '1m' });
    expect(k).toMatchObject({ openTime: 1787817600000, closeTime: 1787821199999, trades: 9, interval: '1h' });
    expect(k?.high.eq('537')).toBe(true);
    expect(k?.takerBuyQuoteVolume.eq('548331.93')).toBe(true);
    await expect(f.client.klines({ symbol: 'BTC_IDR', symbolType: 1, interval: '2m' as '1m' })).rejects.toThrow(/interval/);
  });
});

describe('orders', () => {
  it('newOrder LIMIT: signed form body with codes, generated clientId, parsed response (message field, borderId)', async () => {
    f.server.on('POST', '/open/v1/orders', signed(() => ({ json: { ...ok(wireNewOrder, 'message'), messageDetail: null, success: true } })));
    const order = await f.client.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', quantity: '0.001', price: new Decimal('1000000000'), timeInForce: 'GTC', selfTradePreventionMode: 'EXPIRE_BOTH' });
    const req = f.server.only('POST', '/open/v1/orders');
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
    f.server.on('POST', '/open/v1/orders', signed(() => ({ json: ok(wireNewOrder, 'message') })));
    const cases: [NewOrderParams, Record<string, string>][] = [
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'MARKET', quantity: '0.5' }, { type: '2', side: '1', quantity: '0.5' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'MARKET', quoteOrderQty: '50000' }, { type: '2', side: '0', quoteOrderQty: '50000' }],
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'STOP_LOSS', quantity: '1', stopPrice: '90' }, { type: '3', side: '1', quantity: '1', stopPrice: '90' }],
      [{ symbol: 'BTC_IDR', side: 'SELL', type: 'STOP_LOSS_LIMIT', quantity: '1', price: '89', stopPrice: '90', icebergQty: '0.1' }, { type: '4', side: '1', quantity: '1', price: '89', stopPrice: '90', icebergQty: '0.1', timeInForce: '1' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT', quantity: '1', stopPrice: '80' }, { type: '5', side: '0', quantity: '1', stopPrice: '80' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'TAKE_PROFIT_LIMIT', quantity: '1', price: '81', stopPrice: '80', timeInForce: 'FOK' }, { type: '6', side: '0', quantity: '1', price: '81', stopPrice: '80', timeInForce: '3' }],
      [{ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT_MAKER', quantity: '1', price: '79', clientId: 'mine-1' }, { type: '7', side: '0', quantity: '1', price: '79', clientId: 'mine-1' }],
    ];
    for (const [params] of cases) await f.client.newOrder(params);
    const got = f.server.received('POST', '/open/v1/orders').map(businessParams);
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
      const err = await f.client.newOrder(params).catch((e: unknown) => e);
      expect(err, JSON.stringify(params)).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field, JSON.stringify(params)).toBe(field);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('orderDetail: signed GET with the signature in the query; strings parsed', async () => {
    f.server.on('GET', '/open/v1/orders/detail', signed(() => ({ json: ok(wireOrderDetail, 'message') })));
    const o = await f.client.orderDetail({ orderId: 912345n, clientId: 'abc123' });
    const req = f.server.only('GET', '/open/v1/orders/detail');
    expect(req.rawBody).toBe('');
    expect(businessParams(req)).toEqual({ orderId: '912345', clientId: 'abc123' });
    expect(o).toMatchObject({ orderId: '912345', status: 'FILLED', bOrderId: '7f0c', taxFeeAsset: 'IDR' });
    expect(o.executedQuoteQty.eq('999999.99')).toBe(true);
    expect(o.taxFee?.eq('0.12')).toBe(true);
  });

  it('cancelOrder by orderId or by clientId, never both', async () => {
    f.server.on('POST', '/open/v1/orders/cancel', signed(() => ({ json: ok({ ...wireOrderDetail, status: 3 }, 'message') })));
    expect((await f.client.cancelOrder({ orderId: '912345' })).status).toBe('CANCELED');
    await f.client.cancelOrder({ clientId: 'abc123' });
    expect(f.server.received('POST', '/open/v1/orders/cancel').map(businessParams)).toEqual([{ orderId: '912345' }, { clientId: 'abc123' }]);
    await expect(f.client.cancelOrder({ orderId: 1, clientId: 'x' } as never)).rejects.toThrow(ValidationError);
    await expect(f.client.cancelOrder({} as never)).rejects.toThrow(ValidationError);
  });

  it('allOrders: codes for type and side, direct required with fromId', async () => {
    f.server.on('GET', '/open/v1/orders', signed(() => ({ json: ok({ list: [wireOrderDetail, wireNewOrder] }) })));
    const list = await f.client.allOrders({ symbol: 'BTC_IDR', type: 'ALL', side: 'SELL', fromId: '5', direct: 'next', limit: 10, startTime: 1, endTime: 2 });
    expect(businessParams(f.server.only('GET', '/open/v1/orders'))).toEqual({ symbol: 'BTC_IDR', type: '-1', side: '1', startTime: '1', endTime: '2', fromId: '5', direct: 'next', limit: '10' });
    expect(list.map((o) => o.status)).toEqual(['FILLED', 'NEW']);
    await expect(f.client.allOrders({ symbol: 'BTC_IDR', fromId: '5' })).rejects.toThrow(/direct/);
    await expect(f.client.allOrders({ symbol: 'BTC_IDR', fromId: '5', direct: 'up' as unknown as 'prev' })).rejects.toThrow(/prev or next/);
  });

  it('newOco: signed body, generated listClientId, order list parsed', async () => {
    f.server.on('POST', '/open/v1/orders/oco', signed(() => ({ json: ok(wireOco, 'message') })));
    const list = await f.client.newOco({ symbol: 'BTC_IDR', side: 'SELL', quantity: '1', price: '1100000000', stopPrice: '950000000', stopLimitPrice: '900000000', limitClientId: 'L1' });
    const p = businessParams(f.server.only('POST', '/open/v1/orders/oco'));
    expect(p.listClientId).toMatch(/^k[0-9a-f]{32}$/);
    expect({ ...p, listClientId: undefined }).toEqual({ symbol: 'BTC_IDR', listClientId: undefined, side: '1', quantity: '1', limitClientId: 'L1', price: '1100000000', stopPrice: '950000000', stopLimitPrice: '900000000' });
    expect(list).toMatchObject({ bOrderListId: '88', contingencyType: 'OCO', listOrderStatus: 'EXECUTING' });
    expect(list.orders.map((o) => o.type)).toEqual(['STOP_LOSS_LIMIT', 'LIMIT_MAKER']);
    await expect(f.client.newOco({ symbol: 'BTC_IDR', side: 'SELL', quantity: '1', price: '90', stopPrice: '95', stopLimitPrice: '89' })).rejects.toThrow(/price/);
  });
});

describe('account and wallet', () => {
  it('account(), asset(), accountTrades()', async () => {
    f.server.on('GET', '/open/v1/account/spot', signed(() => ({ json: ok(wireAccount) })));
    f.server.on('GET', '/open/v1/account/spot/asset', signed(() => ({ json: ok({ asset: 'BTC', free: '1.5', locked: '0' }) })));
    f.server.on('GET', '/open/v1/orders/trades', signed(() => ({ json: ok({ list: [wireAccountTrade] }) })));
    const acc = await f.client.account({ recvWindow: 10_000 });
    expect(f.server.only('GET', '/open/v1/account/spot').query.recvWindow).toBe('10000');
    expect(acc).toMatchObject({ canTrade: true, canWithdraw: true, canDeposit: false });
    expect(acc.balances[0]?.free.eq('0.12345678')).toBe(true);
    expect(acc.takerCommission.eq('0.002')).toBe(true);
    const bal = await f.client.asset('BTC');
    expect(businessParams(f.server.only('GET', '/open/v1/account/spot/asset'))).toEqual({ asset: 'BTC' });
    expect(bal.free.eq('1.5')).toBe(true);
    const [t] = await f.client.accountTrades({ symbol: 'BTC_IDR', orderId: 912345, fromId: 1, direct: 'prev', rebateStatus: 10 });
    expect(businessParams(f.server.only('GET', '/open/v1/orders/trades'))).toEqual({ symbol: 'BTC_IDR', orderId: '912345', fromId: '1', direct: 'prev', rebateStatus: '10' });
    expect(t).toMatchObject({ tradeId: '77', matchId: '5', isBuyer: true, isMaker: false, time: 1700000000001 });
    expect(t?.commission.eq('1999.99')).toBe(true);
    await expect(f.client.accountTrades({ symbol: 'BTC_IDR', fromId: 1 })).rejects.toThrow(/direct.*required when fromId/);
  });

  it('withdraw(): signed body, clientId generated and returned with withdrawId', async () => {
    f.server.on('POST', '/open/v1/withdraws', signed(() => ({ json: ok({ withdrawId: 'w-1' }) })));
    const ack = await f.client.withdraw({ asset: 'BTC', address: 'bc1qxyz', amount: '0.01', network: 'BTC', addressTag: 'memo' });
    const p = businessParams(f.server.only('POST', '/open/v1/withdraws'));
    expect(p).toEqual({ asset: 'BTC', clientId: ack.clientId, network: 'BTC', address: 'bc1qxyz', addressTag: 'memo', amount: '0.01' });
    expect(ack.withdrawId).toBe('w-1');
    await expect(f.client.withdraw({ asset: 'BTC', address: 'a'.repeat(129), amount: '1' })).rejects.toThrow(/address/);
  });

  it('withdrawHistory() and deposits(): status codes, records parsed', async () => {
    f.server.on('GET', '/open/v1/withdraws', signed(() => ({
      json: ok({ list: [{ id: 1, clientId: 'c', asset: 'BTC', network: 'BTC', address: 'a', amount: '0.1', fee: '0.0005', txId: '', status: 10, createTime: 5 }] }),
    })));
    f.server.on('GET', '/open/v1/deposits', signed(() => ({
      json: ok({ list: [{ id: 2, asset: 'IDR', network: 'BANK', address: 'x', addressTag: '', txId: 't', amount: '100000', status: 1, insertTime: '6' }] }),
    })));
    const [w] = await f.client.withdrawHistory({ asset: 'BTC', status: 'COMPLETED', fromId: 3 });
    const [d] = await f.client.deposits({ status: 'SUCCESS', startTime: 1, endTime: 9 });
    expect(businessParams(f.server.only('GET', '/open/v1/withdraws'))).toEqual({ asset: 'BTC', status: '10', fromId: '3' });
    expect(businessParams(f.server.only('GET', '/open/v1/deposits'))).toEqual({ status: '1', startTime: '1', endTime: '9' });
    expect(w).toMatchObject({ id: '1', status: 'COMPLETED', txId: '', createTime: 5 });
    expect(w?.fee.eq('0.0005')).toBe(true);
    expect(d).toMatchObject({ id: '2', status: 'SUCCESS', insertTime: 6 });
  });

  it('depositAddress()', async () => {
    f.server.on('GET', '/open/v1/deposits/address', signed(() => ({ json: ok({ address: 'bc1q', addressTag: '', asset: 'BTC' }) })));
    expect(await f.client.depositAddress({ asset: 'BTC', network: 'BTC' })).toEqual({ address: 'bc1q', addressTag: '', asset: 'BTC' });
    expect(businessParams(f.server.only('GET', '/open/v1/deposits/address'))).toEqual({ asset: 'BTC', network: 'BTC' });
  });
});

describe('user data stream keys and listen token', () => {
  it('listen key create / keep-alive / close on both symbol-type paths, with the API key header', async () => {
    for (const path of ['/open/v1/user-data-stream', '/open/v1/private-n/user-data-stream']) {
      f.server.on('POST', path, { json: ok(`key-for-${path}`) });
      // The spec's answer to keep-alive and close is an empty object; an envelope is accepted too.
      f.server.on('PUT', path, { json: {} });
      f.server.on('DELETE', path, { json: ok({}) });
    }
    expect(await f.client.createListenKey(1)).toBe('key-for-/open/v1/user-data-stream');
    expect(await f.client.createListenKey(3)).toBe('key-for-/open/v1/private-n/user-data-stream');
    await f.client.keepAliveListenKey(1, 'k1');
    await f.client.closeListenKey(3, 'k3');
    expect(f.server.only('PUT', '/open/v1/user-data-stream').query).toEqual({ listenKey: 'k1' });
    expect(f.server.only('DELETE', '/open/v1/private-n/user-data-stream').query).toEqual({ listenKey: 'k3' });
    for (const r of f.server.requests) expect(r.header('x-mbx-apikey')).toBe(OPEN_KEY);
    await expect(f.client.createListenKey(2 as 1)).rejects.toThrow(/symbolType/);
    await expect(f.client.keepAliveListenKey(1, 'x'.repeat(65))).rejects.toThrow(/listenKey/);
  });

  it('createListenToken(): signed, validity sent, above 24 h refused', async () => {
    f.server.on('POST', '/open/v1/user-listen-token', signed(() => ({ json: ok({ token: 'tok', expirationTime: 1_700_003_600_000 }) })));
    expect(await f.client.createListenToken(3_600_000)).toEqual({ token: 'tok', expirationTime: 1_700_003_600_000 });
    expect(businessParams(f.server.only('POST', '/open/v1/user-listen-token'))).toEqual({ validity: '3600000' });
    await expect(f.client.createListenToken(86_400_001)).rejects.toThrow(ValidationError);
  });
});
