import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { Decimal } from '../core/decimal.js';
import type { KlineEvent } from '../core/marketEvents.js';
import { CandleVenue, bpsToRate } from './CandleVenue.js';
import { VirtualScheduler } from './Scheduler.js';

const d = (s: string | number) => new Decimal(s);
function bar(i: number, o: number, h: number, l: number, c: number): KlineEvent {
  return { type: 'kline', E: i * 60_000 + 59_999, symbol: 'BTC_USDT', interval: '1m', openTime: i * 60_000, closeTime: i * 60_000 + 59_999, firstTradeId: undefined, lastTradeId: undefined, open: d(o), high: d(h), low: d(l), close: d(c), volume: d(1), quoteVolume: d(1), trades: 1, takerBuyBaseVolume: d(0), takerBuyQuoteVolume: d(0), closed: true };
}
const place = (clientId: string, over: Partial<PlaceIntent>): PlaceIntent => ({ kind: 'place', strategy: 's', intentId: clientId, clientId, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', quantity: d(2), ...over });

function setup() {
  const s = new VirtualScheduler();
  const out: BusEvent[] = [];
  const v = new CandleVenue({ scheduler: s, publish: (e) => out.push(e), makerFee: bpsToRate(1), takerFee: bpsToRate(10) });
  const feed = (k: KlineEvent) => {
    s.runUntil(k.E);
    v.onBar(k);
    s.runUntil(k.E);
  };
  const show = () => out.map((e) => (e.type === 'fill' ? `fill ${e.clientId} ${e.qty}@${e.price} fee ${e.commission} ${e.commissionAsset} ${e.isMaker ? 'M' : 'T'} t=${e.E}` : e.type === 'orderUpdate' ? `${e.clientId} ${e.state}` : e.type));
  return { s, v, out, feed, show };
}

describe('CandleVenue', () => {
  it('fills a market order at the next bar open with the taker fee, a buy\'s in the base asset received (as the engine charges it)', () => {
    const { s, v, feed, show } = setup();
    feed(bar(0, 100, 101, 99, 100));
    v.submit(place('m', { orderType: 'MARKET' }));
    s.runUntil(s.clock.now());
    feed(bar(1, 103, 104, 102, 103));
    expect(show()).toEqual(['m NEW', 'fill m 2@103 fee 0.002 BTC T t=60000', 'm FILLED']);
  });

  it('publishes a fill and its orderUpdate back to back, before work the fill causes', () => {
    const s = new VirtualScheduler();
    const out: string[] = [];
    const v = new CandleVenue({
      scheduler: s,
      publish: (e) => {
        out.push(e.type === 'orderUpdate' ? `${e.clientId} ${e.state}` : e.type);
        // A consumer reacting to the fill at delay 0 (as the strategy host's venue answers do).
        if (e.type === 'fill') s.schedule(0, () => out.push('reaction'));
      },
      makerFee: bpsToRate(1),
      takerFee: bpsToRate(10),
    });
    v.onBar(bar(0, 100, 101, 99, 100));
    v.submit(place('m', { orderType: 'MARKET' }));
    s.runUntil(s.clock.now());
    v.onBar(bar(1, 103, 104, 102, 103));
    s.runUntil(60_000);
    expect(out).toEqual(['m NEW', 'fill', 'm FILLED', 'reaction']);
  });

  it('limits: through at the open fills at the open (taker), trading through fills at the limit (maker), a touch does not', () => {
    const { s, v, feed, show } = setup();
    feed(bar(0, 100, 101, 99, 100));
    v.submit(place('b1', { price: d(95) }));
    v.submit(place('s1', { side: 'SELL', price: d(90) }));
    v.submit(place('mk', { orderType: 'LIMIT_MAKER', side: 'SELL', price: d(99) }));
    s.runUntil(s.clock.now());
    feed(bar(1, 96, 97, 95, 96)); // touches 95: b1 stays; s1 is through at the open
    feed(bar(2, 96, 97, 94.5, 96)); // trades through 95: b1 fills at 95 as maker
    expect(show()).toEqual(['b1 NEW', 's1 NEW', 'mk REJECTED', 'fill s1 2@96 fee 0.192 USDT T t=60000', 's1 FILLED', 'fill b1 2@95 fee 0.0002 BTC M t=179999', 'b1 FILLED']);
  });

  it('expires a resting LIMIT_MAKER that a bar opens through', () => {
    const { s, v, feed, show } = setup();
    feed(bar(0, 100, 101, 99, 100));
    v.submit(place('mk', { orderType: 'LIMIT_MAKER', side: 'SELL', price: d(102) }));
    s.runUntil(s.clock.now());
    feed(bar(1, 103, 104, 102, 103));
    expect(show()).toEqual(['mk NEW', 'mk EXPIRED']);
  });

  it('rejects unsupported types and cancels at once', () => {
    const { s, v, show } = setup();
    v.submit(place('x', { orderType: 'STOP_LOSS', stopPrice: d(1) }));
    v.submit(place('y', { price: d(50) }));
    v.submit({ kind: 'cancel', strategy: 's', intentId: 'c', symbol: 'BTC_USDT', clientId: 'y' });
    v.submit({ kind: 'cancel', strategy: 's', intentId: 'c2', symbol: 'BTC_USDT', clientId: 'nope' });
    s.runUntil(0);
    expect(show()).toEqual(['x REJECTED', 'y NEW', 'y CANCELED', 'intentRejected']);
  });

  it('after an order is final: a cancel is refused as unknown and its clientId cannot be placed again', () => {
    const { s, v, feed, show, out } = setup();
    feed(bar(0, 100, 101, 99, 100));
    v.submit(place('m', { orderType: 'MARKET' }));
    s.runUntil(s.clock.now());
    feed(bar(1, 103, 104, 102, 103));
    v.submit({ kind: 'cancel', strategy: 's', intentId: 'c', symbol: 'BTC_USDT', clientId: 'm' });
    v.submit(place('m', { orderType: 'MARKET' }));
    s.runUntil(s.clock.now());
    expect(show()).toEqual(['m NEW', 'fill m 2@103 fee 0.002 BTC T t=60000', 'm FILLED', 'intentRejected', 'intentRejected']);
    expect(out.slice(-2).map((e) => (e.type === 'intentRejected' ? e.reason : e.type))).toEqual(['UNKNOWN_ORDER', 'DUPLICATE_CLIENT_ID']);
  });
});
