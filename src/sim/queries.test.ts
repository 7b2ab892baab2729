import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { account } from './fixtures.js';
import { bal, book, makeEngine, place, testSymbol, tryPlace } from './testkit.js';

describe('cancel', () => {
  it('cancels by orderId or clientId, releases the lock, refuses unknown and closed orders', () => {
    const e = makeEngine();
    const id = place(e, 'b', 'BUY', { price: '100', quantity: '1', clientId: 'mine' });
    place(e, 'b', 'BUY', { price: '99', quantity: '1' });
    expect(bal(e, 'b').USDT).toBe('801/199');
    e.takeEvents();
    const c = e.cancelOrder({ accountId: 'b', clientId: 'mine' }, 3);
    expect(c.ok && c.order.status).toBe('CANCELED');
    const ev = e.takeEvents();
    expect(ev[0]).toMatchObject({ x: 'CANCELED', X: 'CANCELED', c: 'mine', C: 'mine', i: id });
    expect(bal(e, 'b').USDT).toBe('901/99');
    expect(e.cancelOrder({ accountId: 'b', orderId: id }, 4)).toMatchObject({ ok: false, reason: 'UNKNOWN_ORDER' });
    expect(e.cancelOrder({ accountId: 'a', orderId: '2' }, 4)).toMatchObject({ ok: false, reason: 'UNKNOWN_ORDER' });
    expect(e.cancelOrder({ accountId: 'b', clientId: 'sim-2' }, 4).ok).toBe(true);
    expect(bal(e, 'b').USDT).toBe('1000/0');
  });

  it('orderStatus answers getOrder().status for open, filled, canceled and unknown orders', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1', clientId: 'ask' });
    place(e, 'b', 'BUY', { price: '100', quantity: '0.4', clientId: 'taker' });
    place(e, 'b', 'BUY', { price: '90', quantity: '1', clientId: 'gone' });
    e.cancelOrder({ accountId: 'b', clientId: 'gone' }, 3);
    const want = { ask: 'PARTIALLY_FILLED', taker: 'FILLED', gone: 'CANCELED' };
    for (const [clientId, status] of Object.entries(want)) {
      const acct = clientId === 'ask' ? 'a' : 'b';
      expect(e.orderStatus(acct, { clientId, symbol: 'BTC_USDT' })).toBe(status);
      expect(e.getOrder(acct, { clientId, symbol: 'BTC_USDT' })?.status).toBe(status);
    }
    expect(e.orderStatus('b', { clientId: 'ask' })).toBeUndefined();
    expect(e.orderStatus('nobody', { clientId: 'ask' })).toBeUndefined();
  });

  it('cancelAll cancels every open order of the account and nothing else', () => {
    const e = makeEngine();
    place(e, 'b', 'BUY', { price: '100', quantity: '1' });
    place(e, 'b', 'SELL', { price: '200', quantity: '1' });
    place(e, 'a', 'SELL', { price: '300', quantity: '1' });
    expect(e.cancelAll('b', 'BTC_USDT', 2).map((o) => o.status)).toEqual(['CANCELED', 'CANCELED']);
    expect(book(e)).toEqual({ bids: [], asks: ['300x1'] });
    expect(bal(e, 'b')).toEqual({ BTC: '10/0', USDT: '1000/0' });
  });
});

