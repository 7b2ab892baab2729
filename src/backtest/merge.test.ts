import { describe, expect, it } from 'vitest';
import { mergeByTime } from './merge.js';

async function* gen<T>(xs: T[]): AsyncGenerator<T> {
  for (const x of xs) yield x;
}
async function collect<T>(g: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
}
type It = { s: string; t?: number };

describe('mergeByTime', () => {
  it('merges in time order with ties to the earlier source', async () => {
    const a = gen<It>([{ s: 'a1', t: 1 }, { s: 'a2', t: 5 }, { s: 'a3', t: 9 }]);
    const b = gen<It>([{ s: 'b1', t: 1 }, { s: 'b2', t: 4 }, { s: 'b3', t: 9 }, { s: 'b4', t: 20 }]);
    const out = await collect(mergeByTime([a, b], (x) => x.t, () => 0));
    expect(out.map((x) => `${x.item.s}@${x.t}`)).toEqual(['a1@1', 'b1@1', 'b2@4', 'a2@5', 'a3@9', 'b3@9', 'b4@20']);
  });

  it('clamps a source whose times step back, and gives timeless items the previous time', async () => {
    const a = gen<It>([{ s: 'snap' }, { s: 'a1', t: 10 }, { s: 'a2', t: 8 }, { s: 'snap2' }, { s: 'a3', t: 12 }]);
    const b = gen<It>([{ s: 'b1', t: 9 }]);
    const out = await collect(mergeByTime([a, b], (x) => x.t, () => 3));
    expect(out.map((x) => `${x.item.s}@${x.t}`)).toEqual(['snap@3', 'b1@9', 'a1@10', 'a2@10', 'snap2@10', 'a3@12']);
    for (let i = 1; i < out.length; i++) expect(out[i]!.t).toBeGreaterThanOrEqual(out[i - 1]!.t);
  });

  it('handles empty sources', async () => {
    expect(await collect(mergeByTime<It>([gen([]), gen([{ s: 'x', t: 1 }])], (x) => x.t, () => 0))).toHaveLength(1);
  });
});
