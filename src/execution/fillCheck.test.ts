import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/types.js';
import type { FillRecord, OrderRecord } from '../store/records.js';
import { fillProblem } from './fillCheck.js';

const d = (s: string): Decimal => new Decimal(s);
const order: OrderRecord = {
  clientId: 'c1', strategy: 's', intentId: 'i1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC',
  price: d('900000000'), quantity: d('0.002'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined,
  venue: 'open', orderId: '7', state: 'NEW', cumQty: d('0'), cumQuoteQty: d('0'), createdAt: 1, updatedAt: 1, sentAt: 1, reason: undefined,
};
const fill = { price: d('900000000'), qty: d('0.001'), quoteQty: d('900000'), commission: d('0.0000009') };
const info = { filters: { priceFilter: { minPrice: d('1'), maxPrice: d('0'), tickSize: d('1') }, lotSize: { minQty: d('0.00001'), maxQty: d('0'), stepSize: d('0.00001') } } } as unknown as SymbolInfo;
const recorded = (qty: string): FillRecord => ({ ...fill, qty: d(qty), quoteQty: d(qty).mul(fill.price), clientId: 'c1', strategy: 's', orderId: '7', symbol: 'BTC_IDR', side: 'BUY', tradeId: '1' as FillRecord['tradeId'], commissionAsset: 'BTC', isMaker: true, time: 1, source: 'stream' });

describe('fillProblem', () => {
  it('passes a consistent fill', () => {
    expect(fillProblem(fill, { order, recorded: [], info, cum: { qty: d('0.001'), quoteQty: d('900000') } })).toBeUndefined();
    expect(fillProblem({ ...fill, price: d('899999999') }, { order, recorded: [recorded('0.001')], info })).toBeUndefined();
  });

  it.each([
    ['a price of 1e29', { price: d('1e29'), quoteQty: d('1e26') }, /price=.* out of range/],
    ['a negative commission', { commission: d('-0.5') }, /commission=-0.5 is negative/],
    ['a price of 1e-400', { price: d('1e-400'), quoteQty: d('0') }, /decimals|positive/],
    ['a zero quantity', { qty: d('0'), quoteQty: d('0') }, /qty=0 must be positive/],
    ['a quote amount that is not price x qty', { quoteQty: d('950000') }, /not price x qty/],
    ['a buy above its limit', { price: d('900000001'), quoteQty: d('900000.001') }, /beyond the order's limit/],
    ['a price off the tick', { price: d('899999999.5'), quoteQty: d('899999.9995') }, /tick/],
    ['a quantity off the step', { qty: d('0.000001'), quoteQty: d('900') }, /step/],
  ])('refuses %s', (_, change, why) => {
    expect(fillProblem({ ...fill, ...change }, { order, recorded: [], info })).toMatch(why);
  });

  it('refuses fills past the order quantity, and a report whose own totals contradict its fill', () => {
    expect(fillProblem(fill, { order, recorded: [recorded('0.0015')] })).toMatch(/past the order's quantity/);
    expect(fillProblem(fill, { order, recorded: [], cum: { qty: d('0.0005'), quoteQty: d('450000') } })).toMatch(/exceeds the report's cumulative/);
    expect(fillProblem(fill, { order, recorded: [], cum: { qty: d('0.003'), quoteQty: d('2700000') } })).toMatch(/past the order's quantity/);
  });
});
