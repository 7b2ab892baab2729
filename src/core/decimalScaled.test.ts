import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { decimalOfScaled, ScaledDecimalCache, scaledOfDecimal, unitsOfDecimal } from './decimalScaled.js';
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

/** The reference: the value's plain text (digits with the point `scale` from the right) parsed by decimal.js. */
function parsedText(v: bigint, scale: number): Decimal {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const at = digits.length - scale;
  return new Decimal(`${neg ? '-' : ''}${digits.slice(0, at)}${scale > 0 ? '.' : ''}${digits.slice(at)}`);
}

/** decimal.js's internal form: equal Decimals built two ways must have the same sign, exponent and digit words. */
function parts(x: Decimal): { s: number; e: number; d: readonly number[] | null } {
  return { s: x.s, e: x.e, d: x.d };
}

describe('decimalOfScaled (differential vs parsing the text)', () => {
  it('equals the parsed text in value and internal form, for numbers and bigints of any size', () => {
    const safe = fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.maxSafeInteger(), fc.integer({ min: 0, max: 2 ** 31 }).map((x) => x * 1000));
    const big = fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n });
    fc.assert(
      fc.property(fc.oneof(safe, big), fc.integer({ min: 0, max: 22 }), (v, scale) => {
        const got = decimalOfScaled(v, scale);
        const want = parsedText(BigInt(v), scale);
        expect(parts(got)).toEqual(parts(want));
        expect(got.toFixed()).toBe(want.toFixed());
      }),
      { numRuns: 20000 },
    );
  });

  it('edge cases', () => {
    expect(decimalOfScaled(0, 8).toFixed()).toBe('0');
    expect(parts(decimalOfScaled(-0, 8))).toEqual(parts(new Decimal('0')));
    expect(parts(decimalOfScaled(0n, 8))).toEqual(parts(new Decimal('0')));
    expect(decimalOfScaled(6160201, 2).toFixed()).toBe('61602.01');
    expect(decimalOfScaled(Number.MAX_SAFE_INTEGER, 0).toFixed()).toBe('9007199254740991');
    expect(decimalOfScaled(9007199254740992n, 4).toFixed()).toBe('900719925474.0992');
    expect(decimalOfScaled(10n ** 30n + 1n, 22).toFixed()).toBe('100000000.0000000000000000000001');
    expect(parts(decimalOfScaled(123_000_000, 22))).toEqual(parts(new Decimal('0.0000000000000123')));
    expect(() => decimalOfScaled(2 ** 53, 0)).toThrow(RangeError);
    expect(() => decimalOfScaled(0.5, 0)).toThrow(RangeError);
    expect(() => decimalOfScaled(NaN, 0)).toThrow(RangeError);
  });
});

describe('ScaledDecimalCache', () => {
  it('answers decimalOfScaled, per scale, the same Decimal for a repeated value, within its bound', () => {
    const cache = new ScaledDecimalCache(4);
    const a = cache.get(6160201, 2);
    expect(a.toFixed()).toBe('61602.01');
    expect(cache.get(6160201, 2)).toBe(a);
    expect(cache.get(6160201, 3).toFixed()).toBe('6160.201');
    for (let v = 1; v <= 10; v++) expect(parts(cache.get(v * 7, 5))).toEqual(parts(decimalOfScaled(v * 7, 5)));
    expect(cache.get(0, 8).toFixed()).toBe('0');
    expect(() => cache.get(2 ** 53, 0)).toThrow(RangeError);
  });
});

describe('unitsOfDecimal (signed scaledOfDecimal)', () => {
  it('is scaledOfDecimal of |x| with the sign of x, NaN where that refuses', () => {
    const dec = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: -25, max: 20 }), fc.boolean()).map(([m, k, neg]) => new Decimal(`${neg ? '-' : ''}${m}e${k}`));
    fc.assert(
      fc.property(dec, fc.integer({ min: 0, max: 22 }), (x, scale) => {
        const abs = scaledOfDecimal(x.abs(), scale);
        const got = unitsOfDecimal(x, scale);
        if (abs < 0) expect(got).toBeNaN();
        else expect(got).toBe(x.isNegative() && abs !== 0 ? -abs : abs);
      }),
      { numRuns: 20000 },
    );
    expect([unitsOfDecimal(new Decimal('-0'), 2), unitsOfDecimal(new Decimal('-61602.01'), 2), unitsOfDecimal(new Decimal('-0.001'), 2)]).toEqual([0, -6160201, NaN]);
  });
});
