import { beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { checkIntent } from './checkIntent.js';
import { fixtureRules } from './fixtures.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { levels, StaticBook, StaticRiskContext } from './testkit.js';
import type { RiskDecision } from './types.js';

const D = (s: string): Decimal => new Decimal(s);

type DecField = 'price' | 'quantity' | 'stopPrice' | 'icebergQty' | 'quoteOrderQty';
/** Place-intent overrides with decimal fields written as strings (undefined removes a field). */
type Over = Partial<Omit<PlaceIntent, 'kind' | DecField>> & Partial<Record<DecField, string | undefined>>;

function place(over: Over = {}): PlaceIntent {
  const conv: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(over)) conv[k] = typeof v === 'string' && ['price', 'quantity', 'stopPrice', 'icebergQty', 'quoteOrderQty'].includes(k) ? D(v) : v;
  return { kind: 'place', strategy: 's', intentId: 'i1', clientId: 's-1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: D('1000000000'), quantity: D('0.001'), ...conv } as PlaceIntent;
}

type Check = (i: Intent, c: StaticRiskContext) => RiskDecision;

describe.each([
  ['fast', checkIntent as Check],
  ['reference', checkIntentReference as Check],
])('%s checker', (_name, check) => {
  let ctx: StaticRiskContext;
  beforeEach(() => {
    ctx = new StaticRiskContext(fixtureRules());
    ctx.balances.set('IDR', D('100000000000'));
    ctx.balances.set('BTC', D('10'));
    ctx.balances.set('USDT', D('100000'));
    ctx.balances.set('ETH', D('100'));
    ctx.avg.set('BTC_IDR', D('1000000000'));
    ctx.refs.set('BTC_IDR', D('1000000000'));
    ctx.books.set('BTC_IDR', new StaticBook('BTC_IDR', levels([['999999000', '0.5'], ['999990000', '1']]), levels([['1000001000', '0.5'], ['1000010000', '1']])));
  });
  const rejects = (i: Intent, reason: string, text?: RegExp): void => {
    const d = check(i, ctx);
    expect(d.kind).toBe('reject');
    if (d.kind === 'reject') {
      expect(d.reason).toBe(reason);
      if (text) expect(d.message).toMatch(text);
    }
  };

  it('accepts a valid limit order without allocating a new verdict', () => {
    expect(check(place(), ctx)).toEqual({ kind: 'accept' });
  });

  it('passes cancels whatever the state', () => {
    ctx.state = 'HALTED';
    expect(check({ kind: 'cancel', strategy: 's', intentId: 'i', symbol: 'BTC_IDR', clientId: 's-1' }, ctx).kind).toBe('accept');
    expect(check({ kind: 'cancelAll', strategy: 's', intentId: 'i' }, ctx).kind).toBe('accept');
    rejects(place(), 'TRADING_HALTED');
  });

  it('REDUCING passes only orders that reduce the position', () => {
    ctx.state = 'REDUCING';
    ctx.positions.set('BTC', D('0.002'));
    rejects(place(), 'REDUCING_ONLY', /side=BUY quantity=0.001/);
    expect(check(place({ side: 'SELL', quantity: '0.002' }), ctx).kind).toBe('accept');
    ctx.openSell.set('BTC_IDR', D('0.0015'));
    rejects(place({ side: 'SELL', quantity: '0.001' }), 'REDUCING_ONLY');
    ctx.positions.set('BTC', D('-0.003'));
    expect(check(place({ side: 'BUY', quantity: '0.003' }), ctx).kind).toBe('accept');
  });

  it('halts one symbol while its book resyncs', () => {
    ctx.states.set('BTC_IDR', 'HALTED');
    rejects(place(), 'TRADING_HALTED', /BTC_IDR/);
    expect(check(place({ symbol: 'ETH_USDT', price: '2000', quantity: '1' }), ctx).kind).toBe('accept');
  });

  it('checks symbol, order type, STP mode and trading switch', () => {
    rejects(place({ symbol: 'NOPE_IDR' }), 'UNKNOWN_SYMBOL', /NOPE_IDR/);
    rejects(place({ symbol: 'ETH_USDT', orderType: 'TAKE_PROFIT', price: undefined, stopPrice: '2000', quantity: '1' }), 'ORDER_TYPE_NOT_SUPPORTED', /orderType=TAKE_PROFIT/);
    rejects(place({ symbol: 'ETH_USDT', price: '2000', quantity: '1', stpMode: 'DECREMENT' }), 'STP_MODE_NOT_ALLOWED', /stpMode=DECREMENT/);
  });

  it('requires and refuses parameters per order type', () => {
    rejects(place({ price: undefined }), 'MISSING_PARAMETER', /price is required for LIMIT/);
    rejects(place({ orderType: 'STOP_LOSS_LIMIT' }), 'MISSING_PARAMETER', /stopPrice/);
    rejects(place({ orderType: 'MARKET' }), 'INVALID_PARAMETER', /price=1000000000 is not used by MARKET/);
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: undefined }), 'MISSING_PARAMETER', /quoteOrderQty/);
    rejects(place({ orderType: 'MARKET', side: 'SELL', price: undefined, quantity: undefined, quoteOrderQty: '50000' }), 'INVALID_PARAMETER', /quoteOrderQty=50000 is only for MARKET BUY/);
    rejects(place({ orderType: 'MARKET', price: undefined, quoteOrderQty: '50000' }), 'INVALID_PARAMETER', /mutually exclusive/);
    rejects(place({ quantity: '-0.001' }), 'INVALID_PARAMETER', /quantity=-0.001 must be positive/);
    rejects(place({ stopPrice: '5' }), 'INVALID_PARAMETER', /stopPrice=5 is not used by LIMIT/);
  });

  it('applies iceberg rules', () => {
    rejects(place({ icebergQty: '0.0001', timeInForce: 'IOC' }), 'ICEBERG_NOT_GTC', /timeInForce=IOC/);
    rejects(place({ symbol: 'ETH_USDT', price: '2000', quantity: '1', icebergQty: '0.1' }), 'ICEBERG_DISABLED');
    rejects(place({ orderType: 'LIMIT_MAKER', icebergQty: '0.0001' }), 'INVALID_PARAMETER', /icebergQty=0.0001 is not allowed with LIMIT_MAKER/);
    rejects(place({ quantity: '0.01', icebergQty: '0.0009' }), 'ICEBERG_PARTS', /needs more than 10 parts/);
    expect(check(place({ quantity: '0.01', icebergQty: '0.001' }), ctx).kind).toBe('accept');
    rejects(place({ quantity: '0.01', icebergQty: '0.000001' }), 'LOT_SIZE', /icebergQty=0.000001/);
  });

  it('PRICE_FILTER: min, max, tick, on price and stopPrice', () => {
    rejects(place({ symbol: 'ETH_USDT', price: '0.001', quantity: '10000' }), 'PRICE_FILTER', /price=0.001 is below minPrice 0.01/);
    rejects(place({ price: '20000000000' }), 'PRICE_FILTER', /price=20000000000 is above maxPrice 10000000000/);
    rejects(place({ price: '1000000000.5' }), 'PRICE_FILTER', /price=1000000000.5 is not minPrice 1 plus a multiple of tickSize 1/);
    rejects(place({ orderType: 'STOP_LOSS_LIMIT', stopPrice: '999.5' }), 'PRICE_FILTER', /stopPrice=999.5/);
  });

  it('adjust mode rounds toward the safe side and reports the fields', () => {
    ctx.mode = 'adjust';
    const buy = check(place({ price: '1000000000.7', quantity: '0.0010099' }), ctx);
    expect(buy.kind).toBe('adjust');
    if (buy.kind === 'adjust') {
      expect(buy.intent.price?.toFixed()).toBe('1000000000');
      expect(buy.intent.quantity?.toFixed()).toBe('0.001');
      expect(buy.fields).toEqual(['price', 'quantity']);
    }
    const sell = check(place({ side: 'SELL', price: '1000000000.2' }), ctx);
    expect(sell.kind === 'adjust' && sell.intent.price?.toFixed()).toBe('1000000001');
    ctx.mode = 'reject';
    rejects(place({ quantity: '0.0010099' }), 'LOT_SIZE', /quantity=0.0010099 is not minQty 0.00001 plus a multiple of stepSize 0.00001/);
  });

  it('adjust mode can round a quantity below minQty, which is then refused', () => {
    ctx.mode = 'adjust';
    rejects(place({ quantity: '0.000009' }), 'LOT_SIZE', /quantity=0 is below minQty 0.00001/);
  });

  it('PERCENT_PRICE against the average price; unknown average skips the rule', () => {
    rejects(place({ price: '5000000001' }), 'PERCENT_PRICE', /above average price 1000000000 \* multiplierUp 5/);
    rejects(place({ price: '199999999', quantity: '0.01' }), 'PERCENT_PRICE', /below average price/);
    ctx.avg.clear();
    ctx.refs.clear();
    expect(check(place({ price: '5000000001' }), ctx).kind).toBe('accept');
  });

  it('LOT_SIZE and MARKET_LOT_SIZE', () => {
    rejects(place({ quantity: '9001' }), 'LOT_SIZE', /quantity=9001 is above maxQty 9000/);
    rejects(place({ quantity: '0.000001' }), 'LOT_SIZE', /below minQty/);
    rejects(place({ orderType: 'MARKET', side: 'SELL', price: undefined, quantity: '0.00005' }), 'MARKET_LOT_SIZE', /quantity=0.00005 is below minQty 0.0001/);
    rejects(place({ orderType: 'MARKET', side: 'SELL', price: undefined, quantity: '0.00015' }), 'MARKET_LOT_SIZE', /stepSize 0.0001/);
  });

  it('NOTIONAL on limit and market orders', () => {
    rejects(place({ price: '200000000', quantity: '0.00001' }), 'NOTIONAL', /notional of quantity=0.00001 is below minNotional 20000/);
    ctx.avg.set('BTC_IDR', D('1000'));
    rejects(place({ orderType: 'MARKET', side: 'SELL', price: undefined, quantity: '1' }), 'NOTIONAL', /below minNotional/);
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: undefined, quoteOrderQty: '19999' }), 'NOTIONAL');
  });

  it('PRICE_RANGE with the reference price (type 1 only, null reference skips)', () => {
    rejects(place({ price: '1100000001' }), 'PRICE_RANGE', /above reference price 1000000000 \* bidLimitMultUp 1.1/);
    rejects(place({ side: 'SELL', price: '899999999' }), 'PRICE_RANGE', /askLimitMultDown 0.9/);
    ctx.refs.set('BTC_IDR', null);
    expect(check(place({ price: '1100000001' }), ctx).kind).toBe('accept');
    // XRP_IDR is symbol type 2: the rule does not apply there.
    ctx.refs.set('XRP_IDR', D('1000'));
    ctx.balances.set('XRP', D('100'));
    expect(check(place({ symbol: 'XRP_IDR', price: '2000', quantity: '10' }), ctx).kind).toBe('accept');
  });

  it('PRICE_RANGE limits only a taker phase: an order that rests is not refused', () => {
    // Bid 999999000, ask 1000001000, reference 1000000000: buys below 0.5x and sells above 2x rest.
    expect(check(place({ price: '499999999' }), ctx).kind).toBe('accept');
    expect(check(place({ side: 'SELL', price: '2000000001' }), ctx).kind).toBe('accept');
    // LIMIT_MAKER and GTX never take, wherever their price is.
    expect(check(place({ orderType: 'LIMIT_MAKER', timeInForce: undefined, price: '1100000001' }), ctx).kind).toBe('accept');
    expect(check(place({ timeInForce: 'GTX', price: '1100000001' }), ctx).kind).toBe('accept');
    // A stop limit takes after its trigger (the book then is unknown), a LIMIT without a ready book may take: both checked.
    rejects(place({ orderType: 'STOP_LOSS_LIMIT', price: '499999999', stopPrice: '499999999' }), 'PRICE_RANGE', /bidLimitMultDown 0.5/);
    (ctx.books.get('BTC_IDR') as StaticBook).ready = false;
    rejects(place({ price: '499999999' }), 'PRICE_RANGE', /bidLimitMultDown 0.5/);
  });

  it('order-count filters of the symbol and the exchange', () => {
    ctx.counts.set('BTC_IDR', { total: 200, algo: 0, iceberg: 0 });
    rejects(place(), 'MAX_NUM_ORDERS', /200 open orders/);
    ctx.counts.set('BTC_IDR', { total: 10, algo: 5, iceberg: 5 });
    rejects(place({ orderType: 'STOP_LOSS_LIMIT', stopPrice: '1000000000' }), 'MAX_NUM_ALGO_ORDERS');
    rejects(place({ quantity: '0.01', icebergQty: '0.001' }), 'MAX_NUM_ICEBERG_ORDERS');
    expect(check(place(), ctx).kind).toBe('accept');
    ctx.exchangeCounts = { total: 1000, algo: 0 };
    rejects(place(), 'EXCHANGE_MAX_NUM_ORDERS');
    ctx.exchangeCounts = { total: 10, algo: 200 };
    ctx.counts.clear();
    rejects(place({ orderType: 'TAKE_PROFIT_LIMIT', stopPrice: '1000000000' }), 'EXCHANGE_MAX_NUM_ALGO_ORDERS');
  });

  it('user limits: open orders, rate, notional, position, daily loss', () => {
    ctx.limits = { maxOpenOrders: 2, maxOrderRate: { count: 2, windowMs: 1000 }, maxOrderNotional: D('5000000'), maxPosition: { BTC: D('0.01') }, dailyLossLimit: D('100000') };
    ctx.ownOpen = 2;
    rejects(place(), 'MAX_OPEN_ORDERS');
    ctx.ownOpen = 0;
    ctx.now = 10_000;
    ctx.placements = [9_000, 9_500, 9_999];
    rejects(place(), 'MAX_ORDER_RATE', /2 orders in the last 1000 ms/);
    ctx.placements = [9_000, 9_999];
    expect(check(place(), ctx).kind).toBe('accept');
    rejects(place({ quantity: '0.006' }), 'MAX_ORDER_NOTIONAL', /order value 6000000 IDR is above maxOrderNotional 5000000/);
    ctx.limits = { ...ctx.limits, maxOrderNotional: undefined };
    ctx.positions.set('BTC', D('0.008'));
    ctx.openBuy.set('BTC_IDR', D('0.001'));
    rejects(place({ quantity: '0.0011' }), 'MAX_POSITION', /above maxPosition 0.01/);
    expect(check(place({ quantity: '0.001' }), ctx).kind).toBe('accept');
    rejects(place({ side: 'SELL', quantity: '0.01801' }), 'MAX_POSITION', /below -maxPosition/);
    ctx.pnl = D('-100000');
    rejects(place({ quantity: '0.001' }), 'DAILY_LOSS_LIMIT', /daily PnL -100000/);
    expect(check(place({ side: 'SELL', quantity: '0.008' }), ctx).kind).toBe('accept');
  });

  it('MAX_POSITION bounds a quoteOrderQty buy by the quantity nearest to what it buys at the best ask (spec rule 4 may round up)', () => {
    // Room 0.00108 BTC; best ask 1000001000; MARKET_LOT_SIZE step 0.0001 (coarser than LOT_SIZE's).
    ctx.limits = { maxPosition: { BTC: D('0.01') } };
    ctx.positions.set('BTC', D('0.00892'));
    const qoq = (v: string): PlaceIntent => place({ orderType: 'MARKET', price: undefined, quantity: undefined, quoteOrderQty: v });
    // 1050002 buys 0.001050001 at the ask: 0.0011 (1100001.1) is closer than 0.001 (1000001) and the exchange takes it.
    rejects(qoq('1050002'), 'MAX_POSITION', /quoteOrderQty=1050002 .*above maxPosition 0.01/);
    // 1050001 buys 0.00104999..: 0.001 is closer, and no deeper ask can make 0.0011 closer.
    expect(check(qoq('1050001'), ctx).kind).toBe('accept');
    ctx.positions.set('BTC', D('0.0089'));
    expect(check(qoq('1050002'), ctx).kind).toBe('accept');
  });

  it('available balance for limit, market and quoteOrderQty orders', () => {
    ctx.balances.set('IDR', D('999999'));
    rejects(place(), 'INSUFFICIENT_BALANCE', /order value 1000000 IDR is above free IDR 999999/);
    ctx.balances.set('BTC', D('0.0005'));
    rejects(place({ side: 'SELL' }), 'INSUFFICIENT_BALANCE', /quantity=0.001 is above free BTC 0.0005/);
    ctx.balances.set('IDR', D('600000000'));
    // 0.5 at 1000001000 + 0.1 at 1000010000 = 600001500
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: '0.6' }), 'INSUFFICIENT_BALANCE', /order value 600001500 IDR/);
    expect(check(place({ orderType: 'MARKET', price: undefined, quantity: '0.5' }), ctx).kind).toBe('accept');
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: '2' }), 'NO_MARKET_LIQUIDITY');
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: undefined, quoteOrderQty: '600000001' }), 'INSUFFICIENT_BALANCE');
    (ctx.books.get('BTC_IDR') as StaticBook).ready = false;
    rejects(place({ orderType: 'MARKET', price: undefined, quantity: '0.5' }), 'BOOK_NOT_READY');
  });

  it('handles prices with more decimals than any grid when no tick rule applies', () => {
    ctx.balances.set('IDR', D('100000'));
    ctx.refs.set('DOGE_IDR', D('1000'));
    const d = check(place({ symbol: 'DOGE_IDR', price: '1010.000000001', quantity: '10' }), ctx);
    expect(d.kind === 'reject' && d.reason).toBe('PRICE_RANGE');
    expect(check(place({ symbol: 'DOGE_IDR', price: '1009.999999999', quantity: '10' }), ctx).kind).toBe('accept');
  });
});
