import { describe, expect, it } from 'vitest';
import type { StrategyMetrics } from './result.js';
import type { PointOutcome } from './sweepPoints.js';
import { tpeSearch, type TpeHooks } from './sweepTpe.js';
import type { TpeSpace } from './tpe.js';
import { gridSchema } from './sweepGrid.js';

const space: TpeSpace = [
  ['fast', Array.from({ length: 20 }, (_, i) => i + 1)],
  ['slow', Array.from({ length: 20 }, (_, i) => i + 1)],
];

function hooks(value: (p: Record<string, unknown>) => number, batches: number[][] = []): TpeHooks {
  return {
    refusal: (p) => ((p.fast as number) >= (p.slow as number) ? 'fast must be smaller than slow' : undefined),
    runPoints: async (ps) => {
      batches.push(ps.map((p) => value(p)));
      return ps.map((params): PointOutcome => ({ params, metrics: { netPnl: String(value(params)) } as unknown as StrategyMetrics, ranBy: [] }));
    },
    valueOf: (o) => Number(o.metrics?.netPnl),
  };
}

describe('TPE sweep search', () => {
  it('runs `trials` accepted points in batches; refused points are listed, not counted', async () => {
    const batches: number[][] = [];
    const r = await tpeSearch(space, { trials: 30, seed: 3, batch: 4 }, hooks((p) => -Math.abs((p.fast as number) - 5) - Math.abs((p.slow as number) - 15), batches));
    expect(r.points).toHaveLength(30);
    expect(batches.map((b) => b.length)).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
    expect(r.points.every((p) => (p.fast as number) < (p.slow as number))).toBe(true);
    expect(r.skipped.length).toBeGreaterThan(0);
    expect(r.skipped[0]?.reason).toBe('fast must be smaller than slow');
    expect(r.note).toEqual({ method: 'tpe', seed: 3, batch: 4, trials: 30 });
    const again = await tpeSearch(space, { trials: 30, seed: 3, batch: 4 }, hooks((p) => -Math.abs((p.fast as number) - 5) - Math.abs((p.slow as number) - 15)));
    expect(again.points).toEqual(r.points);
  });

  it('patience stops after that many trials in a row without a better point', async () => {
    // Nothing ever beats the first point: the search stops after 1 + patience trials (a batch of 1).
    const r = await tpeSearch(space, { trials: 100, seed: 1, batch: 1, patience: 6 }, hooks(() => 0));
    expect(r.points).toHaveLength(7);
    expect(r.note.stopped).toBe('6 trials in a row without improvement (patience), after trial 7');
    const none = await tpeSearch(space, { trials: 20, seed: 1, batch: 1 }, hooks(() => 0));
    expect(none.points).toHaveLength(20);
    expect(none.note.stopped).toBeUndefined();
  });

  it('says so when patience ran out with no trial having a value of the objective (a calmar on days of data)', async () => {
    const unavailable = { ...hooks(() => 0), valueOf: () => null };
    const r = await tpeSearch(space, { trials: 100, seed: 1, batch: 1, patience: 6 }, unavailable);
    expect(r.points).toHaveLength(6);
    expect(r.note.stopped).toBe('6 trials in a row without improvement (patience), after trial 6; no trial had a value of the objective (unavailable, or under minTrades)');
  });

  it('stops when the grid is exhausted', async () => {
    const small: TpeSpace = [['fast', [1, 2]], ['slow', [3, 4]]];
    const r = await tpeSearch(small, { trials: 10, seed: 1, batch: 3 }, hooks(() => 1));
    expect(r.points).toHaveLength(4);
    expect(r.note.stopped).toBe('every point of the grid was tried (4)');
  });
});

describe('grid settings of search: tpe', () => {
  const issue = (g: Record<string, unknown>): string | undefined => gridSchema.safeParse({ params: { a: [1, 2] }, ...g }).error?.issues[0]?.message;
  it('needs trials; its settings belong to it; it does not run a walk-forward', () => {
    expect(issue({ search: 'tpe', trials: 10, patience: 3, batch: 2, startup: 4 })).toBeUndefined();
    expect(issue({ search: 'tpe' })).toBe('search: tpe needs trials');
    expect(issue({ search: 'random', samples: 2, patience: 3 })).toMatch(/settings of search: tpe/);
    expect(issue({ search: 'tpe', trials: 5, walkForward: { start: '2024-08-03T00:00:00Z', outOfSample: '1d', windows: 1, inSample: '1d' } })).toMatch(/^walkForward ranks every point in each window/);
  });
});
