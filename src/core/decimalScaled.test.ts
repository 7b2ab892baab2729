import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { scaledOfDecimal } from './decimalScaled.js';
import { scaledDecimal } from './scaledLevels.js';

/** The reference: the text path (toFixed, then the plain-decimal parse), -1 where it refuses. */
function viaText(x: Decimal, scale: number): number {
  const v = scaledDecimal(x.toFixed(), scale);
  return v >= 0 ? v : -1;
}

describe('scaledOfDecimal (differential vs toFixed and the plain-decimal parse)', () => {
  it('gives the text path value wherever it answers, and answers for every exchange-sized decimal', () => {
    const digits = fc.oneof(fc.integer({ min: 0, max: 999_999_999 }).map(String), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String));
    const dec = fc.tuple(digits, fc.integer({ min: -30, max: 20 }), fc.boolean()).map(([m, k, neg]) => new Decimal(`${neg ? '-' : ''}${m}e${k}`));
    fc.assert(
      fc.property(dec, fc.integer({ min: 0, max: 22 }), (x, scale) => {
        const got = scaledOfDecimal(x, scale);
        const want = viaText(x, scale);
        if (got >= 0) expect(got).toBe(want);
        // Non-negative, at most 3 digit words (up to 21 significant digits): it always answers.
        else if (x.s === 1 && (x.d?.length ?? 9) <= 3 && want >= 0) expect.fail(`no answer for ${x.toFixed()} at scale ${scale} (text path: ${want})`);
      }),
      { numRuns: 20000 },
    );
  });

  it('edge cases', () => {
    expect(scaledOfDecimal(new Decimal('61602.01000000'), 2)).toBe(6160201);
    expect(scaledOfDecimal(new Decimal('61602.01000000'), 1)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('0.00469000'), 5)).toBe(469);
    expect(scaledOfDecimal(new Decimal('0'), 3)).toBe(0);
    expect(scaledOfDecimal(new Decimal('-0'), 3)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('-1'), 0)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('1e25'), 0)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('9007199254740991'), 0)).toBe(Number.MAX_SAFE_INTEGER);
    expect(scaledOfDecimal(new Decimal('9007199254740992'), 0)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('90071992547409.91'), 2)).toBe(Number.MAX_SAFE_INTEGER);
    expect(scaledOfDecimal(new Decimal(NaN), 2)).toBe(-1);
    expect(scaledOfDecimal(new Decimal(Infinity), 2)).toBe(-1);
    expect(scaledOfDecimal(new Decimal('1.5'), 23)).toBe(-1);
  });
});
