import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { OrderUpdateEvent, TrackedOrderStateName } from '../bus/events.js';
import { CappedOrders } from './cappedOrders.js';

const ZERO = new Decimal(0);
const update = (clientId: string, state: TrackedOrderStateName): OrderUpdateEvent => ({ type: 'orderUpdate', E: 1, strategy: 's', clientId, orderId: '1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state, price: undefined, quantity: undefined, cumQty: ZERO, cumQuoteQty: ZERO });

describe('CappedOrders', () => {
  it('cancels the oldest order once more than the maximum are held', () => {
    const cancels: string[] = [];
    const q = new CappedOrders({ cancel: (symbol, id) => void cancels.push(`${symbol}:${id}`) }, 'BTC_USDT', 2);
    q.add('a');
    q.add('b');
    expect(cancels).toEqual([]);
    q.add('c');
    expect(cancels).toEqual(['BTC_USDT:a']);
    expect(q.size).toBe(2);
  });

  it('forgets an order on its terminal update, so a later one is not cancelled early', () => {
    const cancels: string[] = [];
    const q = new CappedOrders({ cancel: (_s, id) => void cancels.push(id) }, 'BTC_USDT', 2);
    q.add('a');
    q.add('b');
    expect(q.settle(update('a', 'FILLED'))).toBe(true);
    q.add('c');
    expect(cancels).toEqual([]);
    q.add('d');
    expect(cancels).toEqual(['b']);
  });

  it('passes over events that end nothing, and reports every terminal update (ours or not)', () => {
    const q = new CappedOrders({ cancel: () => undefined }, 'BTC_USDT', 1);
    q.add('a');
    expect(q.settle(update('a', 'NEW'))).toBe(false);
    expect(q.settle(update('zz', 'CANCELED'))).toBe(true);
    expect(q.size).toBe(1);
  });
});
