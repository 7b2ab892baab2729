import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quoteUnsafeIntegers } from './unsafeIntegers.js';

describe('quoteUnsafeIntegers', () => {
  it('keeps every digit of a 19-digit id and leaves safe numbers alone', () => {
    const text = '{"orderId":4611875134427364999,"price":1.5,"t":1700000000000,"list":[-9223372036854775807, 12]}';
    const v = JSON.parse(quoteUnsafeIntegers(text)) as { orderId: unknown; price: unknown; t: unknown; list: unknown[] };
    expect(v.orderId).toBe('4611875134427364999');
    expect(v.price).toBe(1.5);
    expect(v.t).toBe(1_700_000_000_000);
    expect(v.list).toEqual(['-9223372036854775807', 12]);
  });

  it('never touches digits inside strings, including escaped quotes', () => {
    const text = '{"msg":"id \\" 4611875134427364999, bad","n":4611875134427364999}';
    expect(JSON.parse(quoteUnsafeIntegers(text))).toEqual({ msg: 'id " 4611875134427364999, bad', n: '4611875134427364999' });
  });

  it('does not change decimals or exponents with long digit runs', () => {
    const text = '[12345678901234567.5, 1234567890123456789e2]';
    expect(quoteUnsafeIntegers(text)).toBe(text);
  });

  it('parses any JSON like JSON.parse, except unsafe integers become their digit strings', () => {
    // JSON.stringify writes integers below 1e21 as plain digits, which is what gets quoted.
    const expected = (v: unknown): unknown => {
      if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v) && Math.abs(v) < 1e21 ? String(v) : v;
      if (Array.isArray(v)) return v.map(expected);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expected(x)]));
      return v;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(JSON.parse(quoteUnsafeIntegers(text))).toEqual(expected(JSON.parse(text)));
      }),
      { numRuns: 300 },
    );
  });
});
