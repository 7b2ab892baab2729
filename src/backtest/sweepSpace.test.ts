import { describe, expect, it } from 'vitest';
import { gridPoints, gridSchema } from './sweepGrid.js';
import { paramValues, randomPoints } from './sweepSpace.js';

describe('sweep space', () => {
  it('expands ranges in exact decimal steps, inclusive; quoted bounds give decimal strings', () => {
    expect(paramValues({ from: 5, to: 25, step: 5 })).toEqual([5, 10, 15, 20, 25]);
    expect(paramValues({ from: 0.1, to: 0.3, step: 0.1 })).toEqual([0.1, 0.2, 0.3]);
    expect(paramValues({ from: '0.001', to: '0.003', step: '0.001' })).toEqual(['0.001', '0.002', '0.003']);
    expect(paramValues({ from: 1, to: 2, step: 0.4 })).toEqual([1, 1.4, 1.8]);
    expect(paramValues([3, 'x'])).toEqual([3, 'x']);
    expect(() => paramValues({ from: 0, to: 1, step: 0.00001 })).toThrow(/^100001 values, more than 10000$/);
  });

  it('a grid mixes lists and ranges in a fixed order', () => {
    const g = gridSchema.parse({ params: { a: { from: 1, to: 2, step: 1 }, b: ['x', 'y'] } });
    expect(gridPoints(g)).toEqual([{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }]);
  });

  it('random search draws distinct points, the same for the same seed, all of them when asked for more', () => {
    const values = [['a', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], ['b', ['x', 'y', 'z']]] as const;
    const one = randomPoints(values, 8, 7);
    expect(one).toHaveLength(8);
    expect(new Set(one.map((p) => JSON.stringify(p))).size).toBe(8);
    expect(randomPoints(values, 8, 7)).toEqual(one);
    expect(randomPoints(values, 8, 8)).not.toEqual(one);
    expect(one.every((p) => Object.keys(p).join() === 'a,b')).toBe(true);
    expect(new Set(randomPoints(values, 100, 1).map((p) => JSON.stringify(p))).size).toBe(30);
  });
});
