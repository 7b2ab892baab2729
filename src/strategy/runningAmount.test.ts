import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { RunningAmount } from './runningAmount.js';

describe('RunningAmount', () => {
  it('differential: reads as start.plus(x).minus(y)... in value, digits and sign, for short, long and negative-zero starts', () => {
    const arbDigits = (min: number, max: number) =>
      fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max })).map(([lead, ds]) => `${lead}${ds.join('')}`);
    // Exchange-sized amounts (the running sum's integer form), 20-45 digit ones (its Decimal form,
    // and starts beyond the 40-digit precision), zeros of both signs.
    const arbDec = fc
      .tuple(fc.boolean(), fc.oneof({ arbitrary: arbDigits(0, 9), weight: 6 }, { arbitrary: arbDigits(19, 44), weight: 1 }), fc.integer({ min: 0, max: 12 }))
      .map(([neg, digits, scale]) => new Decimal(`${neg ? '-' : ''}${digits}e-${scale}`));
    const arbStart = fc.oneof({ arbitrary: arbDec, weight: 8 }, { arbitrary: fc.constantFrom(new Decimal('-0'), new Decimal(0)), weight: 1 });
    let longStarts = 0;
    fc.assert(
      fc.property(fc.option(arbStart, { nil: undefined }), fc.array(fc.record({ add: fc.boolean(), x: arbDec }), { maxLength: 30 }), (start, steps) => {
        const a = new RunningAmount(start);
        let ref = start ?? new Decimal(0);
        if (start !== undefined && start.sd() > Decimal.precision) longStarts++;
        expect([a.value.toString(), a.value.isNegative()]).toEqual([ref.toString(), ref.isNegative()]);
        for (const s of steps) {
          if (s.add) a.add(s.x);
          else a.sub(s.x);
          ref = s.add ? ref.plus(s.x) : ref.minus(s.x);
          expect([a.value.toString(), a.value.isNegative()]).toEqual([ref.toString(), ref.isNegative()]);
        }
      }),
      { numRuns: 3000, seed: 3 },
    );
    expect(longStarts).toBeGreaterThan(20);
  });
});
