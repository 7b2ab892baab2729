import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { type OrderSnapshot, orderProblem } from './orderCheck.js';

const d = (s: string): Decimal => new Decimal(s);
const ok: OrderSnapshot = { side: 'BUY', type: 'LIMIT', price: d('900000000'), origQty: d('0.002'), origQuoteQty: d('0'), executedQty: d('0.001'), executedQuoteQty: d('900000') };
const ours = { side: 'BUY' as const, quantity: d('0.002'), quoteOrderQty: undefined };

describe('orderProblem: an order snapshot is checked before it is taken as truth', () => {
  it('a consistent snapshot passes (partly filled, at or better than the limit, quote omitted, quote-sized market order)', () => {
    expect(orderProblem(ok, ours)).toBeUndefined();
    expect(orderProblem({ ...ok, executedQuoteQty: d('899000') }, ours)).toBeUndefined();
    expect(orderProblem({ ...ok, executedQuoteQty: d('0') }, ours)).toBeUndefined();
    expect(orderProblem({ ...ok, side: 'SELL', executedQuoteQty: d('901000') }, { ...ours, side: 'SELL' })).toBeUndefined();
    const market = { ...ok, type: 'MARKET' as const, price: d('0'), origQty: d('0'), origQuoteQty: d('1000000'), executedQty: d('0.0011'), executedQuoteQty: d('999999') };
    expect(orderProblem(market, { side: 'BUY', quantity: undefined, quoteOrderQty: d('1000000') })).toBeUndefined();
  });

  it.each([
    ['executedQty past origQty', { executedQty: d('0.003') }, /executedQty=0.003 exceeds origQty=0.002/],
    ['executedQty past the quantity we ordered', { origQty: d('1'), executedQty: d('0.5') }, /exceeds the quantity ordered 0.002/],
    ['a negative cummulativeQuoteQty', { executedQuoteQty: d('-1') }, /cummulativeQuoteQty=-1 is negative/],
    ['an executedQty of 1e29', { executedQty: d('1e29') }, /executedQty=10{29} is out of range/],
    ['a quote with nothing executed', { executedQty: d('0'), executedQuoteQty: d('5') }, /with executedQty=0/],
    ['a buy paid above its limit', { executedQuoteQty: d('950000') }, /beyond the limit/],
    ['the other side', { side: 'SELL' as const }, /side=SELL is not the order's BUY/],
    ['quote past origQuoteQty', { type: 'MARKET' as const, origQty: d('0'), origQuoteQty: d('800000') }, /exceeds origQuoteQty=800000/],
  ])('%s is refused, naming field and value', (_name, patch, shown) => {
    expect(orderProblem({ ...ok, ...patch }, ours)).toMatch(shown);
  });
});
