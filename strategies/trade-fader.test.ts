import { describe, expect, it } from 'vitest';
import { Decimal, parseSymbolFilters, type TradeEvent } from 'kancil';
import { fakeContext } from 'kancil/testing';
import plugin, { tradeFaderParams } from './trade-fader.js';

const t = (price: string, qty: string, isBuyerMaker: boolean): TradeEvent => ({ type: 'trade', E: 1, symbol: 'BTC_USDT', tradeId: '1', price: new Decimal(price), qty: new Decimal(qty), tradeTime: 1, isBuyerMaker });

describe('trade-fader', () => {
  it('fades large trades only and caps open orders', () => {
    const ctx = fakeContext(tradeFaderParams.parse({ minQty: '1', quantity: '0.01', offsetTicks: 5, maxOpen: 2 }));
    const h = plugin.create(ctx);
    h.onEvent(t('100', '0.5', true));
    h.onEvent(t('100', '1', true));
    h.onEvent(t('101', '2', false));
    h.onEvent(t('99', '3', true));
    expect(ctx.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.quantity}@${i.req.price}` : `${i.kind} ${'clientId' in i ? i.clientId : ''}`))).toEqual(['BUY 0.01@99.95', 'SELL 0.01@101.05', 'BUY 0.01@98.95', 'cancel c1']);
  });

  it("offsets by the symbol's own tick unless tickSize is given", () => {
    const ctx = fakeContext(tradeFaderParams.parse({ minQty: '1', quantity: '0.01', offsetTicks: 2 }));
    ctx.filters.set('BTC_USDT', parseSymbolFilters([{ filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1000' }]));
    plugin.create(ctx).onEvent(t('1500000000', '2', true));
    const given = fakeContext(tradeFaderParams.parse({ minQty: '1', quantity: '0.01', offsetTicks: 2, tickSize: '1' }));
    given.filters.set('BTC_USDT', ctx.filters.get('BTC_USDT')!);
    plugin.create(given).onEvent(t('1500000000', '2', true));
    expect([...ctx.intents, ...given.intents].map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.price}` : i.kind))).toEqual(['BUY 1499998000', 'BUY 1499999998']);
  });
});
