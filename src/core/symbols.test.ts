import { describe, expect, it } from 'vitest';
import { isBaseQuote, marketSymbol, splitSymbol, streamSymbol, symbolKey } from './symbols.js';

describe('symbols', () => {
  it('gives every spelling of a symbol one key', () => {
    expect(['BTC_IDR', 'BTCIDR', 'btcidr', 'btc_idr'].map(symbolKey)).toEqual(['BTCIDR', 'BTCIDR', 'BTCIDR', 'BTCIDR']);
  });

  it('splits BASE_QUOTE and refuses a symbol without a base or an underscore', () => {
    expect(splitSymbol('BTC_IDR')).toEqual({ base: 'BTC', quote: 'IDR' });
    for (const bad of ['BTCIDR', '_IDR', '']) expect(() => splitSymbol(bad), bad).toThrow(/BASE_QUOTE/);
  });

  it('refuses an empty quote (BTC_) the same way, and isBaseQuote is the rule splitSymbol applies', () => {
    for (const bad of ['BTC_', '_', 'IDR_']) expect(() => splitSymbol(bad), bad).toThrow(/BASE_QUOTE/);
    expect(['BTC_IDR', 'A_B', 'BTC_', '_IDR', 'BTCIDR', ''].map(isBaseQuote)).toEqual([true, true, false, false, false, false]);
    // Only the first underscore splits: the quote keeps any later one.
    expect(splitSymbol('A_B_C')).toEqual({ base: 'A', quote: 'B_C' });
  });

  it('respells type 1 symbols for the market-data host and streams', () => {
    expect(marketSymbol('BTC_IDR', 1)).toBe('BTCIDR');
    expect(marketSymbol('BTC_IDR', 2)).toBe('BTC_IDR');
    expect(streamSymbol('BTC_IDR', 1)).toBe('btcidr');
  });
});
