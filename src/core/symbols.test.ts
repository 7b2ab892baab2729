import { describe, expect, it } from 'vitest';
import { marketSymbol, splitSymbol, streamSymbol } from './symbols.js';

describe('symbols', () => {
  it('splits BASE_QUOTE and refuses a symbol without a base or an underscore', () => {
    expect(splitSymbol('BTC_IDR')).toEqual({ base: 'BTC', quote: 'IDR' });
    for (const bad of ['BTCIDR', '_IDR', '']) expect(() => splitSymbol(bad), bad).toThrow(/BASE_QUOTE/);
  });

  it('respells type 1 symbols for the market-data host and streams', () => {
    expect(marketSymbol('BTC_IDR', 1)).toBe('BTCIDR');
    expect(marketSymbol('BTC_IDR', 2)).toBe('BTC_IDR');
    expect(streamSymbol('BTC_IDR', 1)).toBe('btcidr');
  });
});