describe('queries, balances and determinism', () => {
  it('trade ids: counted from firstTradeId, spelled as strings in own trades; a start the counter cannot hold exactly is refused', () => {
    const e = makeEngine({ config: { firstTradeId: Number.MAX_SAFE_INTEGER - 5 } });
    place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 1);
    place(e, 'b', 'BUY', { price: '100', quantity: '0.2' }, 2);
    expect(e.accountTrades('b', 'BTC_USDT').map((t) => t.tradeId)).toEqual(['9007199254740986']);
    expect(() => makeEngine({ config: { firstTradeId: 2 ** 53 } })).toThrow(/firstTradeId 9007199254740992 must be a non-negative safe integer/);
    expect(() => makeEngine({ config: { firstTradeId: -1 } })).toThrow(/firstTradeId/);
    expect(() => makeEngine({ config: { firstTradeId: 1.5 } })).toThrow(/firstTradeId/);
  });

  it('lists orders and own trades with paging and reports exact balances after deposits and withdrawals', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 1);
    const b1 = place(e, 'b', 'BUY', { price: '100', quantity: '0.2' }, 2);
    place(e, 'b', 'BUY', { price: '100', quantity: '0.3' }, 3);
    place(e, 'b', 'BUY', { price: '90', quantity: '0.1' }, 4);
    expect(e.allOrders('b', 'BTC_USDT').map((o) => o.status)).toEqual(['FILLED', 'FILLED', 'NEW']);
    expect(e.allOrders('b', 'BTC_USDT', { which: 'open' })).toHaveLength(1);
    expect(e.allOrders('b', 'BTC_USDT', { fromId: b1, direct: 'prev', limit: 1 }).map((o) => o.orderId)).toEqual([b1]);
    const tr = e.accountTrades('b', 'BTC_USDT');
    expect(tr.map((t) => [t.qty.toFixed(), t.commission.toFixed(), t.commissionAsset, t.isBuyer, t.isMaker])).toEqual([
      ['0.2', '0.0004', 'BTC', true, false],
      ['0.3', '0.0006', 'BTC', true, false],
    ]);
    expect(e.accountTrades('a', 'BTC_USDT', { orderId: '1' })).toHaveLength(2);
    expect(e.adjustBalance('b', 'USDT', new Decimal('-1000'), 5)).toMatchObject({ ok: false });
    expect(e.adjustBalance('b', 'USDT', new Decimal('-900'), 5)).toEqual({ ok: true });
    expect(e.adjustBalance('b', 'IDR', new Decimal('5.5'), 5)).toEqual({ ok: true });
    expect(bal(e, 'b')).toEqual({ BTC: '10.499/0', IDR: '5.5/0', USDT: '41/9' });
    expect(e.lastPrice('BTC_USDT')!.toFixed()).toBe('100');
    expect(e.bestBidAsk('BTC_USDT')).toMatchObject({ askQty: new Decimal('0.5') });
    expect(e.recentTrades('BTC_USDT').map((t) => t.qty)).toEqual(['0.2', '0.3']);
  });

  it('average price over N minutes is volume weighted over the window, else the last price', () => {
    const e = makeEngine({ symbol: { info: testSymbol([{ filterType: 'PERCENT_PRICE', multiplierUp: '1.1', multiplierDown: '0.9', avgPriceMins: 5 }]) } });
    place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 0);
    place(e, 'b', 'BUY', { price: '100', quantity: '1' }, 0);
    place(e, 'a', 'SELL', { price: '110', quantity: '3' }, 60_000);
    place(e, 'b', 'BUY', { price: '110', quantity: '3' }, 60_000);
    expect(e.averagePrice('BTC_USDT', 5, 60_000)!.toFixed()).toBe('107.5');
    // 107.5 * 1.1 = 118.25: 118.26 is refused, 118.25 accepted.
    expect(tryPlace(e, 'a', 'SELL', { price: '118.26', quantity: '0.1' }, 60_000)).toMatchObject({ ok: false, reason: 'PERCENT_PRICE' });
    expect(tryPlace(e, 'a', 'SELL', { price: '118.25', quantity: '0.1' }, 60_000).ok).toBe(true);
    // After the window the first trade drops out: only 110 remains.
    expect(e.averagePrice('BTC_USDT', 5, 300_001)!.toFixed()).toBe('110');
  });

  it('the same inputs give byte-identical event sequences', () => {
    const runOnce = (): string => {
      const e = makeEngine();
      place(e, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.2' });
      place(e, 'a', 'SELL', { price: '101', quantity: '1' });
      place(e, 'b', 'BUY', { price: '101', quantity: '1.5' }, 2);
      e.cancelAll('a', undefined, 3);
      return JSON.stringify(e.takeEvents());
    };
    expect(runOnce()).toBe(runOnce());
  });
});

describe('external callers', () => {
  it('a listener receives the same events as the buffer; with bufferEvents false only the listener gets them', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: string[] = [];
    const off = e.subscribe((x) => got.push(x.type));
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    off();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    expect(got).toEqual(['executionReport', 'outboundAccountPosition', 'depthUpdate']);
    expect(e.takeEvents()).toEqual([]);
  });

  it('refuses unknown accounts and symbols, and accounts that cannot trade', () => {
    const e = makeEngine({ accounts: [account('a', { USDT: '10' }, { canTrade: false })] });
    expect(e.placeOrder({ accountId: 'zz', symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', price: '1', quantity: '1' }, 1)).toMatchObject({ ok: false, reason: 'TRADING_DISABLED' });
    expect(e.placeOrder({ accountId: 'a', symbol: 'ETH_USDT', side: 'BUY', type: 'LIMIT', price: '1', quantity: '1' }, 1)).toMatchObject({ ok: false, reason: 'UNKNOWN_SYMBOL' });
    expect(tryPlace(e, 'a', 'BUY', { price: '5', quantity: '1' })).toMatchObject({ ok: false, reason: 'TRADING_DISABLED' });
  });
});

describe('account lookup', () => {
  it('finds the right account when requests cycle through three (the two-entry memory misses)', () => {
    const e = makeEngine({ accounts: ['a', 'b', 'c'].map((id) => account(id, { USDT: '1000', BTC: '10' })) });
    const seq = ['a', 'b', 'c', 'a', 'b', 'a', 'c', 'c', 'b', 'a'];
    const ids = seq.map((acct, i) => place(e, acct, 'BUY', { price: String(10 + i), quantity: '1' }));
    for (const id of ['a', 'b', 'c']) expect(e.openOrders(id).map((o) => o.orderId)).toEqual(ids.filter((_, i) => seq[i] === id));
    // A cancel names the owner: another account's order is unknown to it.
    expect(e.cancelOrder({ accountId: 'b', orderId: ids[0]! }, 2).ok).toBe(false);
    expect(e.cancelOrder({ accountId: 'a', orderId: ids[0]! }, 2).ok).toBe(true);
    expect(e.cancelOrder({ accountId: 'c', orderId: ids[6]! }, 2).ok).toBe(true);
  });
});
