import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { parseSymbolFilters } from '../core/filters.js';
import { symbolRules } from './symbolRules.js';

const filters = parseSymbolFilters([
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
  { filterType: 'NOTIONAL', minNotional: '5', maxNotional: '9000000', applyToMarket: true, avgPriceMins: 5 },
]);

describe('symbolRules', () => {
  const r = symbolRules('BTC_USDT', filters);

  it('reads the filters and splits the symbol', () => {
    expect([r.baseAsset, r.quoteAsset, r.tickSize.toFixed(), r.stepSize.toFixed(), r.minNotional.toFixed(), r.priceDecimals, r.qtyDecimals]).toEqual(['BTC', 'USDT', '0.01', '0.00001', '5', 2, 5]);
  });

  it('rounds exactly onto the grids, down by default', () => {
    expect(r.roundPrice('61234.5678').toFixed()).toBe('61234.56');
    expect(r.roundPrice('61234.5678', 'up').toFixed()).toBe('61234.57');
    expect(r.roundPrice('61234.565', 'nearest').toFixed()).toBe('61234.57');
    expect(r.roundQty('0.123456789').toFixed()).toBe('0.12345');
    expect(r.priceText('61234.5')).toBe('61234.50');
    expect(r.qtyText('0.1')).toBe('0.10000');
    // 5 / 61234.56 = 0.0000816..., up to the step
    expect(r.minQtyAt('61234.56').toFixed()).toBe('0.00009');
  });

  it('names the filter an order breaks, and passes one on the grids', () => {
    expect(r.check('61234.56', '0.001')).toBeUndefined();
    expect(r.check('61234.565', '0.001')).toMatch(/^PRICE_FILTER: .* tickSize 0\.01/);
    expect(r.check('61234.56', '0.0000015')).toMatch(/^LOT_SIZE: quantity 0\.0000015 below minQty/);
    expect(r.check('61234.56', '0.000015')).toMatch(/^LOT_SIZE: .* stepSize/);
    expect(r.check('61234.56', '0.00008')).toMatch(/^NOTIONAL: .* below minNotional 5/);
  });

  it('leaves values unchanged for a symbol without filters', () => {
    const none = symbolRules('ETH_IDR');
    expect(none.roundPrice('1.23456').toFixed()).toBe('1.23456');
    expect(none.roundQty('7.7', 'up').toFixed()).toBe('7.7');
    expect(none.check('1.23456', '0.0000001')).toBeUndefined();
  });

  it('any price and quantity rounded with it (minQtyAt and up) pass every filter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999 }), fc.integer({ min: 0, max: 10_000_000 }), (pc, qc) => {
        const price = r.roundPrice(new Decimal(pc).div(1000), 'nearest');
        fc.pre(price.gte('0.01'));
        const qty = Decimal.max(r.roundQty(new Decimal(qc).div(1e6)), r.minQtyAt(price));
        fc.pre(qty.lte(9000));
        expect(r.check(price, qty)).toBeUndefined();
      }),
    );
  });
});
