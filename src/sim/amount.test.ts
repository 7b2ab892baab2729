import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random.js';
import { Bal, addSafe, below } from './amount.js';
import { MAX_SAFE } from './scaled.js';

const TWO53 = 2n ** 53n;

describe('addSafe', () => {
  it('adds exactly inside the safe range and refuses at its edges', () => {
    expect(addSafe(MAX_SAFE - 1, 1)).toBe(MAX_SAFE);
    expect(addSafe(MAX_SAFE, 1)).toBeNaN();
    expect(addSafe(-MAX_SAFE, -1)).toBeNaN();
    expect(addSafe(MAX_SAFE, -MAX_SAFE)).toBe(0);
    // The double sum rounds to 2^53 here; it must be refused, not taken.
    expect(addSafe(MAX_SAFE, 2)).toBeNaN();
  });
});

describe('below', () => {
  it('compares big + num with a safe integer exactly, with and without the shortcut', () => {
    const cases: [bigint, number, number][] = [
      [0n, 5, 6],
      [0n, 6, 6],
      [TWO53 * 4n, -MAX_SAFE, MAX_SAFE],
      [TWO53 * 2n + 1n, -MAX_SAFE, MAX_SAFE],
      [TWO53 * 2n, -MAX_SAFE, MAX_SAFE],
      [-TWO53 * 4n, MAX_SAFE, -MAX_SAFE],
      [-TWO53 * 2n, MAX_SAFE, -MAX_SAFE],
      [TWO53, -3, MAX_SAFE],
      [-1n, 0, 0],
    ];
    for (const [big, num, x] of cases) expect(below(big, num, x), `${big} + ${num} < ${x}`).toBe(big + BigInt(num) < BigInt(x));
  });
});

describe('Bal', () => {
  it('agrees with plain bigints over random updates around 2^53 and on a balance beyond it', () => {
    const r = mulberry32(11);
    for (const start of [0n, 10n ** 23n, TWO53 - 5n, -(10n ** 20n)]) {
      const b = new Bal();
      b.free = start;
      let free = start;
      let locked = 0n;
      for (let i = 0; i < 20_000; i++) {
        // Deltas from tiny to near 2^53 in either direction, so the number part both stays and overflows.
        const mag = r() < 0.1 ? MAX_SAFE - Math.floor(r() * 1000) : Math.floor(r() * 10 ** Math.floor(r() * 16));
        const d = r() < 0.5 ? -mag : mag;
        const x = r();
        if (x < 0.4) {
          b.addFree(d);
          free += BigInt(d);
        } else if (x < 0.8) {
          b.addLocked(d);
          locked += BigInt(d);
        } else if (x < 0.98) {
          const y = Math.floor(r() * MAX_SAFE) * (r() < 0.5 ? -1 : 1);
          expect(b.freeBelow(y)).toBe(free < BigInt(y));
        } else {
          // A bigint write (the slow paths) in between number updates.
          const v = BigInt(d) * 1000n;
          b.locked = v;
          locked = v;
        }
        if (i % 97 === 0) expect([b.free, b.locked]).toEqual([free, locked]);
      }
      expect([b.free, b.locked]).toEqual([free, locked]);
    }
  });
});
