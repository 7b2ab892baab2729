import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { cmpProducts, floorDiv, fmt, fmtBig, mul3, parseScaled, rescale, toScaled } from './scaled.js';

describe('scaled integers', () => {
  it('parses plain decimal strings exactly, refusing what does not fit', () => {
    expect(parseScaled('1.23', 2)).toBe(123);
    expect(parseScaled('1.2300000', 2)).toBe(123);
    expect(parseScaled('.5', 1)).toBe(5);
    expect(parseScaled('7', 3)).toBe(7000);
    expect(parseScaled('1.235', 2)).toBe(-2);
    expect(parseScaled('1e3', 2)).toBe(-1);
    expect(parseScaled('-1', 2)).toBe(-1);
    expect(parseScaled('', 2)).toBe(-1);
    expect(parseScaled('.', 2)).toBe(-1);
    expect(parseScaled('90071992547409.93', 2)).toBe(-3);
  });

  it('toScaled reads a Decimal exactly as the parse of its text, with the same codes', () => {
    // The text path toScaled took before its digit-word fast path, as the reference.
    const viaText = (d: Decimal, scale: number): number => (d.isNegative() || !d.isFinite() ? -1 : parseScaled(d.toFixed(), scale));
    const fixed = ['0', '-0', '1', '0.001', '60000.01', '61837.63000000', '1.235', '-1', '1e-30', '1e30', '9007199254740991', '9007199254740992', '90071992547409.91', '90071992547409.93', '0.00000001', '12345678901234567890', 'Infinity', 'NaN'];
    for (const t of fixed) for (const scale of [0, 1, 2, 6, 8, 15, 22]) expect(toScaled(new Decimal(t), scale), `${t} @ ${scale}`).toBe(viaText(new Decimal(t), scale));
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: -25, max: 25 }), fc.integer({ min: 0, max: 22 }), (m, e, scale) => {
        const d = new Decimal(`${m}e${e}`);
        const got = toScaled(d, scale);
        expect(got).toBe(viaText(d, scale));
        // Small results are int32 values, as the parse hands them (untagged fields in the order record).
        if (got >= 0 && got <= 0x7fffffff) expect(got | 0).toBe(got);
      }),
      { numRuns: 3000 },
    );
  });

  it('rescale converts scaled integers exactly between scales, with parseScaled\'s codes when it cannot', () => {
    expect(rescale(123, 2, 2)).toBe(123);
    expect(rescale(123, 2, 5)).toBe(123_000);
    expect(rescale(123_000, 5, 2)).toBe(123);
    expect(rescale(123_001, 5, 2)).toBe(-2);
    expect(rescale(2 ** 50, 0, 2)).toBe(-3);
    expect(rescale(1.5, 2, 2)).toBe(-1);
    expect(rescale(-1, 2, 2)).toBe(-1);
    expect(rescale(Number.NaN, 2, 2)).toBe(-1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 8 }), (v, from, to) => {
        // The same value as a string at `from` decimals parses to what rescale gives at `to`.
        expect(rescale(v, from, to)).toBe(parseScaled(fmt(v, from), to));
      }),
    );
    // Dividing anywhere in the safe-integer range: exact, refused exactly when digits would be cut.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: 16 }), fc.boolean(), (x, k, divisible) => {
        const f = 10n ** BigInt(k);
        const v = divisible ? Number((BigInt(x) / f) * f) : x;
        const want = BigInt(v) % f === 0n ? Number(BigInt(v) / f) : -2;
        expect(rescale(v, k, 0)).toBe(want <= 0x7fffffff && want >= 0 ? want | 0 : want);
      }),
    );
    expect(rescale(0, 30, 0)).toBe(0);
    expect(rescale(5, 30, 0)).toBe(-2);
  });

  it('floorDiv is exact floor division of safe integers, up to 2^53', () => {
    const check = (a: number, b: number): void => {
      expect(floorDiv(a, b), `${a} / ${b}`).toBe(Number(BigInt(a) / BigInt(b)));
    };
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), check));
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 20 }), check));
    // Quotients just below an integer, where the double quotient rounds up.
    for (const b of [3, 7, 1000, 999_999_937, 2 ** 26 + 1]) {
      const k = Math.floor(Number.MAX_SAFE_INTEGER / b);
      for (const a of [k * b - 1, k * b, Number.MAX_SAFE_INTEGER, b - 1, 0]) check(a, b);
    }
  });

  it('formats like Decimal#toFixed on both sides of the int32 fast path', () => {
    const check = (v: number, s: number): void => {
      expect(fmt(v, s), `${v} at ${s}`).toBe(new Decimal(v).div(new Decimal(10).pow(s)).toFixed());
    };
    fc.assert(fc.property(fc.integer({ min: -0x7fffffff, max: 0x7fffffff }), fc.integer({ min: 0, max: 10 }), check));
    for (const v of [0x7fffffff, 0x80000000, 1, 10, 1_000_000_000, 2_000_000_001]) for (let s = 0; s <= 11; s++) check(v, s);
  });

  it('formats like Decimal#toFixed between 2^31 and 2^53 (the corrected-quotient path up to 2^52 and past it)', () => {
    const check = (v: number, s: number): void => {
      expect(fmt(v, s), `${v} at ${s}`).toBe(new Decimal(v).div(new Decimal(10).pow(s)).toFixed());
      expect(fmt(-v, s), `${-v} at ${s}`).toBe(new Decimal(-v).div(new Decimal(10).pow(s)).toFixed());
    };
    fc.assert(fc.property(fc.integer({ min: 0x80000000, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 12 }), check), { numRuns: 2000 });
    fc.assert(fc.property(fc.integer({ min: 0x80000000, max: 2 ** 40 }), fc.integer({ min: 1, max: 9 }), check), { numRuns: 2000 });
    // Around the bound, multiples of 10^s and their neighbours (the quotient's correction by one).
    for (let s = 1; s <= 9; s++) {
      const p = 10 ** s;
      for (const base of [2 ** 52, 2 ** 52 - 1, 2 ** 52 + 1, 2 ** 31, Number.MAX_SAFE_INTEGER, 6_123_456_700_000, 4_503_599_627_370_495]) {
        const k = Math.floor(base / p) * p;
        for (const v of [base, k, k - 1, k + 1, k - p + 1, k + p - 1]) if (v > 0x7fffffff && v <= Number.MAX_SAFE_INTEGER) check(v, s);
      }
    }
  });

  it('formats like Decimal#toFixed and round-trips, for numbers and bigints', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), fc.integer({ min: 0, max: 12 }), (v, s) => {
        const want = new Decimal(v).div(new Decimal(10).pow(s)).toFixed();
        expect(fmt(v, s)).toBe(want);
        expect(fmtBig(BigInt(v) * 10n ** 20n, s + 20)).toBe(want);
        expect(fmtBig(BigInt(v), s + 15)).toBe(new Decimal(v).div(new Decimal(10).pow(s + 15)).toFixed());
        if (v >= 0) expect(parseScaled(want, s)).toBe(v);
      }),
    );
  });

  it('multiplies and compares exactly beyond 2^53', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: 1e9 }), fc.constantFrom(1, 10, 1000, 1e8), (a, b, f) => {
        expect(mul3(a, b, f, BigInt(f))).toBe(BigInt(a) * BigInt(b) * BigInt(f));
        const x = BigInt(a) * BigInt(b);
        const y = BigInt(b) * BigInt(a + 1);
        expect(cmpProducts(a, b, b, a + 1)).toBe(x < y ? -1 : x > y ? 1 : 0);
      }),
    );
  });
});
