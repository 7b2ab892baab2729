import { describe, expect, it } from 'vitest';
import { ParseError } from '../../core/errors.js';
import { parseAccountTrade } from './account.js';
import { amountValue } from './fields.js';
import { parsePublicTrade } from './marketData.js';
import { parseOrder } from './order.js';
import { parseExecutionRules, parseReferencePrice } from './rules.js';
import { parseDepositRecord, parseWithdrawRecord } from './wallet.js';

describe('exchange amounts at the edge', () => {
  it('accepts plain non-negative decimals, as strings or JSON numbers', () => {
    expect(amountValue('p', '0.001').toFixed()).toBe('0.001');
    expect(amountValue('p', '1500000000').toFixed()).toBe('1500000000');
    expect(amountValue('p', 0).toFixed()).toBe('0');
    expect(amountValue('p', 0.25).toFixed()).toBe('0.25');
    expect(amountValue('p', '0.000000000000000001').toFixed()).toBe('0.000000000000000001');
  });

  it.each([['-0.5'], ['1e29'], ['1e-400'], ['1E3'], ['+1'], [''], ['.5'], ['1.'], ['1000000000000000000'], ['0.0000000000000000001'], [1e-7], [1e21], [-1], [Number.NaN], [null]])('refuses %s naming the field', (v) => {
    expect(() => amountValue('order.price', v)).toThrow(ParseError);
    expect(() => amountValue('order.price', v)).toThrow(/order\.price/);
  });

  it('an account trade with a negative commission or a price of 1e29 is refused, naming the field', () => {
    const t = { tradeId: '1', orderId: '2', symbol: 'BTC_IDR', price: '900000000', qty: '0.001', quoteQty: '900000', commission: '0.0009', commissionAsset: 'IDR', isBuyer: 1, isMaker: 0, time: '1700000000000' };
    expect(parseAccountTrade(t).price.toFixed()).toBe('900000000');
    expect(() => parseAccountTrade({ ...t, commission: '-0.5' })).toThrow(/accountTrade\.commission/);
    expect(() => parseAccountTrade({ ...t, price: '1e29' })).toThrow(/accountTrade\.price/);
  });

  it('a public trade at 1e-400 and an order with a negative executed quantity are refused', () => {
    expect(() => parsePublicTrade({ id: 1, price: '1e-400', qty: '1', quoteQty: '0', time: 1, isBuyerMaker: true, isBestMatch: true })).toThrow(/trade\.price|price/);
    const o = { orderId: 1, clientId: 'c', symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', status: 'NEW', price: '1', origQty: '1', executedQty: '-1', createTime: 1 };
    expect(() => parseOrder(o)).toThrow(/order\.executedQty/);
  });

  it('wallet amounts, reference prices and price-range multipliers take the same strict form', () => {
    const w = { id: '7', asset: 'BTC', address: 'a', amount: '0.5', fee: '0.0001', status: 10, createTime: 1 };
    expect(parseWithdrawRecord(w).fee.toFixed()).toBe('0.0001');
    expect(parseWithdrawRecord({ ...w, fee: undefined }).fee.toFixed()).toBe('0');
    expect(() => parseWithdrawRecord({ ...w, amount: '-0.5' })).toThrow(/withdraw\.amount/);
    expect(() => parseWithdrawRecord({ ...w, fee: '1e3' })).toThrow(/withdraw\.fee/);
    const d = { id: '8', asset: 'BTC', amount: '2', status: 1, insertTime: 1 };
    expect(parseDepositRecord(d).amount.toFixed()).toBe('2');
    expect(() => parseDepositRecord({ ...d, amount: '1e29' })).toThrow(/deposit\.amount/);
    const r = { symbol: 'BTC_IDR', referencePrice: '900000000', timestamp: 1 };
    expect(parseReferencePrice(r).referencePrice?.toFixed()).toBe('900000000');
    expect(() => parseReferencePrice({ ...r, referencePrice: '-1' })).toThrow(/referencePrice\.referencePrice/);
    const rules = (up: unknown): unknown => ({ symbolRules: [{ symbol: 'BTC_IDR', rules: [{ ruleType: 'PRICE_RANGE', bidLimitMultUp: up }] }] });
    expect(parseExecutionRules(rules('1.05')).priceRange[0]?.bidLimitMultUp?.toFixed()).toBe('1.05');
    expect(() => parseExecutionRules(rules('1E1'))).toThrow(/rules\[0\]\.bidLimitMultUp/);
  });
});
