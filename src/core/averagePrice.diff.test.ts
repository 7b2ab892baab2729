/**
 * Differential test: the integer-form average-price window against the plain decimal.js reference
 * on seeded random trade streams (mixed decimals, values the integer form cannot hold, zero and
 * negative quantities, bursts in one millisecond, times out of order, long gaps, lengths first
 * asked for late, queries at any time). Every answer must be the same value printed the same
 * way, be the same object exactly when the reference repeats its object, and the held counts agree.
 */
import { describe, expect, it } from 'vitest';
import { AveragePriceWindow } from './averagePrice.js';
import { Decimal } from './decimal.js';
import { AveragePriceWindowReference } from './reference/averagePriceReference.js';

/** Seeded xorshift32 in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** A random decimal: mostly exchange-like, sometimes too long or too small/large for the integer form. */
function randomDecimal(r: () => number, sideRate: number): Decimal {
  const x = r();
  if (x < sideRate) {
    // 17-30 significant digits, or an exponent past the integer form's bound.
    if (r() < 0.5) return new Decimal(`${digitText(r, 17 + Math.floor(r() * 14))}e-${Math.floor(r() * 12)}`);
    return new Decimal(`${digitText(r, 1 + Math.floor(r() * 6))}e${r() < 0.5 ? -(41 + Math.floor(r() * 20)) : 35 + Math.floor(r() * 10)}`);
  }
  return new Decimal(`${digitText(r, 1 + Math.floor(r() * 15))}e-${Math.floor(r() * 13)}`);
}

function digitText(r: () => number, n: number): string {
  let s = String(1 + Math.floor(r() * 9));
  for (let i = 1; i < n; i++) s += String(Math.floor(r() * 10));
  return s;
}

/** Next trade time: bursts in one ms, small steps, steps back, gaps of minutes and of an hour. */
function nextTime(r: () => number, t: number, gaps: boolean): number {
  const x = gaps ? r() : r() * 0.995;
  if (x < 0.55) return t;
  if (x < 0.93) return t + 1 + Math.floor(r() * 50);
  if (x < 0.995) return t - Math.floor(r() * 1000);
  if (x < 0.9995) return t + Math.floor(r() * 3 * 60_000);
  return t + Math.floor(r() * 3_600_000);
}

const LENGTHS = [0, 1, 2, 3, 5, 7, 10];

function run(seed: number, trades: number, mins: number[], sideRate: number, gaps = true): { answers: number; differs: string[]; held: number } {
  const r = rng(seed);
  const fast = new AveragePriceWindow(mins);
  const ref = new AveragePriceWindowReference(mins);
  const prev = new Map<number, [Decimal | undefined, Decimal | undefined]>();
  const differs: string[] = [];
  let answers = 0;
  let t = 1_700_000_000_000;
  const ask = (m: number, now: number): void => {
    const a = fast.average(m, now);
    const b = ref.average(m, now);
    const [pa, pb] = prev.get(m) ?? [undefined, undefined];
    answers++;
    const same = a === undefined ? b === undefined : b !== undefined && a.eq(b) && a.toString() === b.toString();
    if (!same || (a === pa) !== (b === pb) || fast.size !== ref.size) differs.push(`seed ${seed} mins ${m} now ${now}: ${a?.toString()} vs ${b?.toString()} (size ${fast.size} vs ${ref.size})`);
    prev.set(m, [a, b]);
  };
  for (let n = 0; n < trades && differs.length < 5; n++) {
    const time = nextTime(r, t, gaps);
    t = Math.max(t, time);
    const price = randomDecimal(r, sideRate);
    let qty = randomDecimal(r, sideRate);
    const z = r();
    if (z < 0.01) qty = new Decimal(0);
    else if (z < 0.013) qty = qty.neg();
    fast.add(time, price, qty);
    ref.add(time, price, qty);
    if (r() < 0.3) {
      const x = r();
      const now = x < 0.6 ? ref.lastTime : x < 0.9 ? ref.lastTime + Math.floor(r() * 12 * 60_000) : ref.lastTime - Math.floor(r() * 60_000);
      ask(LENGTHS[Math.floor(r() * LENGTHS.length)] as number, now);
    }
  }
  return { answers, differs, held: fast.size };
}

describe('AveragePriceWindow vs the decimal.js reference', () => {
  it('answers identically on random streams (several lengths, late lengths, side values)', { timeout: 120_000 }, () => {
    let answers = 0;
    const cases: [number[], number][] = [
      [[5], 0],
      [[1, 3], 0.02],
      [[5, 1], 0.2],
      [[], 0.02],
      [[2], 1],
    ];
    for (let seed = 1; seed <= 10; seed++) {
      const [mins, sideRate] = cases[seed % cases.length] as [number[], number];
      const res = run(seed, 8_000, mins, sideRate);
      expect(res.differs).toEqual([]);
      answers += res.answers;
    }
    // The comparison means something only if many answers were compared.
    expect(answers).toBeGreaterThan(20_000);
  });

  it('holds the same trades through compaction on a long dense stream', { timeout: 120_000 }, () => {
    // No gaps: ~6,000 trades a minute, so expiry drops batches of them and compaction shifts the arrays.
    const res = run(99, 30_000, [1], 0.01, false);
    expect(res.differs).toEqual([]);
    expect(res.held).toBeLessThan(15_000);
  });

  it('refuses a price or quantity that is not finite, naming it', () => {
    const w = new AveragePriceWindow([5]);
    expect(() => w.add(0, new Decimal('NaN'), new Decimal(1))).toThrow(/price NaN/);
    expect(() => w.add(0, new Decimal(1), new Decimal('Infinity'))).toThrow(/qty Infinity/);
  });
});
