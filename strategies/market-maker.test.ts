import { describe, expect, it } from 'vitest';
import { Decimal, parseSymbolFilters, type DepthDiffEvent } from 'kancil';
import { fakeContext, fixedBook, openOrder } from 'kancil/testing';
import plugin, { marketMakerParams, quoteFactors, quotePrices } from './market-maker.js';

const d = (x: string | number) => new Decimal(x);
const diff = (E: number): DepthDiffEvent => ({ type: 'depthDiff', E, symbol: 'BTC_USDT', firstUpdateId: E, finalUpdateId: E, bids: [], asks: [] });
const cfg = { spreadBps: 10, skewBps: 20, maxPosition: d('1'), tickSize: d('0.01'), allowShort: false };

describe('market-maker quotes', () => {
  it('quotes symmetric around mid when flat (no ask without inventory on spot)', () => {
    expect(quotePrices(d(1000), d(0), cfg)).toEqual({ bid: d('999.5'), ask: undefined });
    expect(quotePrices(d(1000), d(0), { ...cfg, allowShort: true })).toEqual({ bid: d('999.5'), ask: d('1000.5') });
  });

  it('skews both quotes down when long and stops bidding at max position', () => {
    const half = quotePrices(d(1000), d('0.5'), cfg);
    expect(half.bid?.toString()).toBe('998.5');
    expect(half.ask?.toString()).toBe('999.5');
    expect(quotePrices(d(1000), d('1'), cfg).bid).toBeUndefined();
  });

  it('rounds bid down and ask up to the tick', () => {
    const q = quotePrices(d('1000.003'), d('0.5'), cfg);
    expect(q.bid?.toString()).toBe('998.5');
    expect(q.ask?.toString()).toBe('999.51');
  });

  it('kept factors give the quotes computed from scratch (the strategy recomputes them when the position changes)', () => {
    expect(quoteFactors(d('0.5'), cfg)).toEqual({ bid: d('0.9985'), ask: d('0.9995') });
    const short = { ...cfg, allowShort: true };
    for (const position of ['-0.7', '0', '0.0003', '0.5', '0.99']) {
      const f = quoteFactors(d(position), short);
      for (const mid of ['1000.003', '61837.635', '0.01']) {
        const touch = { bestBid: d(mid).minus('0.01'), bestAsk: d(mid).plus('0.01') };
        expect(quotePrices(d(mid), d(position), short, touch, f)).toEqual(quotePrices(d(mid), d(position), short, touch));
      }
    }
  });
});

