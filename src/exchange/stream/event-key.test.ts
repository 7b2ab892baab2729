import { describe, expect, it } from 'vitest';
import { Decimal } from '../../core/decimal.js';
import type { TradeEvent } from '../../core/marketEvents.js';
import { keyAfter, sequenceKeyOf } from './event-key.js';

const trade = (tradeId: string): TradeEvent => ({ type: 'trade', E: 1, symbol: 'X', tradeId, price: new Decimal(1), qty: new Decimal(1), tradeTime: 1, isBuyerMaker: false });

describe('stream sequence keys (duplicate drop while two connections overlap)', () => {
  it('trade ids order as numbers at any size, not as text', () => {
    const k = (id: string) => sequenceKeyOf(trade(id));
    expect(keyAfter(k('10'), k('9'))).toBe(true);
    expect(keyAfter(k('9'), k('10'))).toBe(false);
    expect(keyAfter(k('9223372036854775807'), k('9223372036854775806'))).toBe(true);
    expect(keyAfter(k('9223372036854775807'), k('9223372036854775807'))).toBe(false);
    expect(keyAfter(k('9007199254740993'), k('9007199254740992'))).toBe(true);
  });

  it('update ids and times are numbers as before', () => {
    expect(keyAfter(5, 4)).toBe(true);
    expect(keyAfter(4, 4)).toBe(false);
    expect(keyAfter(3, 4)).toBe(false);
  });
});
