import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { DecimalTextCache, decimalOfText } from './decimalText.js';

describe('decimalOfText', () => {
  it('differential: a plain short text gives the parsed Decimal (sign, exponent, digit words); anything else is left to the parser', () => {
    const arbDigits = fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 20 }).map((ds) => ds.join(''));
    // Plain texts with leading and trailing zeros, a point anywhere or none, up to 40 digits; and
    // exponent forms, zeros and malformed texts (the fast path must decline them).
    const arbText = fc.oneof(
      { arbitrary: fc.tuple(fc.boolean(), arbDigits, fc.option(arbDigits, { nil: undefined })).map(([neg, a, b]) => `${neg ? '-' : ''}${a}${b === undefined ? '' : `.${b}`}`), weight: 8 },
      { arbitrary: fc.constantFrom('0', '-0', '0.000', '1e5', '2E-3', '', '-', '.', '1.2.3', '12a', '+5', ' 1'), weight: 1 },
    );
    let fast = 0;
    let declined = 0;
    fc.assert(
      fc.property(arbText, (text) => {
        const got = decimalOfText(text);
        let want: Decimal | undefined;
        try {
          want = new Decimal(text);
        } catch {
          want = undefined;
        }
        if (got === undefined) {
          declined++;
          return;
        }
        fast++;
        expect(want).toBeDefined();
        expect([got.s, got.e, got.d]).toEqual([want?.s, want?.e, want?.d]);
        expect(got.toFixed()).toBe(want?.toFixed());
      }),
      { numRuns: 20_000, seed: 11 },
    );
    expect(fast).toBeGreaterThan(5_000);
    expect(declined).toBeGreaterThan(1_000);
  });

  it('caches one Decimal per text and parses what the fast path declines', () => {
    const c = new DecimalTextCache(2);
    const a = c.get('61837.63');
    expect(c.get('61837.63')).toBe(a);
    expect(c.get('1e-8').toFixed()).toBe('0.00000001');
    expect(c.get('0').isZero()).toBe(true);
    expect(() => c.get('abc')).toThrow();
  });

  it('returns the exact Decimal of each string, reuses it, and stays within its limit', () => {
    const c = new DecimalTextCache(3);
    const a = c.get('1.50');
    expect(a.toFixed()).toBe('1.5');
    expect(c.get('1.50')).toBe(a);
    for (const s of ['2', '3', '4', '0.00000001', '61837.63000000']) expect(c.get(s).toFixed()).toBe(s === '61837.63000000' ? '61837.63' : s);
    // Emptied when full: a new instance, the same value.
    expect(c.get('1.50')).not.toBe(a);
    expect(c.get('1.50').eq(a)).toBe(true);
  });
});
