import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { account } from './fixtures.js';
import { bal, book, makeEngine, place, reports, testSymbol, trades, tryPlace } from './testkit.js';

describe('self-trade prevention', () => {
  const setup = (makerStp: string, takerStp: string, accounts = ['a', 'a'], groups: Record<string, string> = {}) => {
    const e = makeEngine({
      accounts: ['a', 'b'].map((id) => account(id, { USDT: '1000', BTC: '10' }, groups[id] !== undefined ? { group: groups[id] } : {})),
    });
    const m = place(e, accounts[0]!, 'SELL', { price: '100', quantity: '1', stpMode: makerStp as never });
    e.takeEvents();
    const t = tryPlace(e, accounts[1]!, 'BUY', { price: '100', quantity: '0.4', stpMode: takerStp as never });
    if (!t.ok) throw new Error(t.message);
    return { e, m, t: t.orderId, ev: e.takeEvents() };
  };

  it('EXPIRE_TAKER expires the taker', () => {
    const { e, t, ev } = setup('EXPIRE_MAKER', 'EXPIRE_TAKER');
    expect(reports(ev)).toEqual([`a ${t} NEW/NEW`, `a ${t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(book(e).asks).toEqual(['100x1']);
    expect(bal(e, 'a')).toEqual({ BTC: '9/1', USDT: '1000/0' });
  });

  it('EXPIRE_MAKER expires the maker and the taker rests', () => {
    const { e, m, t, ev } = setup('EXPIRE_TAKER', 'EXPIRE_MAKER');
    expect(reports(ev)).toEqual([`a ${t} NEW/NEW`, `a ${m} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(book(e)).toEqual({ bids: ['100x0.4'], asks: [] });
    expect(bal(e, 'a')).toEqual({ BTC: '10/0', USDT: '960/40' });
  });

  it('EXPIRE_BOTH expires both', () => {
    const { e, m, t, ev } = setup('EXPIRE_MAKER', 'EXPIRE_BOTH');
    expect(reports(ev)).toEqual([`a ${t} NEW/NEW`, `a ${m} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`, `a ${t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(book(e)).toEqual({ bids: [], asks: [] });
    expect(bal(e, 'a')).toEqual({ BTC: '10/0', USDT: '1000/0' });
  });

  it('DECREMENT reduces both by the prevented quantity and expires the smaller order', () => {
    const { e, m, t, ev } = setup('EXPIRE_MAKER', 'DECREMENT');
    expect(reports(ev)).toEqual([`a ${t} NEW/NEW`, `a ${t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(book(e).asks).toEqual(['100x0.6']);
    expect(e.getOrder('a', { orderId: m })!.preventedQty.toFixed()).toBe('0.4');
    expect(e.getOrder('a', { orderId: t })!.preventedQty.toFixed()).toBe('0.4');
    expect(bal(e, 'a')).toEqual({ BTC: '9.4/0.6', USDT: '1000/0' });
  });

  it('DECREMENT with equal quantities expires both', () => {
    const e = makeEngine();
    const m = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    e.takeEvents();
    const t = place(e, 'a', 'BUY', { price: '100', quantity: '1', stpMode: 'DECREMENT' });
    expect(reports(e.takeEvents())).toEqual([`a ${t} NEW/NEW`, `a ${m} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`, `a ${t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(bal(e, 'a')).toEqual({ BTC: '10/0', USDT: '1000/0' });
  });

  it('TRANSFER between accounts of one trade group moves the prevented quantity and notional without a trade', () => {
    const { e, m, t, ev } = setup('TRANSFER', 'TRANSFER', ['a', 'b'], { a: 'g1', b: 'g1' });
    expect(trades(ev)).toEqual([]);
    expect(reports(ev)).toEqual([`b ${t} NEW/NEW`, `b ${t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(bal(e, 'a')).toEqual({ BTC: '9/0.6', USDT: '1040/0' });
    expect(bal(e, 'b')).toEqual({ BTC: '10.4/0', USDT: '960/0' });
    expect(e.getOrder('a', { orderId: m })!.preventedQty.toFixed()).toBe('0.4');
  });

  it('TRANSFER outside a shared group is no self-trade: the accounts trade', () => {
    const { ev } = setup('TRANSFER', 'TRANSFER', ['a', 'b'], { a: 'g1', b: 'g2' });
    expect(trades(ev)).toHaveLength(1);
  });

  it('taker TRANSFER against a maker of another mode, or in the same account, acts as DECREMENT', () => {
    const other = setup('EXPIRE_TAKER', 'TRANSFER');
    expect(reports(other.ev)).toEqual([`a ${other.t} NEW/NEW`, `a ${other.t} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(book(other.e).asks).toEqual(['100x0.6']);
    const same = setup('TRANSFER', 'TRANSFER');
    expect(book(same.e).asks).toEqual(['100x0.6']);
    expect(bal(same.e, 'a')).toEqual({ BTC: '9.4/0.6', USDT: '1000/0' });
  });

  it('refuses modes the symbol does not allow; the symbol default applies when none is sent', () => {
    const e = makeEngine({ symbol: { info: testSymbol([], { allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER'], defaultSelfTradePreventionMode: 'EXPIRE_TAKER' }) } });
    expect(tryPlace(e, 'a', 'SELL', { price: '100', quantity: '1', stpMode: 'DECREMENT' })).toMatchObject({ ok: false, reason: 'STP_MODE_NOT_ALLOWED' });
    expect(tryPlace(e, 'a', 'SELL', { price: '100', quantity: '1', stpMode: 'NONE' })).toMatchObject({ ok: false, reason: 'STP_MODE_NOT_ALLOWED' });
    const m = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    expect(e.getOrder('a', { orderId: m })!.stpMode).toBe('EXPIRE_TAKER');
  });
});

describe('PRICE_RANGE execution rule', () => {
  const rule = { symbol: 'BTC_USDT', bidLimitMultUp: new Decimal('1.01'), askLimitMultDown: new Decimal('0.99') };

  it('expires a taker whose next execution would be outside the limits, keeping earlier fills', () => {
    const e = makeEngine({ symbol: { priceRange: rule, referencePrice: new Decimal('100') } });
    place(e, 'a', 'SELL', { price: '100.5', quantity: '1' });
    place(e, 'a', 'SELL', { price: '101.5', quantity: '1' });
    e.takeEvents();
    const t = place(e, 'b', 'BUY', { price: '102', quantity: '2' });
    expect(reports(e.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${t} NEW/NEW`, `b ${t} TRADE/PARTIALLY_FILLED 1@100.5 fee 0.002 BTC`, `b ${t} EXPIRED/EXPIRED EXECUTION_RULE_PRICE_RANGE_EXCEEDED`]);
    expect(bal(e, 'b').USDT).toBe('899.5/0');
    expect(book(e)).toEqual({ bids: [], asks: ['101.5x1'] });
  });

  it('does not apply without a reference price, to makers, or to symbol type 2', () => {
    const e = makeEngine({ symbol: { priceRange: rule } });
    place(e, 'a', 'SELL', { price: '150', quantity: '0.1' });
    place(e, 'b', 'BUY', { price: '150', quantity: '0.1' });
    expect(e.takeEvents().some((x) => x.type === 'trade')).toBe(true);
    e.setReferencePrice('BTC_USDT', new Decimal('100'), 2);
    place(e, 'a', 'SELL', { price: '150', quantity: '0.1' }); // rests: the rule is about the taker phase
    expect(book(e).asks).toEqual(['150x0.1']);
    e.setReferencePrice('BTC_USDT', null, 3);
    expect(tryPlace(e, 'b', 'BUY', { price: '150', quantity: '0.1' }).ok && e.openOrders('b')).toEqual([]);
    const t2 = makeEngine({ symbol: { info: testSymbol([], { type: 2 }), priceRange: rule, referencePrice: new Decimal('100') } });
    place(t2, 'a', 'SELL', { price: '150', quantity: '0.1' });
    place(t2, 'b', 'BUY', { price: '150', quantity: '0.1' });
    expect(t2.openOrders('b')).toEqual([]);
  });
});
