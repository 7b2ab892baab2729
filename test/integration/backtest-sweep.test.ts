/**
 * Parameter sweeps run on worker threads (TypeScript through tsx), and every point's result is
 * byte-identical to a single run with the same parameters. Uses the bundled candle sample.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { command } from '../../src/cli/backtest.js';
import { runSweep, sweepTable } from '../../src/backtest/sweep.js';
import { gridPoints, gridSchema, loadGrid } from '../../src/backtest/sweepGrid.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('backtest sweeps', () => {
  it('enumerates the grid in a fixed order', () => {
    const g = gridSchema.parse({ params: { a: [1, 2], b: ['x', 'y'] } });
    expect(gridPoints(g)).toEqual([{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }]);
    expect(g.rankBy).toBe('netPnl');
  });

  it('runs the grid on worker threads; each result equals a single run with the same parameters', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const grid = gridSchema.parse({ params: { fast: [5, 20], slow: [30] }, rankBy: 'netPnl' });
    const s = await runSweep(cfg, grid, { workers: 2 });
    expect(s.results).toHaveLength(2);
    for (const [i, p] of gridPoints(grid).entries()) {
      const single = await runBacktest(cfg, { paramOverrides: { sma: p }, writeOutput: false });
      expect(JSON.stringify(s.results[i])).toBe(JSON.stringify(single));
    }
    // Ranked by net PnL, best first, and the two points really differ.
    const pnl = s.rows.map((r) => Number(r.metrics.netPnl));
    expect(pnl[0]).toBeGreaterThanOrEqual(pnl[1]!);
    expect(s.results[0]!.fills.length).not.toBe(s.results[1]!.fills.length);
    expect(sweepTable(s)).toContain('| rank | fast | slow |');
  }, 120_000);

  it('the CLI writes the ranked table', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-'));
    try {
      const gridFile = path.join(dir, 'grid.yaml');
      writeFileSync(gridFile, 'params:\n  fast: [10]\n  slow: [40, 60]\nrankBy: sharpe\n');
      expect(loadGrid(gridFile).rankBy).toBe('sharpe');
      const out: string[] = [];
      const code = await command.run([path.join(root, 'config/sma-crossover.yaml'), '--sweep', gridFile, '--out', dir, '--workers', '2', '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {} });
      expect(code).toBe(0);
      const md = readFileSync(path.join(dir, 'sweep.md'), 'utf8');
      expect(md).toContain('ranked by sharpe');
      expect(md.split('\n').filter((l) => /^\| [12] \|/.test(l))).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
