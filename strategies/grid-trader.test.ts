import { describe, expect, it } from 'vitest';
import { Decimal, ZERO, parseSymbolFilters, type OrderUpdateEvent } from 'kancil';
import { fakeContext, fixedBook } from 'kancil/testing';
import plugin, { gridPrices, gridTraderParams } from './grid-trader.js';

const d = (x: string | number) => new Decimal(x);
function filled(clientId: string, side: 'BUY' | 'SELL'): OrderUpdateEvent {
  return { type: 'orderUpdate', E: 1, strategy: 'test', clientId, orderId: '1', symbol: 'BTC_USDT', side, orderType: 'LIMIT', state: 'FILLED', price: undefined, quantity: undefined, cumQty: ZERO, cumQuoteQty: ZERO };
}

describe('grid-trader', () => {
  it('computes evenly spaced grid prices floored to the tick', () => {
    expect(gridPrices(d(100), d(101), 4, d('0.01')).map(String)).toEqual(['100', '100.33', '100.66', '101']);
    expect(gridTraderParams.safeParse({ lowerPrice: '2', upperPrice: '1' }).success).toBe(false);
  });

  it('buys below mid, sells one level up after a buy fills, and re-buys after the sell', () => {
    const ctx = fakeContext(gridTraderParams.parse({ lowerPrice: '90', upperPrice: '110', levels: 5, quantity: '0.1' }));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '101', '103'));
    const h = plugin.create(ctx);
    h.onEvent({ type: 'depthDiff', E: 0, symbol: 'BTC_USDT', firstUpdateId: 1, finalUpdateId: 1, bids: [], asks: [] });
    const show = () => ctx.intents.map((i) => (i.kind === 'place' ? `${i.clientId} ${i.req.side} ${i.req.price}` : i.kind));
    expect(show()).toEqual(['c1 BUY 90', 'c2 BUY 95', 'c3 BUY 100']);
    h.onEvent(filled('c3', 'BUY'));
    expect(show().slice(3)).toEqual(['c4 SELL 105']);
    h.onEvent(filled('c4', 'SELL'));
    expect(show().slice(4)).toEqual(['c5 BUY 100']);
    h.onEvent(filled('unknown', 'SELL'));
    expect(ctx.intents).toHaveLength(5);
  });

  it('never buys at the top level (it would have no level above to sell at)', () => {
    const ctx = fakeContext(gridTraderParams.parse({ lowerPrice: '90', upperPrice: '110', levels: 5, quantity: '0.1' }));
    // Mid above the whole grid: every level is below it.
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '120', '122'));
    const h = plugin.create(ctx);
    h.onEvent({ type: 'depthDiff', E: 0, symbol: 'BTC_USDT', firstUpdateId: 1, finalUpdateId: 1, bids: [], asks: [] });
    expect(ctx.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.price}` : i.kind))).toEqual(['BUY 90', 'BUY 95', 'BUY 100', 'BUY 105']);
  });

  it('refuses levels closer than a tick, and zero quantities or sizes, naming the parameter', () => {
    const issue = (p: Record<string, unknown>) => {
      const r = gridTraderParams.safeParse({ lowerPrice: '100', upperPrice: '100.05', ...p });
      return r.success ? 'ok' : `${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`;
    };
    expect(issue({ levels: 10, tickSize: '0.01' })).toMatch(/^levels: levels are closer than one tickSize/);
    expect(issue({ levels: 6 })).toBe('ok');
    expect(issue({ levels: 2, quantity: '0' })).toBe('quantity: must be above 0');
    expect(issue({ levels: 2, tickSize: '0.00' })).toBe('tickSize: must be above 0');
  });

  it('forgets and reports an order refused before it was sent (no level waits on it forever)', () => {
    const ctx = fakeContext(gridTraderParams.parse({ lowerPrice: '90', upperPrice: '110', levels: 5, quantity: '0.1' }));
    const warned: unknown[] = [];
    ctx.log.warn = (o) => void warned.push(o);
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '101', '103'));
    const h = plugin.create(ctx);
    h.onEvent({ type: 'depthDiff', E: 0, symbol: 'BTC_USDT', firstUpdateId: 1, finalUpdateId: 1, bids: [], asks: [] });
    const first = ctx.intents[0];
    if (first?.kind !== 'place') throw new Error('expected a place');
    h.onEvent({ type: 'intentRejected', E: 1, strategy: 'test', intent: { kind: 'place', strategy: 'test', intentId: 'i1', clientId: first.clientId, ...first.req }, reason: 'INSUFFICIENT_BALANCE', message: 'no quote' });
    expect(warned).toEqual([{ level: 0, side: 'BUY', reason: 'INSUFFICIENT_BALANCE', message: 'no quote' }]);
    // A later FILLED for that clientId (impossible, but) does not re-arm a level it no longer tracks.
    h.onEvent(filled(first.clientId, 'BUY'));
    expect(ctx.intents).toHaveLength(3);
  });

  it("takes tickSize and stepSize from the symbol's filters unless given, and checks the levels against that tick", () => {
    const idr = parseSymbolFilters([
      { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1000' },
      { filterType: 'LOT_SIZE', minQty: '0.0001', maxQty: '100', stepSize: '0.0001' },
    ]);
    const start = (params: Record<string, unknown>) => {
      const ctx = fakeContext(gridTraderParams.parse(params));
      ctx.filters.set('BTC_USDT', idr);
      ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '1500000000', '1500010000'));
      const h = plugin.create(ctx);
      h.onEvent({ type: 'depthDiff', E: 0, symbol: 'BTC_USDT', firstUpdateId: 1, finalUpdateId: 1, bids: [], asks: [] });
      return ctx.intents.map((i) => (i.kind === 'place' ? String(i.req.price) : i.kind));
    };
    // 1,400,000,000 .. 1,499,999,999 in 4 levels: floored to whole thousands of rupiah, the symbol's tick.
    expect(start({ lowerPrice: '1400000000', upperPrice: '1499999999', levels: 4, quantity: '0.001' })).toEqual(['1400000000', '1433333000', '1466666000']);
    // A tick given in the parameters wins over the symbol's.
    expect(start({ lowerPrice: '1400000000', upperPrice: '1499999999', levels: 4, quantity: '0.001', tickSize: '1' })).toEqual(['1400000000', '1433333333', '1466666666']);
    // Levels 500 rupiah apart cannot sit on a 1,000-rupiah grid: refused at start, naming levels and the tick.
    expect(() => start({ lowerPrice: '1400000000', upperPrice: '1400001000', levels: 3, quantity: '0.001' })).toThrow(/^levels=3: levels are closer than one tickSize.*\(1000, the tickSize of BTC_USDT\)$/);
  });

  it('without filters for the symbol, keeps the old defaults (tick 0.01)', () => {
    const ctx = fakeContext(gridTraderParams.parse({ lowerPrice: '100', upperPrice: '101', levels: 4, quantity: '0.1' }));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '102', '103'));
    const h = plugin.create(ctx);
    h.onEvent({ type: 'depthDiff', E: 0, symbol: 'BTC_USDT', firstUpdateId: 1, finalUpdateId: 1, bids: [], asks: [] });
    expect(ctx.intents.map((i) => (i.kind === 'place' ? String(i.req.price) : i.kind))).toEqual(['100', '100.33', '100.66']);
  });
});
