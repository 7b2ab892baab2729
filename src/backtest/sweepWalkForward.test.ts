import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BacktestConfig } from './config.js';
import { gridSchema, loadGrid } from './sweepGrid.js';
import { stitch, walkForwardSpans, type WalkForwardWindow } from './sweepWalkForward.js';
import type { StrategyMetrics } from './result.js';

const cfg = (start?: string, end?: string) => ({ file: 'c.yaml', backtest: { ...(start ? { start } : {}), ...(end ? { end } : {}) } }) as unknown as BacktestConfig;
const wf = (inSample: string) => gridSchema.parse({ params: { a: [1] }, walkForward: { start: '2024-08-03T00:00:00Z', outOfSample: '12h', windows: 3, inSample } }).walkForward as NonNullable<ReturnType<typeof gridSchema.parse>['walkForward']>;
const H = 3_600_000;
const t0 = Date.parse('2024-08-03T00:00:00Z');

describe('walkForwardSpans', () => {
  it('lays consecutive out-of-sample windows from start, each after its rolling or anchored in-sample span', () => {
    expect(walkForwardSpans(wf('1d'), cfg()).map((s) => [s.inSample.start, s.inSample.end, s.outOfSample.start, s.outOfSample.end])).toEqual([
      [t0 - 24 * H, t0 - 1, t0, t0 + 12 * H - 1],
      [t0 - 12 * H, t0 + 12 * H - 1, t0 + 12 * H, t0 + 24 * H - 1],
      [t0, t0 + 24 * H - 1, t0 + 24 * H, t0 + 36 * H - 1],
    ]);
    expect(walkForwardSpans(wf('anchored'), cfg()).every((s) => s.inSample.start === undefined)).toBe(true);
  });

  it('the example grid in config/ reads: three daily windows after a two-day look-back', () => {
    const g = loadGrid(fileURLToPath(new URL('../../config/sma-crossover.walk-forward.grid.yaml', import.meta.url)));
    expect(g.walkForward).toEqual({ start: '2024-08-03T00:00:00Z', outOfSample: 24 * H, windows: 3, inSample: 48 * H });
  });

  it("refuses windows outside the config's start and end, naming the field", () => {
    expect(() => walkForwardSpans(wf('2d'), cfg('2024-08-02T00:00:00Z'))).toThrow(/grid: walkForward\.start="2024-08-03T00:00:00Z": the first in-sample window starts at 2024-08-01T00:00:00\.000Z, before backtest\.start of c\.yaml/);
    expect(() => walkForwardSpans(wf('1d'), cfg(undefined, '2024-08-04T00:00:00Z'))).toThrow(/walkForward\.windows=3: the last out-of-sample window ends at 2024-08-04T11:59:59\.999Z, after backtest\.end/);
  });
});

describe('stitch', () => {
  it('adds money exactly, compounds returns and skips windows without figures', () => {
    const w = (netPnl: string, returnPct: number): WalkForwardWindow => ({ window: 1, inSample: { end: 0 }, outOfSample: { start: 0, end: 0 }, outOfSampleMetrics: { netPnl, fees: '0.1', trades: 2, returnPct } as unknown as StrategyMetrics });
    expect(stitch([w('0.1', 10), w('0.2', -10), { window: 3, inSample: { end: 0 }, outOfSample: { start: 0, end: 0 }, error: 'x' }])).toEqual({ windows: 2, netPnl: '0.3', fees: '0.2', trades: 4, returnPct: -1, profitableWindows: 2, efficiency: null });
    const eff = (is: number, oos: number): WalkForwardWindow => ({ ...w('1', 1), inSampleAnnualPct: is, outOfSampleAnnualPct: oos });
    expect(stitch([eff(100, 30), eff(300, 70)]).efficiency).toBe(0.25);
  });
});
