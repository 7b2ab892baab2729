import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { unpackDecimal, UNPACKED } from '../core/decimalNumber.js';
import { HeldSums } from './heldSums.js';

describe('HeldSums', () => {
  it('differential: equals the plus loop over the current terms, in the running integer form and after a rebuild', () => {
    // Short non-negative amounts (kept running), long ones (beyond the integer form), negative
    // ones and negative zeros (both force a rebuild), on two keys; terms come and go at random.
    const arbShort = fc.tuple(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 10 })).map(([m, k]) => new Decimal(m).div(10 ** k));
    const arbLong = fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 45 }), fc.integer({ min: -30, max: 10 }))
      .map(([lead, ds, e]) => new Decimal(`${lead}${ds.join('')}e${e - ds.length}`));
    const arbNeg = fc.oneof(arbShort.map((x) => x.neg()), fc.constant(new Decimal('-0')));
    const arbTerm = fc.oneof({ arbitrary: arbShort, weight: 12 }, { arbitrary: arbLong, weight: 1 }, { arbitrary: arbNeg, weight: 1 });
    // A short term goes in (and out) as a Decimal or as m x 10^k (addUnits/removeUnits), either way.
    const arbStep = fc.record({ add: fc.boolean(), key: fc.constantFrom('a', 'b'), x: arbTerm, pick: fc.nat(), read: fc.boolean(), units: fc.boolean() });
    let running = 0;
    let rebuilt = 0;
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 80 }), (steps) => {
        const sums = new HeldSums();
        const live: { key: string; x: Decimal }[] = [];
        const terms = (key: string): Decimal[] => live.filter((t) => t.key === key).map((t) => t.x);
        const check = (key: string): void => {
          let rebuiltNow = false;
          const got = sums.sum(key, () => {
            rebuiltNow = true;
            return terms(key);
          });
          if (rebuiltNow) rebuilt++;
          else running++;
          const want = terms(key).reduce((acc, x) => acc.plus(x), new Decimal(0));
          expect(got.toString()).toBe(want.toString());
          expect(got.isNegative()).toBe(want.isNegative());
        };
        for (const s of steps) {
          const asUnits = (x: Decimal): boolean => s.units && unpackDecimal(x) && !x.isNegative();
          if (s.add || live.length === 0) {
            live.push({ key: s.key, x: s.x });
            if (asUnits(s.x)) sums.addUnits(s.key, UNPACKED.m, UNPACKED.k);
            else sums.add(s.key, s.x);
          } else {
            const [t] = live.splice(s.pick % live.length, 1);
            if (t !== undefined) {
              if (asUnits(t.x)) sums.removeUnits(t.key, UNPACKED.m, UNPACKED.k);
              else sums.remove(t.key, t.x);
            }
          }
          if (s.read) check(s.key);
        }
        check('a');
        check('b');
      }),
      { numRuns: 400, seed: 7 },
    );
    // Both sides of the fast path were exercised.
    expect(running).toBeGreaterThan(1000);
    expect(rebuilt).toBeGreaterThan(100);
  });

  it('keeps an exact sum of exchange amounts without rebuilding', () => {
    const sums = new HeldSums();
    const never = (): Decimal[] => {
      throw new Error('rebuilt');
    };
    sums.add('USDT', new Decimal('61.23456'));
    sums.add('USDT', new Decimal('0.001'));
    sums.add('USDT', new Decimal('120000.5'));
    sums.remove('USDT', new Decimal('0.001'));
    expect(sums.sum('USDT', never).toString()).toBe('120061.73456');
    expect(sums.sum('BTC', never).toString()).toBe('0');
  });
});
