import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { OrderUpdateEvent } from '../bus/events.js';
import { QuoteTouchTracker } from './quoteTouch.js';

const upd = (clientId: string, side: 'BUY' | 'SELL', price: string, state: OrderUpdateEvent['state'] = 'NEW'): OrderUpdateEvent =>
  ({ type: 'orderUpdate', E: 0, strategy: 'mm', clientId, orderId: '1', symbol: 'BTC_USDT', side, orderType: 'LIMIT', state, price: new Decimal(price), quantity: new Decimal(1), cumQty: new Decimal(0), cumQuoteQty: new Decimal(0) }) as OrderUpdateEvent;

describe('quote time at the touch', () => {
  it('counts samples where our best bid (ask) is at or better than the book best, over samples quoting that side', () => {
    let top = { bid: 100 as number | undefined, ask: 101 as number | undefined };
    const t = new QuoteTouchTracker(() => top);
    t.order(upd('b1', 'BUY', '99'));
    t.order(upd('b2', 'BUY', '100'));
    t.order(upd('a1', 'SELL', '101.5'));
    t.sample(); // bid at touch (100 >= 100), ask behind (101.5 > 101)
    top = { bid: 100.5, ask: 101.5 };
    t.sample(); // bid behind, ask at touch
    t.order(upd('b2', 'BUY', '100', 'CANCELED'));
    t.order(upd('a1', 'SELL', '101.5', 'FILLED'));
    top = { bid: 98, ask: undefined };
    t.sample(); // bid 99 inside the spread: at the touch; no ask resting
    expect(t.of('mm')).toEqual({ bidSamples: 3, bidAtTouchPct: roundPct(2 / 3), askSamples: 2, askAtTouchPct: 50 });
    expect(t.of('other')).toEqual({ bidSamples: 0, bidAtTouchPct: null, askSamples: 0, askAtTouchPct: null });
  });
});

function roundPct(x: number): number {
  return Number((x * 100).toPrecision(10));
}
