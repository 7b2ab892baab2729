import { describe, expect, it } from 'vitest';
import { Decimal, ZERO, ceilToStep, floorToStep } from './decimal.js';
import { mulberry32 } from './random.js';

/** The general form, as decimal.js computes it: what the shortcut for steps of 10^-k must equal. */
const general = (v: Decimal, step: Decimal, base: Decimal, up: boolean): Decimal => {
  const q = v.minus(base).div(step);
  return (up ? q.ceil() : q.floor()).mul(step).plus(base);
};

/** A random decimal text: sign, 1 to 40 significant digits, the point anywhere, leading and trailing zeros. */
function randomText(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 40);
  let digits = '';
  for (let i = 0; i < n; i++) digits += String(Math.floor(rnd() * 10));
  const shift = Math.floor(rnd() * 30) - 15;
  const padded = shift < 0 ? '0'.repeat(-shift) + digits : digits + '0'.repeat(shift % 4);
  const point = Math.floor(rnd() * (padded.length + 1));
  const text = point === 0 ? `0.${padded}` : point === padded.length ? padded : `${padded.slice(0, point)}.${padded.slice(point)}`;
  return (rnd() < 0.3 ? '-' : '') + text;
}

const STEPS = ['1', '0.1', '0.01', '0.00001', '0.000001', '0.00000001', '1e-12', '1e-20', '10', '100', '0.05', '0.25', '0.003', '2.5', '0.0000015'];

describe('floorToStep and ceilToStep against the general form (decimal.js)', () => {
  it('agree in value, sign and text over random values and steps, with and without a base', () => {
    const rnd = mulberry32(20261127);
    const steps = STEPS.map((s) => new Decimal(s));
    const bases = [ZERO, new Decimal('3'), new Decimal('0.005')];
    for (let i = 0; i < 20_000; i++) {
      const v = new Decimal(randomText(rnd));
      const step = steps[i % steps.length] as Decimal;
      const base = i % 7 === 0 ? (bases[1 + (i % 2)] as Decimal) : ZERO;
      for (const up of [false, true]) {
        const want = general(v, step, base, up);
        const got = up ? ceilToStep(v, step, base) : floorToStep(v, step, base);
        const tag = `${v.toFixed()} ${up ? 'ceil' : 'floor'} ${step.toFixed()} from ${base.toFixed()}`;
        expect(got.toFixed(), tag).toBe(want.toFixed());
        expect(got.isNeg(), tag).toBe(want.isNeg());
        expect(got.toString(), tag).toBe(want.toString());
      }
    }
  });

  it('agree on the edges: zeros of either sign, exact multiples, 35 and 36 significant digits', () => {
    const cases = ['0', '-0', '-0.001', '0.001', '-0.01', '0.01', '61837.63', '61837.635', '-61837.635', '12345678901234567890123456789012345', '1234567890123456789012345678901234.56', '-9999999999999999999999999999999999.5'];
    for (const t of cases) {
      const v = new Decimal(t);
      for (const s of ['0.01', '1', '0.00001']) {
        const step = new Decimal(s);
        for (const up of [false, true]) {
          const want = general(v, step, ZERO, up);
          const got = up ? ceilToStep(v, step) : floorToStep(v, step);
          expect(got.toString(), `${t} ${s} ${up}`).toBe(want.toString());
          expect(got.isNeg(), `${t} ${s} ${up}`).toBe(want.isNeg());
        }
      }
    }
  });
});
