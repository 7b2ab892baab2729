import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { mulberry32 } from '../core/random.js';
import { scaledText } from './binary/format.js';
import { ScaledDecimalCache } from './scaledDecimalCache.js';

/** A Decimal's inner form: digit words, exponent, sign. */
const inner = (d: Decimal): unknown => ({ d: (d as unknown as { d: number[] }).d, e: d.e, s: d.s });

describe('ScaledDecimalCache', () => {
  it("gives the text's Decimal: digits, exponent and sign (differential, random, repeated values, zero, 16 digits)", () => {
    const values = new ScaledDecimalCache();
    const texts = new DecimalTextCache();
    const rand = mulberry32(11);
    const seen: [number, number][] = [[0, 8], [1, 0], [10, 0], [999_999_999_999_999, 3], [1_000_000_000_000_000, 8], [Number.MAX_SAFE_INTEGER, 22]];
    for (let i = 0; i < 40_000; i++) {
      let v: number;
      let scale: number;
      if (rand() < 0.3 || i < 6) [v, scale] = seen[i < 6 ? i : Math.floor(rand() * seen.length)] as [number, number];
      else {
        scale = Math.floor(rand() * 24);
        v = Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 16)));
        if (rand() < 0.4) v = Math.floor(v / 10 ** Math.floor(rand() * 8)) * 10 ** Math.floor(rand() * 8);
        if (!Number.isSafeInteger(v)) continue;
        seen.push([v, scale]);
      }
      const got = values.get(v, scale, texts);
      expect(inner(got)).toEqual(inner(new DecimalTextCache().get(scaledText(v, scale))));
      expect(got.eq(new Decimal(scaledText(v, scale)))).toBe(true);
    }
  });
});
