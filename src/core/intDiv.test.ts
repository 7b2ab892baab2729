import { describe, expect, it } from 'vitest';
import { divRound, mulDivRound } from './intDiv.js';

/** floor or ceiling of a x b / d in bigint: the reference. */
function reference(a: bigint, b: bigint, d: bigint, up: boolean): bigint {
  const n = a * b;
  const q = n / d;
  const r = n % d;
  return up ? (r > 0n ? q + 1n : q) : r < 0n ? q - 1n : q;
}

/** A random safe integer of up to `digits` digits, either sign. */
function rnd(rand: () => number, digits: number): number {
  const v = Math.floor(rand() * 10 ** Math.ceil(rand() * digits));
  return rand() < 0.5 ? -v : v;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
}

describe('divRound and mulDivRound', () => {
  it('round toward minus or plus infinity, either sign', () => {
    expect([divRound(7, 2, false), divRound(7, 2, true), divRound(-7, 2, false), divRound(-7, 2, true), divRound(6, 2, true)]).toEqual([3, 4, -4, -3, 3]);
    expect([mulDivRound(123_456_789, 1_000_000_007, 1000, true), mulDivRound(-123_456_789, 1_000_000_007, 1000, false)]).toEqual([123_456_789_864_198, -123_456_789_864_198]); // past 2^53
    expect(mulDivRound(2 ** 53, 1, 1, false)).toBeNaN(); // not a safe integer
    expect(mulDivRound(MAX, MAX, 1, false)).toBeNaN(); // the result is not one
  });

  it('equal bigint arithmetic on 100k random cases, products inside and past 2^53', () => {
    const rand = seeded(20_261_127);
    for (let i = 0; i < 100_000; i++) {
      const a = rnd(rand, 15);
      const b = rnd(rand, 9);
      const d = Math.max(1, Math.abs(rnd(rand, 15)));
      const up = rand() < 0.5;
      const want = reference(BigInt(a), BigInt(b), BigInt(d), up);
      const got = mulDivRound(a, b, d, up);
      if (want > BigInt(MAX) || want < -BigInt(MAX)) expect(got).toBeNaN();
      else expect(got, `${a} x ${b} / ${d} ${up ? 'up' : 'down'}`).toBe(Number(want));
    }
  });
});

const MAX = Number.MAX_SAFE_INTEGER;
