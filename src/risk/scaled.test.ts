import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import { ceilProduct, floorProduct, floorSum3, multipleOf, unpack, unpacked } from './scaled.js';

function read(x: Decimal): { exact: boolean; value: string } {
  const exact = unpack(x);
  return { exact, value: new Decimal(unpacked.m).mul(new Decimal(10).pow(unpacked.e)).toFixed() };
}

describe('unpack', () => {
  it('reads one-word, multi-word, negative and zero values exactly', () => {
    for (const s of ['0', '-0', '5', '0.5', '-0.5', '1000000', '1e9', '2000.12', '-1234.56', '0.00000001', '1000123456.789', '123456789012345']) {
      expect(read(new Decimal(s)), s).toEqual({ exact: true, value: new Decimal(s).toFixed() });
    }
  });

  it('truncates toward zero past a safe integer and says so', () => {
    const x = new Decimal('1.23456789012345678901');
    const r = read(x);
    expect(r.exact).toBe(false);
    expect(new Decimal(r.value).lt(x)).toBe(true);
    expect(x.minus(r.value).lt(new Decimal(10).pow(unpacked.e))).toBe(true);
  });
});

describe('multipleOf', () => {
  it('agrees with exact BigInt remainders near 2^52, for negatives and on both sides of the int32 range', () => {
    const cases: [number, number][] = [
      [0, 7], [21, 7], [22, 7], [-21, 7], [-22, 7], [2 ** 31 + 1, 3], [2 ** 40 * 3, 3], [2 ** 40 * 3 + 1, 3],
      [2 ** 52 - 1, 3], [2 ** 52 - 2, 3], [2 ** 52 - 3, 3], [2 ** 52 - 1, 2 ** 26 - 1], [4503599627370400, 100], [4503599627370401, 100],
      [Number.MAX_SAFE_INTEGER, 3], [Number.MAX_SAFE_INTEGER - 1, 10], [-(2 ** 52) + 1, 10 ** 7], [999999999999999, 10 ** 15],
    ];
    for (let k = 1; k < 2000; k++) cases.push([2 ** 52 - k, 1 + (k % 97)], [k * 10 ** 9 + (k % 3), 10 ** 9]);
    for (const [a, b] of cases) expect(multipleOf(a, b), `${a} % ${b}`).toBe(BigInt(a) % BigInt(b) === 0n);
  });
});

/** floor(num / 10^k) in BigInt for any sign (BigInt division truncates toward zero). */
function bigFloor(num: bigint, k: number): bigint {
  const d = 10n ** BigInt(k);
  const q = num / d;
  return num < 0n && q * d !== num ? q - 1n : q;
}

/** floor(v * 10^scale) for v = m * 10^e (m a bigint), exactly. */
function bigScaledFloor(m: bigint, e: number, scale: number): bigint {
  const s = e + scale;
  return s >= 0 ? m * 10n ** BigInt(s) : bigFloor(m, -s);
}

/** What a grid bound must be: the exact floor, or +-Infinity past 2^52 (NaN allowed: "cannot tell"). */
function expectBound(got: number, exact: bigint, what: string): void {
  if (Number.isNaN(got)) return;
  if (exact >= 2n ** 52n) expect(got, what).toBe(Infinity);
  else if (exact <= -(2n ** 52n)) expect(got, what).toBe(-Infinity);
  // -0 and 0 are the same bound.
  else expect(got === 0 ? 0 : got, what).toBe(Number(exact));
}

describe('grid bounds', () => {
  const rnd = mulberry32(99);
  const mant = (): number => {
    const r = rnd();
    const digits = 1 + Math.floor(rnd() * 16);
    const v = Math.floor(rnd() * 10 ** digits);
    const m = Math.min(v, Number.MAX_SAFE_INTEGER);
    return r < 0.5 ? m : -m;
  };
  const exp = (): number => Math.floor(rnd() * 31) - 20;

  it('floorProduct and ceilProduct are the exact floor and ceil on the grid, or NaN', () => {
    let exactCount = 0;
    for (let n = 0; n < 100_000; n++) {
      const m1 = mant();
      const m2 = rnd() < 0.3 ? 1 : mant();
      const e1 = exp();
      const e2 = rnd() < 0.3 ? 0 : exp();
      const scale = Math.floor(rnd() * 13);
      const p = BigInt(m1) * BigInt(m2);
      const f = floorProduct(m1, e1, m2, e2, scale);
      const c = ceilProduct(m1, e1, m2, e2, scale);
      expectBound(f, bigScaledFloor(p, e1 + e2, scale), `floor ${m1}e${e1} * ${m2}e${e2} @${scale}`);
      expectBound(c, -bigScaledFloor(-p, e1 + e2, scale), `ceil ${m1}e${e1} * ${m2}e${e2} @${scale}`);
      if (!Number.isNaN(f)) exactCount++;
    }
    // The number path must decide most cases, or the checker gains nothing from it.
    expect(exactCount).toBeGreaterThan(50_000);
  });

  it('floorSum3 is the exact floor of the sum on the grid, or NaN', () => {
    let exactCount = 0;
    for (let n = 0; n < 100_000; n++) {
      const t = [mant(), exp(), rnd() < 0.2 ? 0 : mant(), exp(), rnd() < 0.4 ? 0 : mant(), exp()] as const;
      const scale = Math.floor(rnd() * 13);
      const e0 = Math.min(t[1], t[3], t[5]);
      const sum = BigInt(t[0]) * 10n ** BigInt(t[1] - e0) + BigInt(t[2]) * 10n ** BigInt(t[3] - e0) + BigInt(t[4]) * 10n ** BigInt(t[5] - e0);
      const got = floorSum3(t[0], t[1], t[2], t[3], t[4], t[5], scale);
      if (Number.isNaN(got)) continue;
      exactCount++;
      expect(got, `${t.join(',')} @${scale}`).toBe(Number(bigScaledFloor(sum, e0, scale)));
    }
    expect(exactCount).toBeGreaterThan(20_000);
  });
});
