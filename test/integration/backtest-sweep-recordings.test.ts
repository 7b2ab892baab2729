/**
 * A sweep over several recordings run separately (`eachRecording`): one run per point and
 * recording file, each equal to a single backtest of that file, and the point's figures their
 * exact combination. Uses the bundled recording and a shorter cut of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { runSweep, sweepTable } from '../../src/backtest/sweep.js';
import { gridSchema } from '../../src/backtest/sweepGrid.js';
import { jobConfig } from '../../src/backtest/sweepJob.js';
import { Decimal } from '../../src/core/decimal.js';
import { twoRecordingConfig } from '../support/twoRecordings.js';

const root = path.resolve(import.meta.dirname, '../..');
describe('sweep with eachRecording', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-recordings-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs each point on each recording; the point is the exact combination of its runs', async () => {
    const cfg = loadBacktestConfig(twoRecordingConfig(dir));
    const grid = gridSchema.parse({ strategy: 'mm', params: { spreadBps: [2, 4] }, eachRecording: true });
    const s = await runSweep(cfg, grid, { workers: 2, keepResults: true });
    const results = s.results ?? [];
    expect(results).toHaveLength(4);
    for (const [p, params] of [{ spreadBps: 2 }, { spreadBps: 4 }].entries()) {
      const singles = [];
      for (const recording of [0, 1]) {
        const single = await runBacktest(jobConfig({ index: 0, configFile: cfg.file, strategy: 'mm', params, recording }), { paramOverrides: { mm: params }, writeOutput: false });
        expect(JSON.stringify(results[p * 2 + recording])).toBe(JSON.stringify(single));
        singles.push(single.strategies.mm!);
      }
      // The two recordings really differ, and the row adds them exactly.
      expect(singles[0]!.netPnl).not.toBe(singles[1]!.netPnl);
      const row = s.rows.find((r) => r.index === p)!;
      expect(row.metrics?.netPnl).toBe(new Decimal(singles[0]!.netPnl).plus(singles[1]!.netPnl).toFixed());
      expect(row.metrics?.trades).toBe(singles[0]!.trades + singles[1]!.trades);
      expect(row.recordings?.map((x) => [path.basename(x.file), x.metrics?.netPnl])).toEqual([
        ['btcusdt-sample.ndjson.gz', singles[0]!.netPnl],
        ['short.ndjson.gz', singles[1]!.netPnl],
      ]);
    }
    expect(sweepTable(s)).toContain('Per recording');
  }, 120_000);

  it('is refused for a candle config, naming the grid key', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    await expect(runSweep(cfg, gridSchema.parse({ params: { fast: [5] }, eachRecording: true }), { gridFile: 'g.yaml' })).rejects.toThrow(/g\.yaml.*eachRecording.*not candles/);
  });
});
