import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { dec } from './symbol.js';

/** The plain definition dec() must match digit for digit: the integer divided by 10^scale. */
const byDivision = (v: number | bigint, scale: number): Decimal => new Decimal(v.toString()).div(new Decimal(10).pow(scale));

describe('dec', () => {
  it('matches division by the power of ten for signs, zero, short and long digit strings', () => {
    const values: (number | bigint)[] = [0, 1, -1, 5, -5, 10, 100, 12345, -12345, 999_999, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    values.push(10n ** 39n + 7n, -(10n ** 39n) - 3n, 10n ** 40n - 1n, 10n ** 40n + 1n, 12345678901234567890123456789012345678901234567n);
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 300; i++) values.push(Math.floor(rnd() * 10 ** Math.floor(rnd() * 16)) * (rnd() < 0.3 ? -1 : 1));
    for (const v of values) {
      for (const scale of [0, 1, 2, 5, 8, 13, 20, 30]) {
        const got = dec(v, scale);
        const want = byDivision(v, scale);
        expect(got.toFixed(), `dec(${v}, ${scale})`).toBe(want.toFixed());
        expect(got.toString()).toBe(want.toString());
        expect(got.isNegative()).toBe(want.isNegative());
      }
    }
  });

  it('rounds integers longer than the precision as division does', () => {
    const v = 10n ** 45n + 123n;
    expect(dec(v, 3).toFixed()).toBe(byDivision(v, 3).toFixed());
    expect(dec(v, 3).toFixed()).not.toBe(`${(v / 1000n).toString()}.123`);
  });
});
