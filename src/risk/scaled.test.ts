import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { multipleOf, unpack, unpacked } from './scaled.js';

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
