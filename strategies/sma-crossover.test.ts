import { describe, expect, it } from 'vitest';
import { SMA } from 'trading-signals';
import { type BusEvent, Decimal, type KlineEvent } from 'kancil';
import { fakeContext } from 'kancil/testing';
import plugin, { smaCrossoverParams } from './sma-crossover.js';

function bar(i: number, close: number): KlineEvent {
  const c = new Decimal(close);
  return { type: 'kline', E: i * 60_000 + 59_999, symbol: 'BTC_USDT', interval: '1m', openTime: i * 60_000, closeTime: i * 60_000 + 59_999, firstTradeId: '0', lastTradeId: '0', open: c, high: c, low: c, close: c, volume: c, quoteVolume: c, trades: 1, takerBuyBaseVolume: c, takerBuyQuoteVolume: c, closed: true };
}

/** The fill of a market buy of 1 at 5, executed at `E`. */
function buyFill(E: number): BusEvent {
  return { type: 'fill', E, strategy: 'test', clientId: 'c1', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '1', price: new Decimal(5), qty: new Decimal(1), quoteQty: new Decimal(5), commission: new Decimal(0), commissionAsset: null, isMaker: false };
}

describe('sma-crossover', () => {
  it('validates parameters (fast < slow)', () => {
    expect(smaCrossoverParams.safeParse({ fast: 5, slow: 3 }).success).toBe(false);
    expect(smaCrossoverParams.parse({})).toMatchObject({ fast: 10, slow: 50, kind: 'SMA', quantity: '0.01' });
  });

  it('buys when fast crosses above slow and sells the position when it crosses below', () => {
    const ctx = fakeContext(smaCrossoverParams.parse({ fast: 2, slow: 4, quantity: '0.5' }));
    const h = plugin.create(ctx);
    const closes = [10, 10, 10, 10, 12, 14, 14, 9, 5, 5];
    closes.forEach((c, i) => {
      ctx.now = i * 60_000 + 59_999;
      const before = ctx.intents.length;
      h.onEvent(bar(i, c));
      // stand-in for the venue: the market order fills at once
      const last = ctx.intents[ctx.intents.length - 1];
      if (ctx.intents.length > before && last?.kind === 'place') ctx.positions.set('BTC', last.req.side === 'BUY' ? new Decimal('0.5') : new Decimal(0));
    });
    const places = ctx.intents.filter((x) => x.kind === 'place');
    expect(places.map((x) => (x.kind === 'place' ? [x.req.side, x.req.orderType, x.req.quantity?.toString()] : []))).toEqual([
      ['BUY', 'MARKET', '0.5'],
      ['SELL', 'MARKET', '0.5'],
    ]);
  });

  it('agrees with trading-signals SMA on when fast > slow', () => {
    const ctx = fakeContext(smaCrossoverParams.parse({ fast: 3, slow: 5, quantity: '1' }));
    const h = plugin.create(ctx);
    const f = new SMA(3);
    const s = new SMA(5);
    let firstAbove = -1;
    const closes = [50, 49, 48, 47, 46, 45, 47, 50, 53, 56];
    let placedAt = -1;
    closes.forEach((c, i) => {
      const fv = f.update(c, false);
      const sv = s.update(c, false);
      if (firstAbove < 0 && fv !== null && sv !== null && fv > sv) firstAbove = i;
      h.onEvent(bar(i, c));
      if (placedAt < 0 && ctx.intents.length > 0) {
        placedAt = i;
        ctx.positions.set('BTC', new Decimal(1));
      }
    });
    expect(firstAbove).toBeGreaterThan(0);
    expect(placedAt).toBe(firstAbove);
    expect(ctx.intents).toHaveLength(1);
  });

  // The bar an execution falls in is read from the bars, not from its time: against a replay the
  // bars run on the recording's clock and executions on the exchange's (years apart).
  it.each([4 * 60_000, Date.UTC(2030, 0, 1)])('skips the bar on which its order executed (executed at %i)', (executedAt) => {
    const ctx = fakeContext(smaCrossoverParams.parse({ fast: 2, slow: 3, quantity: '1' }));
    const h = plugin.create(ctx);
    [1, 1, 1, 5].forEach((c, i) => h.onEvent(bar(i, c)));
    expect(ctx.intents).toHaveLength(1);
    // the buy filled at the open of bar 4; then the averages cross down on that same bar
    ctx.positions.set('BTC', new Decimal(1));
    h.onEvent(buyFill(executedAt));
    h.onEvent(bar(4, 0.5));
    expect(ctx.intents).toHaveLength(1);
    h.onEvent(bar(5, 0.5));
    expect(ctx.intents).toHaveLength(2);
  });

  it('names its kline interval (live runs subscribe to it, backtests of trades build it)', () => {
    expect(plugin.klineIntervals?.(smaCrossoverParams.parse({ interval: '15m' }))).toEqual(['15m']);
  });

  it('refuses an interval no kline has and a zero quantity', () => {
    expect(smaCrossoverParams.safeParse({ interval: '1min' }).error?.issues[0]?.path).toEqual(['interval']);
    expect(smaCrossoverParams.safeParse({ interval: '15m' }).success).toBe(true);
    expect(smaCrossoverParams.safeParse({ quantity: '0' }).error?.issues[0]?.path).toEqual(['quantity']);
  });

  it('with a stepSize, sells the position floored to it and counts a remainder below one step as flat', () => {
    const ctx = fakeContext(smaCrossoverParams.parse({ fast: 2, slow: 4, quantity: '0.1', stepSize: '0.001' }));
    const h = plugin.create(ctx);
    const closes = [10, 10, 10, 10, 12, 14, 14, 9, 5, 5, 5, 9, 14, 16];
    closes.forEach((c, i) => {
      ctx.now = i * 60_000 + 59_999;
      const before = ctx.intents.length;
      h.onEvent(bar(i, c));
      // stand-in for the venue: fills at once; a buy's 0.1 % fee is taken from the base received
      const last = ctx.intents[ctx.intents.length - 1];
      if (ctx.intents.length > before && last?.kind === 'place') {
        const held = ctx.positions.get('BTC') ?? new Decimal(0);
        const q = last.req.quantity as Decimal;
        ctx.positions.set('BTC', last.req.side === 'BUY' ? held.plus(q.mul('0.999')) : held.minus(q));
      }
    });
    const places = ctx.intents.flatMap((x) => (x.kind === 'place' ? [`${x.req.side} ${x.req.quantity?.toString()}`] : []));
    // 0.0999 held after the buy: 0.099 sold, 0.0009 left (below a step): the next cross up buys again.
    expect(places).toEqual(['BUY 0.1', 'SELL 0.099', 'BUY 0.1']);
    expect(ctx.positions.get('BTC')?.toString()).toBe('0.1008');
  });
});
