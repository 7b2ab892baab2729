import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random.js';
import { goodCount, pointAt, TpeSampler, type TpeSpace, type TpeTrial } from './tpe.js';

const space: TpeSpace = [
  ['x', Array.from({ length: 40 }, (_, i) => i)],
  ['y', Array.from({ length: 40 }, (_, i) => i * 0.5)],
  ['kind', ['a', 'b', 'c']],
];

/** A smooth peak at x = 29, y = 6.5 and kind b: higher is better. */
function f(p: Record<string, unknown>): number {
  const x = p.x as number;
  const y = p.y as number;
  return -((x - 29) ** 2) / 100 - (y - 6.5) ** 2 / 25 - (p.kind === 'b' ? 0 : 1);
}

function search(seed: number, trials: number): { best: number; points: string[] } {
  const s = new TpeSampler(space, { seed });
  const history: TpeTrial[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < trials; i++) {
    const at = s.suggest(history, taken) as number[];
    taken.add(at.join(','));
    history.push({ at, value: f(pointAt(space, at)) });
  }
  return { best: Math.max(...history.map((h) => h.value as number)), points: history.map((h) => h.at.join(',')) };
}

function random(seed: number, trials: number): number {
  const rnd = mulberry32(seed);
  let best = -Infinity;
  for (let i = 0; i < trials; i++) best = Math.max(best, f(pointAt(space, space.map(([, vs]) => Math.floor(rnd() * vs.length)))));
  return best;
}

describe('TPE', () => {
  it('is deterministic for a seed and never repeats a point', () => {
    const a = search(7, 40);
    expect(search(7, 40).points).toEqual(a.points);
    expect(new Set(a.points).size).toBe(40);
    expect(search(8, 40).points).not.toEqual(a.points);
  });

  it('finds better points than uniform random draws on the same budget (mean over 10 seeds)', () => {
    const seeds = Array.from({ length: 10 }, (_, i) => i + 1);
    const tpe = seeds.reduce((a, s) => a + search(s, 50).best, 0) / seeds.length;
    const rnd = seeds.reduce((a, s) => a + random(s, 50), 0) / seeds.length;
    expect(tpe).toBeGreaterThan(rnd);
    expect(tpe).toBeGreaterThan(-0.3);
  });

  it('gamma: a tenth of the trials, at most 25; every point taken ends the search', () => {
    expect([1, 10, 11, 300].map(goodCount)).toEqual([1, 1, 2, 25]);
    const tiny: TpeSpace = [['a', [1, 2]]];
    const s = new TpeSampler(tiny, { seed: 1 });
    const taken = new Set<string>();
    const got = [s.suggest([], taken), s.suggest([], taken.add('0')), s.suggest([], taken.add('1'))];
    expect(got).toEqual([expect.any(Array), [1], undefined]);
  });
});
