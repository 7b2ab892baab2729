import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { DecimalSum, decimalOf } from './decimalSum.js';

// Counts decimal.js additions, to tell the integer form (none) from the Decimal fallback.
type Op = (this: Decimal, y: Decimal) => Decimal;
const proto = Object.getPrototypeOf(new Decimal(0)) as { plus: Op; minus: Op };
const { plus, minus } = proto;
let decimalOps = 0;
proto.plus = function (this: Decimal, y: Decimal) {
  decimalOps++;
  return plus.call(this, y);
};
proto.minus = function (this: Decimal, y: Decimal) {
  decimalOps++;
  return minus.call(this, y);
};
afterAll(() => {
  proto.plus = plus;
  proto.minus = minus;
});

describe('DecimalSum', () => {
  it('starts at 0 and adds exchange-like decimals exactly', () => {
    const s = new DecimalSum();
    expect(s.value.toString()).toBe('0');
    s.add(new Decimal('6481.473'));
    s.add(new Decimal('6.481473'));
    s.sub(new Decimal('0.000001'));
    expect(s.value.toString()).toBe('6487.954472');
    s.sub(new Decimal('6487.954472'));
    expect(s.value.toString()).toBe('0');
  });

  it('leaves the integer form for a product beyond 2^53 even when the sum would come back in range', () => {
    // 3 x 3002399751580331 = 2^53 + 1, which no double holds: the sum must still be exact.
    const s = new DecimalSum();
    s.add(new Decimal('-9007199254740000'));
    s.addProduct(new Decimal(3), new Decimal('3002399751580331'));
    expect(s.value.toString()).toBe('993');
    expect(s.toNumber()).toBe(993);
  });

  it('differential: equals adding one by one with plus/minus from 0, in the integer form and after leaving it', () => {
    // Short decimals (the integer form holds them) and long or huge ones (it cannot), with
    // exponents far apart so rescaling overflows too.
    const arbDec = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 24 }), fc.integer({ min: -20, max: 20 }))
      .map(([neg, lead, ds, e]) => new Decimal(`${neg ? '-' : ''}${lead}${ds.join('')}e${e - ds.length}`));
    const arbShort = fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => new Decimal(m).div(10 ** k));
    // Mantissas around 2^53, so sums and rescaling overflow the safe range (fallback) or only just not.
    const arbBig = fc.tuple(fc.bigInt({ min: 10n ** 14n, max: 10n ** 16n - 1n }), fc.integer({ min: 0, max: 8 }), fc.boolean()).map(([m, k, neg]) => new Decimal(`${neg ? '-' : ''}${m}e-${k}`));
    const arbStep = fc.record({ sub: fc.boolean(), x: fc.oneof({ arbitrary: arbShort, weight: 8 }, { arbitrary: arbBig, weight: 2 }, { arbitrary: arbDec, weight: 1 }) });
    let integerSteps = 0;
    let decimalSteps = 0;
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 60 }), (steps) => {
        const s = new DecimalSum();
        let ref = new Decimal(0);
        for (const { sub, x } of steps) {
          const before = decimalOps;
          if (sub) s.sub(x);
          else s.add(x);
          if (decimalOps === before) integerSteps++;
          else decimalSteps++;
          ref = sub ? minus.call(ref, x) : plus.call(ref, x);
          const v = s.value;
          expect(v.toString()).toBe(ref.toString());
          expect(v.toFixed()).toBe(ref.toFixed());
        }
      }),
      { numRuns: 3_000 },
    );
    expect(integerSteps).toBeGreaterThan(5_000);
    expect(decimalSteps).toBeGreaterThan(1_000);
  });

  it('differential: sums of sums and of products, and the nearest double, equal the plain Decimal loop on both forms', () => {
    const arbDec = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 20 }), fc.integer({ min: -12, max: 12 }))
      .map(([neg, lead, ds, e]) => new Decimal(`${neg ? '-' : ''}${lead}${ds.join('')}e${e - ds.length}`));
    const arbShort = fc.tuple(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => new Decimal(m).div(10 ** k));
    const arbX = fc.oneof({ arbitrary: arbShort, weight: 6 }, { arbitrary: arbDec, weight: 1 });
    const arbStep = fc.oneof(
      fc.record({ op: fc.constant('add' as const), sign: fc.constantFrom(1 as const, -1 as const), x: arbX, y: arbX }),
      fc.record({ op: fc.constant('product' as const), sign: fc.constantFrom(1 as const, -1 as const), x: arbX, y: arbX }),
      // Another sum of two terms (integer or Decimal form).
      fc.record({ op: fc.constant('sum' as const), sign: fc.constantFrom(1 as const, -1 as const), x: arbX, y: arbX }),
    );
    let integerEnds = 0;
    let decimalEnds = 0;
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 12 }), (steps) => {
        const s = new DecimalSum();
        s.add(new Decimal(1)); // reset() must really clear this
        s.reset();
        let ref = new Decimal(0);
        const signed = (v: Decimal, sign: 1 | -1, y: Decimal) => (sign > 0 ? plus.call(v, y) : minus.call(v, y));
        for (const st of steps) {
          if (st.op === 'add') {
            if (st.sign > 0) s.add(st.x);
            else s.sub(st.x);
            ref = signed(ref, st.sign, st.x);
          } else if (st.op === 'product') {
            s.addProduct(st.x, st.y, st.sign);
            ref = signed(ref, st.sign, st.x.mul(st.y));
          } else {
            const o = new DecimalSum();
            o.add(st.x);
            o.add(st.y);
            s.addSum(o, st.sign);
            ref = signed(ref, st.sign, plus.call(plus.call(new Decimal(0), st.x), st.y));
          }
          expect(s.value.toString()).toBe(ref.toString());
          expect(Object.is(s.toNumber(), ref.toNumber())).toBe(true);
        }
        if (s.isInteger) integerEnds++;
        else decimalEnds++;
      }),
      { numRuns: 3_000 },
    );
    expect(integerEnds).toBeGreaterThan(500);
    expect(decimalEnds).toBeGreaterThan(500);
  });

  it('differential: decimalOf(m, k) is the parsed Decimal of `${m}e${k}` (sign, exponent and digit words)', () => {
    const arbM = fc.oneof(
      fc.integer({ min: -10_000_000, max: 10_000_000 }),
      fc.bigInt({ min: -(2n ** 53n - 1n), max: 2n ** 53n - 1n }).map(Number),
      // Trailing zeros (stripped into the exponent) and word-sized values.
      fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 10 })).map(([m, z]) => m * 10 ** z),
    );
    fc.assert(
      fc.property(arbM.filter((m) => m !== 0 && Number.isSafeInteger(m)), fc.integer({ min: -60, max: 60 }), (m, k) => {
        const got = decimalOf(m, k);
        const want = new Decimal(`${m}e${k}`);
        expect([got.s, got.e, got.d]).toEqual([want.s, want.e, want.d]);
        expect(got.toString()).toBe(want.toString());
        expect(got.plus('0.5').toString()).toBe(want.plus('0.5').toString());
      }),
      { numRuns: 20_000 },
    );
  });
});