describe('market-maker plugin', () => {
  it('refuses a symbol not in BASE_QUOTE form instead of guessing its base asset', () => {
    const ctx = fakeContext(marketMakerParams.parse({ quantity: '0.1', maxPosition: '1' }), ['BTCUSDT']);
    expect(() => plugin.create(ctx)).toThrow(/BTCUSDT.*BASE_QUOTE/);
  });

  it('places post-only quotes, respects refreshMs, and requotes only after a move', () => {
    const ctx = fakeContext(marketMakerParams.parse({ spreadBps: 10, skewBps: 0, quantity: '0.1', maxPosition: '1', refreshMs: 1000, requoteTicks: 100 }));
    ctx.positions.set('BTC', d('0.5'));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '999', '1001'));
    const h = plugin.create(ctx);
    h.onEvent(diff(0));
    expect(ctx.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.orderType} ${i.req.quantity} @ ${i.req.price}` : i.kind))).toEqual(['BUY LIMIT_MAKER 0.1 @ 999.5', 'SELL LIMIT_MAKER 0.1 @ 1000.5']);
    ctx.orders.push(openOrder('c1', 'BUY', '999.5', '0.1'), openOrder('c2', 'SELL', '1000.5', '0.1'));
    ctx.now = 500;
    h.onEvent(diff(500));
    expect(ctx.intents).toHaveLength(2);
    ctx.now = 1500;
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '999.2', '1001.2'));
    h.onEvent(diff(1500));
    expect(ctx.intents).toHaveLength(2); // moved 0.2 < 100 ticks: keep queue position
    ctx.now = 3000;
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '1009', '1011'));
    h.onEvent(diff(3000));
    expect(ctx.intents.slice(2).map((i) => (i.kind === 'place' ? `${i.req.side} @ ${i.req.price}` : i.kind === 'cancel' ? `cancel ${i.clientId}` : i.kind))).toEqual(['cancel c1', 'BUY @ 1009.49', 'cancel c2', 'SELL @ 1010.51']);
  });

  it('counts the bids in flight against maxPosition: a replaced bid whose cancel travels may still fill', () => {
    const ctx = fakeContext(marketMakerParams.parse({ spreadBps: 10, skewBps: 0, quantity: '0.4', maxPosition: '1', requoteTicks: 1, refreshMs: 0 }));
    ctx.positions.set('BTC', d('0.5'));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '999', '1001'));
    // A resting bid of 0.4 at a stale price, 0.1 of it filled (the fill is in the position).
    ctx.orders.push({ ...openOrder('old', 'BUY', '990', '0.4'), cumQty: d('0.1') });
    const h = plugin.create(ctx);
    h.onEvent(diff(0));
    const placed = ctx.intents.flatMap((i) => (i.kind === 'place' && i.req.side === 'BUY' ? [i.req.quantity?.toString()] : []));
    // 1 - 0.5 held - 0.3 still unfilled on the bid being cancelled: 0.2, not 0.4 (which could end at 1.2).
    expect(ctx.intents[0]).toEqual({ kind: 'cancel', symbol: 'BTC_USDT', clientId: 'old' });
    expect(placed).toEqual(['0.2']);
  });

  it('sends no quote below minQuantity (a dust order the exchange refuses would be retried at every refresh)', () => {
    const ctx = fakeContext(marketMakerParams.parse({ spreadBps: 10, skewBps: 0, quantity: '0.1', maxPosition: '1', stepSize: '0.000001', minQuantity: '0.0001', allowShort: false }));
    // Bought up to the maximum, less a base-asset commission: 0.000009 of room is left.
    ctx.positions.set('BTC', d('0.999991'));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '999', '1001'));
    const h = plugin.create(ctx);
    h.onEvent(diff(0));
    expect(ctx.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.quantity}` : i.kind))).toEqual(['SELL 0.1']);
  });

  it("quotes on the symbol's own tick and step unless the parameters give them", () => {
    const idr = parseSymbolFilters([
      { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1000' },
      { filterType: 'LOT_SIZE', minQty: '0.0001', maxQty: '100', stepSize: '0.0001' },
    ]);
    const quotes = (params: Record<string, unknown>) => {
      const ctx = fakeContext(marketMakerParams.parse({ spreadBps: 10, skewBps: 0, quantity: '0.123456', maxPosition: '1', allowShort: true, ...params }));
      ctx.filters.set('BTC_USDT', idr);
      ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '1499990000', '1500010000'));
      plugin.create(ctx).onEvent(diff(0));
      return ctx.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.quantity}@${i.req.price}` : i.kind));
    };
    // mid 1,500,000,000 -/+ 5 bps = 1,499,250,000 / 1,500,750,000: on the 1,000-rupiah grid; 0.123456 floored to 0.0001.
    expect(quotes({})).toEqual(['BUY 0.1234@1499250000', 'SELL 0.1234@1500750000']);
    expect(quotes({ tickSize: '1', stepSize: '0.000001' })).toEqual(['BUY 0.123456@1499250000', 'SELL 0.123456@1500750000']);
    // Without filters for the symbol, the old defaults: a 0.01 tick and a 0.00001 step.
    const bare = fakeContext(marketMakerParams.parse({ spreadBps: 10, skewBps: 0, quantity: '0.123456', maxPosition: '1', allowShort: true }));
    bare.books.set('BTC_USDT', fixedBook('BTC_USDT', '999', '1001'));
    plugin.create(bare).onEvent(diff(0));
    expect(bare.intents.map((i) => (i.kind === 'place' ? `${i.req.side} ${i.req.quantity}@${i.req.price}` : i.kind))).toEqual(['BUY 0.12345@999.5', 'SELL 0.12345@1000.5']);
  });

  it('does not quote on a book that is not ready, and cancels all on stop', () => {
    const ctx = fakeContext(marketMakerParams.parse({}));
    ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', '999', '1001', false));
    const h = plugin.create(ctx);
    h.onEvent(diff(0));
    expect(ctx.intents).toEqual([]);
    h.onStop?.();
    expect(ctx.intents).toEqual([{ kind: 'cancelAll', symbol: 'BTC_USDT' }]);
  });

  it('refuses a zero quantity, maxPosition, tickSize or stepSize', () => {
    for (const k of ['quantity', 'maxPosition', 'tickSize', 'stepSize']) expect(marketMakerParams.safeParse({ [k]: '0' }).error?.issues[0]?.path, k).toEqual([k]);
  });
});
