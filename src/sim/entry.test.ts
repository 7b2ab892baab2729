import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { WireFilter } from '../core/filters.js';
import { account } from './fixtures.js';
import { makeEngine, testSymbol, tryPlace } from './testkit.js';
import type { NewOrderRequest } from './types.js';

/** One filter case: extra filters, what to place first (accepted), the refused request and its reason. */
interface Case {
  readonly name: string;
  readonly filters?: readonly WireFilter[];
  readonly exchange?: { maxNumOrders?: number; maxNumAlgoOrders?: number };
  readonly before?: readonly Partial<NewOrderRequest>[];
  readonly req: Partial<NewOrderRequest>;
  readonly reason: string;
  /** A fragment the message must contain (names the field and value). */
  readonly says: string;
  /** A request that passes the same filter, proving the limit is not off by one. */
  readonly passes?: Partial<NewOrderRequest>;
}

const cases: Case[] = [
  { name: 'PRICE_FILTER minPrice', req: { price: '0.001', quantity: '1' }, reason: 'PRICE_FILTER', says: 'price 0.001', passes: { price: '0.01', quantity: '500' } },
  { name: 'PRICE_FILTER below minPrice', filters: [{ filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '1000', tickSize: '0.01' }], req: { price: '0.99', quantity: '10' }, reason: 'PRICE_FILTER', says: 'below minPrice 1', passes: { price: '1', quantity: '10' } },
  { name: 'PRICE_FILTER maxPrice', req: { price: '100000.01', quantity: '0.001', side: 'SELL' }, reason: 'PRICE_FILTER', says: 'above maxPrice 100000', passes: { price: '100000', quantity: '0.001', side: 'SELL' } },
  { name: 'PRICE_FILTER tickSize', filters: [{ filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '100000', tickSize: '0.05' }], req: { price: '10.03', quantity: '1' }, reason: 'PRICE_FILTER', says: 'tickSize 0.05', passes: { price: '10.06', quantity: '1' } },
  { name: 'PRICE_FILTER on stopPrice', req: { type: 'STOP_LOSS_LIMIT', price: '10', stopPrice: '10.005', quantity: '1' }, reason: 'PRICE_FILTER', says: 'stopPrice 10.005' },
  { name: 'LOT_SIZE minQty', req: { price: '10', quantity: '0.0005' }, reason: 'LOT_SIZE', says: 'quantity 0.0005' },
  { name: 'LOT_SIZE maxQty', req: { price: '0.01', quantity: '1000.001' }, reason: 'LOT_SIZE', says: 'above LOT_SIZE maxQty 1000', passes: { price: '0.01', quantity: '1000' } },
  { name: 'LOT_SIZE stepSize', filters: [{ filterType: 'LOT_SIZE', minQty: '0.01', maxQty: '1000', stepSize: '0.02' }], req: { price: '10', quantity: '1.02' }, reason: 'LOT_SIZE', says: 'stepSize 0.02', passes: { price: '10', quantity: '1.01' } },
  { name: 'LOT_SIZE on icebergQty', filters: [{ filterType: 'LOT_SIZE', minQty: '0.1', maxQty: '1000', stepSize: '0.001' }], req: { price: '10', quantity: '1', icebergQty: '0.05' }, reason: 'LOT_SIZE', says: 'icebergQty 0.05' },
  { name: 'MARKET_LOT_SIZE', filters: [{ filterType: 'MARKET_LOT_SIZE', minQty: '0.001', maxQty: '0.5', stepSize: '0.001' }], before: [{ side: 'SELL', price: '10', quantity: '2' }], req: { type: 'MARKET', quantity: '0.6' }, reason: 'MARKET_LOT_SIZE', says: 'MARKET_LOT_SIZE maxQty 0.5', passes: { type: 'MARKET', quantity: '0.5' } },
  { name: 'NOTIONAL min on a limit order', req: { price: '4.99', quantity: '1' }, reason: 'NOTIONAL', says: 'minNotional 5', passes: { price: '5', quantity: '1' } },
  { name: 'NOTIONAL max', filters: [{ filterType: 'NOTIONAL', minNotional: '5', maxNotional: '100', applyToMarket: false, avgPriceMins: 0 }], req: { price: '10', quantity: '10.001' }, reason: 'NOTIONAL', says: 'maxNotional 100', passes: { price: '10', quantity: '10' } },
  { name: 'NOTIONAL applyToMarket at the last price', before: [{ side: 'SELL', price: '10', quantity: '2' }, { side: 'BUY', price: '10', quantity: '0.5', accountId: 'b' }], req: { type: 'MARKET', quantity: '0.4' }, reason: 'NOTIONAL', says: 'minNotional 5', passes: { type: 'MARKET', quantity: '0.5' } },
  { name: 'NOTIONAL applyToMarket with quoteOrderQty', before: [{ side: 'SELL', price: '10', quantity: '2' }], req: { type: 'MARKET', quoteOrderQty: '4.99' }, reason: 'NOTIONAL', says: 'quoteOrderQty 4.99', passes: { type: 'MARKET', quoteOrderQty: '5' } },
  { name: 'PERCENT_PRICE up', filters: [{ filterType: 'PERCENT_PRICE', multiplierUp: '1.5', multiplierDown: '0.5', avgPriceMins: 0 }], before: [{ side: 'SELL', price: '10', quantity: '1' }, { side: 'BUY', price: '10', quantity: '1', accountId: 'b' }], req: { side: 'SELL', price: '15.01', quantity: '1' }, reason: 'PERCENT_PRICE', says: 'multiplierUp 1.5', passes: { side: 'SELL', price: '15', quantity: '1' } },
  { name: 'PERCENT_PRICE down', filters: [{ filterType: 'PERCENT_PRICE', multiplierUp: '1.5', multiplierDown: '0.5', avgPriceMins: 0 }], before: [{ side: 'SELL', price: '20', quantity: '1' }, { side: 'BUY', price: '20', quantity: '1', accountId: 'b' }], req: { price: '9.99', quantity: '1' }, reason: 'PERCENT_PRICE', says: 'multiplierDown 0.5', passes: { price: '10', quantity: '1' } },
  { name: 'ICEBERG_PARTS', filters: [{ filterType: 'ICEBERG_PARTS', limit: 4 }], req: { price: '10', quantity: '1', icebergQty: '0.249' }, reason: 'ICEBERG_PARTS', says: 'ICEBERG_PARTS limit 4', passes: { price: '10', quantity: '1', icebergQty: '0.25' } },
  { name: 'MAX_NUM_ORDERS', filters: [{ filterType: 'MAX_NUM_ORDERS', limit: 2 }], before: [{ price: '10', quantity: '1' }, { price: '10', quantity: '1' }], req: { price: '10', quantity: '1' }, reason: 'MAX_NUM_ORDERS', says: 'MAX_NUM_ORDERS 2' },
  { name: 'MAX_NUM_ALGO_ORDERS', filters: [{ filterType: 'MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: 1 }], before: [{ type: 'STOP_LOSS_LIMIT', price: '10', stopPrice: '11', quantity: '1' }, { price: '10', quantity: '1' }], req: { type: 'STOP_LOSS_LIMIT', price: '10', stopPrice: '11', quantity: '1' }, reason: 'MAX_NUM_ALGO_ORDERS', says: 'MAX_NUM_ALGO_ORDERS 1' },
  { name: 'MAX_NUM_ICEBERG_ORDERS', filters: [{ filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: 1 }], before: [{ price: '10', quantity: '1', icebergQty: '0.5' }], req: { price: '10', quantity: '1', icebergQty: '0.5' }, reason: 'MAX_NUM_ICEBERG_ORDERS', says: 'MAX_NUM_ICEBERG_ORDERS 1', passes: { price: '10', quantity: '1' } },
  { name: 'EXCHANGE_MAX_NUM_ORDERS', exchange: { maxNumOrders: 1 }, before: [{ price: '10', quantity: '1' }], req: { price: '10', quantity: '1' }, reason: 'EXCHANGE_MAX_NUM_ORDERS', says: 'EXCHANGE_MAX_NUM_ORDERS 1' },
  { name: 'EXCHANGE_MAX_NUM_ALGO_ORDERS', exchange: { maxNumAlgoOrders: 1 }, before: [{ type: 'STOP_LOSS_LIMIT', price: '10', stopPrice: '11', quantity: '1' }], req: { type: 'TAKE_PROFIT_LIMIT', price: '10', stopPrice: '9', quantity: '1' }, reason: 'EXCHANGE_MAX_NUM_ALGO_ORDERS', says: 'EXCHANGE_MAX_NUM_ALGO_ORDERS 1', passes: { price: '10', quantity: '1' } },
];

describe('entry filters: one distinct rejection each, naming field and value', () => {
  for (const c of cases) {
    it(c.name, () => {
      const e = makeEngine({
        symbol: { info: testSymbol(c.filters ?? []) },
        accounts: [account('a', { USDT: '100000', BTC: '10000' }), account('b', { USDT: '100000', BTC: '10000' })],
        config: { exchangeFilters: c.exchange ?? {} },
      });
      for (const b of c.before ?? []) {
        const r = tryPlace(e, b.accountId ?? 'a', b.side ?? 'BUY', b);
        expect(r.ok, r.ok ? '' : r.message).toBe(true);
      }
      e.takeEvents();
      const r = tryPlace(e, c.req.accountId ?? 'a', c.req.side ?? 'BUY', c.req);
      expect(r).toMatchObject({ ok: false, reason: c.reason });
      expect(!r.ok && r.message).toContain(c.says);
      // A refusal changes nothing and emits nothing.
      expect(e.takeEvents().length).toBe(0);
      if (c.passes !== undefined) {
        const ok = tryPlace(e, c.passes.accountId ?? 'a', c.passes.side ?? 'BUY', c.passes);
        expect(ok.ok, ok.ok ? '' : ok.message).toBe(true);
      }
    });
  }

  it('refuses missing and misplaced parameters per type', () => {
    const e = makeEngine();
    expect(tryPlace(e, 'a', 'BUY', { quantity: '1' })).toMatchObject({ ok: false, reason: 'MISSING_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { type: 'STOP_LOSS', quantity: '1' })).toMatchObject({ ok: false, reason: 'MISSING_PARAMETER' });
    expect(tryPlace(e, 'a', 'SELL', { type: 'MARKET', quoteOrderQty: '10' })).toMatchObject({ ok: false, reason: 'MISSING_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { type: 'MARKET', quantity: '1', price: '10' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { type: 'MARKET', quantity: '1', timeInForce: 'IOC' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { price: '1e3', quantity: '1' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { price: '10', quantity: '0' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'a', 'BUY', { price: new Decimal('10'), quantity: new Decimal('1') }).ok).toBe(true);
  });

  it('refuses order types the symbol does not list and insufficient balances', () => {
    const e = makeEngine({ symbol: { info: testSymbol([], { orderTypes: ['LIMIT', 'MARKET'] }) } });
    expect(tryPlace(e, 'a', 'BUY', { type: 'LIMIT_MAKER', price: '10', quantity: '1' })).toMatchObject({ ok: false, reason: 'ORDER_TYPE_NOT_SUPPORTED' });
    const r = tryPlace(e, 'a', 'BUY', { price: '1000', quantity: '1.001' });
    expect(r).toMatchObject({ ok: false, reason: 'INSUFFICIENT_BALANCE' });
    expect(!r.ok && r.message).toContain('1001');
    expect(tryPlace(e, 'a', 'SELL', { price: '10', quantity: '10.001' })).toMatchObject({ ok: false, reason: 'INSUFFICIENT_BALANCE' });
    expect(tryPlace(e, 'a', 'SELL', { price: '10', quantity: '10' }).ok).toBe(true);
  });
});
