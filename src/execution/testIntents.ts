/**
 * Test fixture shared by the router's unit tests (FakeExchange) and its integration tests (sandbox):
 * numbered place intents for one resting order shape, a LIMIT GTC buy of 0.001 BTC_IDR at
 * 900000000, well below the market so it rests until cancelled.
 */
import { Decimal } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';

/**
 * Returns a factory of place intents for `strategy`. Each call takes the next number n (from 1)
 * and asks `ids(n)` for its intentId and clientId at that moment; `p` overrides any field.
 */
export function placeIntents(strategy: string, ids: (n: number) => { intentId: string; clientId: string }): (p?: Partial<PlaceIntent>) => PlaceIntent {
  let n = 0;
  return (p = {}) => {
    n++;
    return {
      kind: 'place',
      strategy,
      ...ids(n),
      symbol: 'BTC_IDR',
      side: 'BUY',
      orderType: 'LIMIT',
      timeInForce: 'GTC',
      price: new Decimal('900000000'),
      quantity: new Decimal('0.001'),
      ...p,
    };
  };
}
