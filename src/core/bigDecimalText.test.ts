import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { bigOf, bigToDecimal } from './bigDecimal.js';
import { bigAmountText, bigOfText, bigPrecisionNumber, bigText, bigToPlaces } from './bigDecimalText.js';

// Short (exchange-like) and long (past the 40-digit precision) digit strings, runs of nines (a
// rounding that carries) and halves (a rounding on the tie), over a wide range of exponents.
const arbDigits = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 10 })).map(([l, ds]) => `${l}${ds.join('')}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 30, maxLength: 60 })).map(([l, ds]) => `${l}${ds.join('')}`),
  fc.integer({ min: 1, max: 45 }).map((n) => '9'.repeat(n)),
  fc.integer({ min: 0, max: 45 }).map((n) => `1${'0'.repeat(n)}5`),
);
const arbDec = fc.oneof(
  { arbitrary: fc.tuple(fc.boolean(), arbDigits, fc.integer({ min: -50, max: 30 })).map(([neg, ds, e]) => new Decimal(`${neg ? '-' : ''}${ds}e${e}`)), weight: 9 },
  { arbitrary: fc.constant(new Decimal(0)), weight: 1 },
);

describe('bigDecimalText', () => {
  it('reads texts as new Decimal(text) holds them, plain or not', () => {
    for (const s of ['0', '-0', '0.000', '12', '-12.50', '0.00012', '61234.5', '.5', '5.', '1e-3', '-2.5E+4', '007.100']) {
      expect(bigToDecimal(bigOfText(s)).toString(), s).toBe(new Decimal(s).toString());
    }
    for (const s of ['', '-', '.', '1.2.3', 'abc', '1e', '--1', ' 1']) expect(() => bigOfText(s), s).toThrow(/not a decimal text/);
  });

  it('differential: texts, places and precision equal decimal.js', () => {
    fc.assert(
      fc.property(arbDec, fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 20 }), (x, places, digits) => {
        const b = bigOf(x);
        expect(bigText(b)).toBe(x.toFixed());
        expect(bigText(bigOfText(x.toFixed()))).toBe(x.toFixed());
        expect(bigText(bigOfText(x.toString()))).toBe(x.toFixed());
        expect(bigText(bigToPlaces(b, places))).toBe(x.toDecimalPlaces(places).toFixed());
        const r = x.toDecimalPlaces(12);
        expect(bigAmountText(b)).toBe(r.isZero() ? '0' : r.toFixed());
        expect(bigPrecisionNumber(b, digits)).toBe(Number(x.toPrecision(digits)));
      }),
      { numRuns: 5_000 },
    );
  });
});
