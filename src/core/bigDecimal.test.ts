import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { bigCmp, bigDiv, bigDivProduct, bigMinus, bigOf, bigPlus, bigTimes, bigToDecimal, bigToNumber, type BigDec } from './bigDecimal.js';

const text = (x: BigDec) => bigToDecimal(x).toString();

// Short (exchange-like), long (up to 60 digits: beyond the 40-digit precision, as inputs may be)
// and numbers of nines (rounding carries into a new digit), over a wide range of exponents.
const arbDigits = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 8 })).map(([l, ds]) => `${l}${ds.join('')}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 30, maxLength: 60 })).map(([l, ds]) => `${l}${ds.join('')}`),
  fc.integer({ min: 1, max: 45 }).map((n) => '9'.repeat(n)),
  fc.integer({ min: 1, max: 45 }).map((n) => `1${'0'.repeat(n)}5`),
);
const arbDec = fc.tuple(fc.boolean(), arbDigits, fc.integer({ min: -45, max: 30 })).map(([neg, ds, e]) => new Decimal(`${neg ? '-' : ''}${ds}e${e}`));
const arbAny = fc.oneof({ arbitrary: arbDec, weight: 9 }, { arbitrary: fc.constant(new Decimal(0)), weight: 1 });

describe('bigDecimal', () => {
  it('reads a Decimal exactly and back', () => {
    for (const s of ['0', '1', '-1', '0.001', '61234.56', '-0.0000001', '123456789012345678901234567890.123456789', '1e-40', '9e30']) {
      expect(bigToDecimal(bigOf(new Decimal(s))).toString()).toBe(new Decimal(s).toString());
    }
  });

  it('rounds half away from zero at 40 digits, carrying into a new digit', () => {
    const nines = bigOf(new Decimal('9'.repeat(41)));
    expect(text(bigPlus(nines, bigOf(new Decimal(0))))).toBe(new Decimal('9'.repeat(41)).plus(0).toString());
    expect(text(bigDiv(bigOf(new Decimal(2)), bigOf(new Decimal(3))))).toBe(new Decimal(2).div(3).toString());
    expect(text(bigDiv(bigOf(new Decimal(-1)), bigOf(new Decimal(3))))).toBe(new Decimal(-1).div(3).toString());
  });

  it('differential at any length: operands of up to 260 digits (products past the 400-digit power table), both signs', () => {
    const arbLong = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 40, maxLength: 260 }), fc.integer({ min: -300, max: 300 }))
      .map(([neg, l, ds, e]) => new Decimal(`${neg ? '-' : ''}${l}${ds.join('')}e${e}`));
    fc.assert(
      fc.property(arbLong, arbLong, (x, y) => {
        const bx = bigOf(x);
        const by = bigOf(y);
        expect(text(bigPlus(bx, by))).toBe(x.plus(y).toString());
        expect(text(bigMinus(bx, by))).toBe(x.minus(y).toString());
        expect(text(bigTimes(bx, by))).toBe(x.times(y).toString());
        expect(text(bigDiv(bx, by))).toBe(x.dividedBy(y).toString());
      }),
      { numRuns: 2_000 },
    );
  });

  it('differential: x.times(y).dividedBy(z) by bigDivProduct, z being y (by its digits or by value) or not', () => {
    // z spelled as y (same digits: the shortcut), as y with a trailing zero more (same value, other digits), or another value.
    const arbZ = (y: Decimal) => fc.oneof(fc.constant(bigOf(y)), fc.constant({ m: bigOf(y).m * 10n, e: bigOf(y).e - 1 }), arbDec.map(bigOf));
    fc.assert(
      fc.property(arbAny, arbDec.chain((y) => fc.tuple(fc.constant(y), arbZ(y))), (x, [y, bz]) => {
        if (bz.m === 0n) return;
        const bx = bigOf(x);
        const by = bigOf(y);
        const z = bigToDecimal(bz);
        expect(text(bigDivProduct(bigTimes(bx, by), bx, by, bz))).toBe(x.times(y).dividedBy(z).toString());
      }),
      { numRuns: 5_000 },
    );
  });

  it('differential: plus, minus, times, dividedBy, cmp and toNumber equal decimal.js in value and digits', () => {
    fc.assert(
      fc.property(arbAny, arbAny, (x, y) => {
        const bx = bigOf(x);
        const by = bigOf(y);
        expect(text(bigPlus(bx, by))).toBe(x.plus(y).toString());
        expect(text(bigMinus(bx, by))).toBe(x.minus(y).toString());
        expect(text(bigTimes(bx, by))).toBe(x.times(y).toString());
        if (!y.isZero()) expect(text(bigDiv(bx, by))).toBe(x.dividedBy(y).toString());
        expect(bigCmp(bx, by)).toBe(x.cmp(y));
        expect(Object.is(bigToNumber(bx), x.toNumber()) || (x.isZero() && bigToNumber(bx) === 0)).toBe(true);
        // Chained, as the accounting chains them: results of results.
        const r = bigPlus(bigTimes(bx, by), bx);
        expect(text(r)).toBe(x.times(y).plus(x).toString());
        if (!y.isZero()) expect(text(bigDiv(r, by))).toBe(x.times(y).plus(x).dividedBy(y).toString());
        expect(bigToNumber(r)).toBe(x.times(y).plus(x).toNumber() + 0);
      }),
      { numRuns: 20_000 },
    );
    // 20,000 cases take ~5 s on a quiet core; a loaded machine must not turn that into a failure.
  }, 120_000);
});
