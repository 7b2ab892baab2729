import { describe, expect, it } from 'vitest';
import { Decimal, type TradeEvent } from 'kancil';
import { fakeContext, fixedBook } from 'kancil/testing';
import plugin, { periodicOrdersParams } from './periodic-orders.js';

const trade = (i: number): TradeEvent => ({ type: 'trade', E: i, symbol: 'BTC_USDT', tradeId: String(i), price: new Decimal(100), qty: new Decimal(1), tradeTime: i, isBuyerMaker: true });

describe('periodic-orders', () => {
  it('places alternating passive orders every N events and cancels the oldest beyond maxOpen', () => {
    const ctx = fakeContext(periodicOrdersParams.parse({ every: 3, quantity: '0.5', offsetTicks: 2, maxOpen: 2 }));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '99', '101'));
    const h = plugin.create(ctx);
    for (let i = 1; i <= 9; i++) h.onEvent(trade(i));
    expect(ctx.intents.map((x) => (x.kind === 'place' ? `${x.req.side} ${x.req.price}` : `${x.kind} ${'clientId' in x ? x.clientId : ''}`))).toEqual(['BUY 98.98', 'SELL 101.02', 'BUY 98.98', 'cancel c1']);
  });
});
