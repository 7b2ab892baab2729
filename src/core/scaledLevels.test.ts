import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { NEEDS_SCALE, NOT_PLAIN, TOO_LARGE, fractionDigitsOf, parseDepthSides, scaledDecimal, scaledLevels, type WireLevels } from './scaledLevels.js';

/** A plain decimal string: integer part, optional point, up to `maxFrac` fraction digits, sometimes trailing zeros. */
const plain = (maxInt: number, maxFrac: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** maxFrac - 1 }), fc.integer({ min: 0, max: maxFrac }), fc.integer({ min: 0, max: 6 }), fc.boolean())
    .map(([i, f, digits, zeros, lead]) => {
      const int = lead || i > 0 ? String(i) : '';
      if (digits === 0 && zeros === 0) return int === '' ? '0' : int;
      return `${int}.${String(f).padStart(maxFrac, '0').slice(0, digits)}${'0'.repeat(zeros)}`;
    });

/** The reference: decimal.js scaled by 10^scale, or the code scaledDecimal must return. */
function reference(s: string, scale: number): number {
  let d: Decimal;
  try {
    if (!/^(\d+\.?\d*|\.\d+)$/.test(s)) return NOT_PLAIN;
    d = new Decimal(s);
  } catch {
    return NOT_PLAIN;
  }
  const v = d.mul(new Decimal(10).pow(scale));
  if (!v.isInteger()) return NEEDS_SCALE;
  return v.gt(Number.MAX_SAFE_INTEGER) ? TOO_LARGE : v.toNumber();
}

describe('scaledDecimal (differential vs decimal.js)', () => {
  it('scales plain decimals exactly, signals a needed scale, rejects the rest', () => {
    const any = fc.oneof(plain(99_999_999, 10), plain(9_007_199_254_740_991, 3), fc.string({ maxLength: 8 }), fc.stringMatching(/^[0-9.]{0,12}$/));
    fc.assert(
      fc.property(any, fc.integer({ min: 0, max: 12 }), (s, scale) => {
        const got = scaledDecimal(s, scale);
        const want = reference(s, scale);
        // Documented: a significant digit beyond the scale may be reported before a later
        // malformed character; parsing at the scale the string asks for then rejects it.
        if (want === NOT_PLAIN && got === NEEDS_SCALE) expect(scaledDecimal(s, fractionDigitsOf(s))).toBe(NOT_PLAIN);
        else expect(got).toBe(want);
      }),
      { numRuns: 5000 },
    );
  });

  it('edge cases', () => {
    expect(scaledDecimal('61837.63000000', 2)).toBe(6183763);
    expect(scaledDecimal('0.00469000', 5)).toBe(469);
    expect(scaledDecimal('0.00469000', 4)).toBe(NEEDS_SCALE);
    expect(scaledDecimal('.5', 1)).toBe(5);
    expect(scaledDecimal('5.', 0)).toBe(5);
    expect(scaledDecimal('.000', 0)).toBe(0);
    for (const s of ['', '.', '-1', '1e5', '1.2.3', ' 1', '1.5x', '1.0x']) expect(scaledDecimal(s, 2)).toBe(NOT_PLAIN);
    expect(scaledDecimal('9007199254740991', 0)).toBe(Number.MAX_SAFE_INTEGER);
    expect(scaledDecimal('9007199254740992', 0)).toBe(TOO_LARGE);
    expect(scaledDecimal('90071992547409.92', 2)).toBe(TOO_LARGE);
    expect(fractionDigitsOf('1.2300')).toBe(2);
    expect(fractionDigitsOf('100')).toBe(0);
  });
});

describe('parseDepthSides', () => {
  it('parses both sides exactly at common scales, raised only to what a string needs (differential vs decimal.js)', () => {
    const level = fc.tuple(plain(100_000, 8), fc.oneof(plain(1_000, 8), fc.constant('0'), fc.constant('0.00000000')));
    fc.assert(
      fc.property(fc.array(level, { maxLength: 80 }), fc.array(level, { maxLength: 80 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), (rb, ra, ps, qs) => {
        // Small initial buffers, so growing them is exercised too.
        const bids = scaledLevels(4);
        const asks = scaledLevels(4);
        parseDepthSides(rb as WireLevels, ra as WireLevels, bids, asks, ps, qs);
        const all = [...rb, ...ra];
        const wantP = Math.max(ps, ...all.map((l) => fractionDigitsOf(l[0])));
        const wantQ = Math.max(qs, ...all.map((l) => fractionDigitsOf(l[1])));
        for (const [l, raw] of [
          [bids, rb],
          [asks, ra],
        ] as const) {
          expect([l.n, l.priceScale, l.qtyScale]).toEqual([raw.length, wantP, wantQ]);
          raw.forEach(([p, q], i) => {
            expect(new Decimal(l.prices[i] as number).div(new Decimal(10).pow(wantP)).eq(p)).toBe(true);
            expect(new Decimal(l.qtys[i] as number).div(new Decimal(10).pow(wantQ)).eq(q)).toBe(true);
          });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('names the field of a bad string, and refuses a scale rise that takes an earlier level past 2^53', () => {
    const b = scaledLevels();
    const a = scaledLevels();
    expect(() => parseDepthSides([['1', 'x']], [], b, a, 0, 0)).toThrow(/qty="x"/);
    expect(() => parseDepthSides([], [['1e3', '1']], b, a, 0, 0)).toThrow(/price="1e3"/);
    expect(() => parseDepthSides([['9007199254740991', '1']], [], b, a, 0, 0)).not.toThrow();
    expect(() => parseDepthSides([['9007199254740991', '1']], [['1.5', '1']], b, a, 0, 0)).toThrow(RangeError);
    expect(() => parseDepthSides([['90071992547409911', '1']], [], b, a, 0, 0)).toThrow(/too large/);
  });
});
