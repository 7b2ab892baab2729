/**
 * Parameter sweeps run on worker threads (TypeScript through tsx), and every point's result is
 * byte-identical to a single run with the same parameters. Uses the bundled candle sample.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    const pnl = s.rows.map((r) => Number(r.metrics?.netPnl));
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

  it('a grid value the strategy refuses, or a parameter it does not have, stops the sweep before any point runs, naming the grid file, key, position and value', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-bad-'));
    try {
      const cfgFile = path.join(root, 'config/sma-crossover.yaml');
      const cases: [string, RegExp][] = [
        ['params:\n  fast: [5, 60]\n', /bad\.yaml: params\.fast\[1\]=60: fast must be smaller than slow/],
        ['params:\n  fast: [5]\n  fastt: [1]\n', /bad\.yaml: params\.fastt\[0\]=1: unknown key "fastt"/],
        ['params:\n  kind: [SMA, WMA]\n', /bad\.yaml: params\.kind\[1\]="WMA": /],
        ['params:\n  fast: []\n', /bad\.yaml.*params\.fast/],
        ['params: {}\n', /bad\.yaml.*params/],
        ['params:\n  fast: [5]\nrankBy: profit\n', /bad\.yaml.*rankBy.*"profit"/],
      ];
      for (const [text, want] of cases) {
        const gridFile = path.join(dir, 'bad.yaml');
        writeFileSync(gridFile, text);
        const out = path.join(dir, 'out');
        const err: string[] = [];
        const code = await command.run([cfgFile, '--sweep', gridFile, '--out', out, '--workers', '1'], { stdout: (t) => err.push(t), stderr: (t) => err.push(t), env: {} });
        expect(code, text).toBe(1);
        expect(err.join(''), text).toMatch(want);
        // Nothing ran: no progress line, no output folder.
        expect(err.join(''), text).not.toMatch(/sweep \d+\/\d+/);
        expect(existsSync(out), text).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a strategy throwing in one grid point is reported for that point; the other points run and rank', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-throw-'));
    try {
      const cfgFile = path.join(dir, 'thrower.yaml');
      const plugin = path.join(root, 'src/strategy/test-plugins/thrower.ts');
      const candles = path.join(root, 'backtest-data/btcusdt-1m-sample.csv.gz');
      writeFileSync(cfgFile, `mode: backtest\nstrategies:\n  - { name: t, plugin: ${JSON.stringify(plugin)}, symbols: [BTC_USDT], budget: { USDT: "1000" }, params: { failAt: 1000000 } }\nbacktest:\n  candles: [{ symbol: BTC_USDT, interval: 1m, files: [${JSON.stringify(candles)}] }]\n`);
      const gridFile = path.join(dir, 'grid.yaml');
      writeFileSync(gridFile, 'params:\n  failAt: [1000000, 50, 2000000]\n');
      const out: string[] = [];
      const code = await command.run([cfgFile, '--sweep', gridFile, '--out', dir, '--workers', '2', '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {} });
      expect(code).toBe(1);
      const json = JSON.parse(readFileSync(path.join(dir, 'sweep.json'), 'utf8')) as { failed: number; rows: { rank: number; index: number; error?: string; metrics?: unknown }[] };
      expect(json.failed).toBe(1);
      // The failed point ranks last with its error; the two others have their figures, in grid order on a tie.
      expect(json.rows.map((r) => [r.rank, r.index, r.error === undefined])).toEqual([
        [1, 0, true],
        [2, 2, true],
        [3, 1, false],
      ]);
      expect(json.rows[2]?.error).toMatch(/strategy t threw \(event\) at .*: boom/);
      expect(out.join('')).toMatch(/1 of 3 points failed/);
      expect(readFileSync(path.join(dir, 'sweep.md'), 'utf8')).toMatch(/\| 3 \| 50 \| FAILED: strategy t threw/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
