import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { decimalToNumber } from './decimalNumber.js';

// Counts decimal.js's own toNumber calls, to tell the fast path (no call) from the fallback.
const proto = Object.getPrototypeOf(new Decimal(0)) as { toNumber: (this: Decimal) => number };
const toNumber = proto.toNumber;
let fallbacks = 0;
proto.toNumber = function (this: Decimal) {
  fallbacks++;
  return toNumber.call(this);
};
afterAll(() => {
  proto.toNumber = toNumber;
});

/** Checks one value (the same double, -0 and NaN included); true when the fast path answered. */
function same(x: Decimal): boolean {
  const before = fallbacks;
  const v = decimalToNumber(x);
  const fast = fallbacks === before;
  expect(Object.is(v, toNumber.call(x)), `${x.toString()}: ${v} vs ${toNumber.call(x)}`).toBe(true);
  return fast;
}

describe('decimalToNumber', () => {
  it('equals toNumber on edge values', () => {
    for (const s of ['0', '-0', '1', '-1', '0.1', '0.3', '64123.45', '818786.985593', '9007199254740991', '9007199254740993', '1e22', '1e23', '1e-22', '1e-23', '123456789012345.6', '0.000000001', '1.7976931348623157e308', '5e-324', '1e400', '-1e-400']) same(new Decimal(s));
    for (const x of [new Decimal(NaN), new Decimal(Infinity), new Decimal(-Infinity)]) same(x);
  });

  it('differential: equals toNumber on random decimals and on results of arithmetic, on both paths', () => {
    // Up to 30 digits at exponents -30..30: one to five digit words, inside and outside the
    // single-rounding fast path (safe-integer mantissa, |exponent| <= 22).
    const arbDec = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 29 }), fc.integer({ min: -30, max: 30 }))
      .map(([neg, lead, ds, e]) => new Decimal(`${neg ? '-' : ''}${lead}${ds.join('')}e${e - ds.length}`));
    let fast = 0;
    let slow = 0;
    fc.assert(
      fc.property(arbDec, arbDec, (a, b) => {
        for (const x of [a, b, a.plus(b), a.minus(b), a.mul(b), a.div(b)]) {
          if (same(x)) fast++;
          else slow++;
        }
      }),
      { numRuns: 5_000 },
    );
    expect(fast).toBeGreaterThan(5_000);
    expect(slow).toBeGreaterThan(5_000);
  });
});
