/**
 * Parameter sweeps run on worker threads (TypeScript through tsx), and every point's result is
 * byte-identical to a single run with the same parameters. Uses the bundled candle sample.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { Decimal } from '../../src/core/decimal.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { command } from '../../src/cli/backtest.js';
import { runSweep, sweepTable } from '../../src/backtest/sweep.js';
import { gridObjective, gridPoints, gridSchema, loadGrid } from '../../src/backtest/sweepGrid.js';
import { probabilityOfOverfitting } from '../../src/backtest/overfitting.js';
import { returnSlices } from '../../src/backtest/returnSlices.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('backtest sweeps', () => {
  it('enumerates the grid in a fixed order', () => {
    const g = gridSchema.parse({ params: { a: [1, 2], b: ['x', 'y'] } });
    expect(gridPoints(g)).toEqual([{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }]);
    expect(gridObjective(g).metric).toBe('netPnl');
  });

  it('runs the grid on worker threads; each result equals a single run with the same parameters', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const grid = gridSchema.parse({ params: { fast: [5, 20], slow: [30] }, rankBy: 'netPnl' });
    const s = await runSweep(cfg, grid, { workers: 2, keepResults: true });
    const lean = await runSweep(cfg, grid, { workers: 2 });
    const results = s.results ?? [];
    expect(results).toHaveLength(2);
    for (const [i, p] of gridPoints(grid).entries()) {
      const single = await runBacktest(cfg, { paramOverrides: { sma: p }, writeOutput: false });
      expect(JSON.stringify(results[i])).toBe(JSON.stringify(single));
      // Without keepResults only the figures travel back: the same figures.
      expect(JSON.stringify(lean.rows.find((r) => r.index === i)?.metrics)).toBe(JSON.stringify(single.strategies.sma));
    }
    expect(lean.results).toBeUndefined();
    expect(lean.rows.map((r) => r.index)).toEqual(s.rows.map((r) => r.index));
    // Ranked by net PnL, best first, and the two points really differ.
    const pnl = s.rows.map((r) => Number(r.metrics?.netPnl));
    expect(pnl[0]).toBeGreaterThanOrEqual(pnl[1]!);
    expect(results[0]!.fills.length).not.toBe(results[1]!.fills.length);
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

  it('a grid error or a parameter the strategy does not have stops the sweep before any point runs, naming the grid file and key', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-bad-'));
    try {
      const cfgFile = path.join(root, 'config/sma-crossover.yaml');
      const cases: [string, RegExp][] = [
        ['params:\n  fast: [5]\n  fastt: [1]\n', /bad\.yaml: params\.fastt=1: unknown key "fastt": sma-crossover has no such parameter/],
        ['params:\n  fast: [60, 70]\n', /bad\.yaml: params=\{"fast":\[60,70\]\}: every point is refused by sma-crossover, e\.g\. \{"fast":60\}: fast=60: fast must be smaller than slow/],
        ['params:\n  fast: { from: 5, to: 1, step: 1 }\n', /bad\.yaml: params\.fast=\{"from":5,"to":1,"step":1\}: from 5 is above to 1/],
        ['params:\n  fast: { from: 1, to: 5, step: 0 }\n', /bad\.yaml: params\.fast=\{.*\}: step 0 must be above 0/],
        ['params:\n  fast: { from: 1, to: 5 }\n', /bad\.yaml.*params\.fast/],
        ['params:\n  fast: [5]\nsearch: random\n', /bad\.yaml: samples.*search: random needs samples/],
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
        expect(code, text).toBe(2);
        expect(err.join(''), text).toMatch(want);
        // Nothing ran: no progress line, no output folder.
        expect(err.join(''), text).not.toMatch(/sweep \d+\/\d+/);
        expect(existsSync(out), text).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('ranges, skipped points and an out-of-sample split: in-sample and out-of-sample runs equal single runs on each part', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-oos-'));
    try {
      const cfgFile = path.join(root, 'config/sma-crossover.yaml');
      const gridFile = path.join(dir, 'grid.yaml');
      writeFileSync(gridFile, 'params:\n  fast: { from: 20, to: 40, step: 20 }\n  slow: [30]\nrankBy: netPnl\noutOfSample: "2024-08-04T00:00:00Z"\n');
      const out: string[] = [];
      const code = await command.run([cfgFile, '--sweep', gridFile, '--out', dir, '--workers', '2', '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {} });
      expect(code).toBe(0);
      const json = JSON.parse(readFileSync(path.join(dir, 'sweep.json'), 'utf8')) as { split: number; skipped: { params: unknown; reason: string }[]; rows: { params: Record<string, unknown>; metrics: { netPnl: string }; outOfSample: { netPnl: string } }[] };
      expect(json.skipped).toEqual([{ params: { fast: 40, slow: 30 }, reason: 'fast=40: fast must be smaller than slow' }]);
      expect(json.rows.map((r) => r.params)).toEqual([{ fast: 20, slow: 30 }]);
      const cfg = loadBacktestConfig(cfgFile);
      const split = Date.parse('2024-08-04T00:00:00Z');
      const inSample = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, end: split - 1 } }, { paramOverrides: { sma: { fast: 20, slow: 30 } }, writeOutput: false });
      const outOfSample = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, start: split } }, { paramOverrides: { sma: { fast: 20, slow: 30 } }, writeOutput: false });
      expect(json.rows[0]?.metrics.netPnl).toBe(inSample.strategies.sma?.netPnl);
      expect(json.rows[0]?.outOfSample.netPnl).toBe(outOfSample.strategies.sma?.netPnl);
      expect(json.rows[0]?.metrics.netPnl).not.toBe(json.rows[0]?.outOfSample.netPnl);
      const md = readFileSync(path.join(dir, 'sweep.md'), 'utf8');
      expect(md).toMatch(/in sample \(before 2024-08-04T00:00:00\.000Z\).*\n\n\| rank \| fast \| slow \| netPnl .* \| oos netPnl \| oos returnPct/);
      expect(md).toMatch(/1 points skipped \(refused by the strategy\):\n- \{"fast":40,"slow":30\}: fast=40/);
      const html = readFileSync(path.join(dir, 'sweep.html'), 'utf8');
      expect(html).toContain('<table id="heatmap">');
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says how much the winner owes to luck: PBO over the points\' returns, the deflated Sharpe ratio, in against out of sample', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const grid = gridSchema.parse({ params: { fast: [5, 20], slow: [30, 60] }, rankBy: 'netPnl', outOfSample: '2024-08-04T00:00:00Z' });
    const s = await runSweep(cfg, grid, { workers: 2, keepResults: true });
    const o = s.overfitting;
    expect(o?.points).toBe(4);
    expect(o?.pbo?.splits).toBe(12870);
    // The same figure from each point's whole in-sample result, sliced here.
    const split = Date.parse('2024-08-04T00:00:00Z');
    const slices = await Promise.all(
      gridPoints(grid).map(async (p) => {
        const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, end: split - 1 } }, { paramOverrides: { sma: p }, writeOutput: false });
        return returnSlices(r, 'sma') ?? [];
      }),
    );
    expect(o?.pbo?.pbo).toBe(probabilityOfOverfitting(slices)?.pbo);
    expect(o?.deflatedSharpe?.index).toBe(s.rows[0]?.index);
    expect(o?.deflatedSharpe?.trials).toBe(4);
    expect(o?.deflatedSharpe?.dsr).toBeGreaterThanOrEqual(0);
    expect(o?.deflatedSharpe?.dsr).toBeLessThanOrEqual(1);
    expect(o?.rankCorrelation).toBeGreaterThanOrEqual(-1);
    const md = sweepTable(s);
    expect(md).toMatch(/Probability of backtest overfitting \(CSCV, 12870 splits of 16 slices\): \d+\.\d %/);
    expect(md).toMatch(/Deflated Sharpe ratio of the first-ranked point/);
    expect(md).toMatch(/Rank correlation of netPnl in and out of sample/);
  }, 180_000);

  it('minTrades keeps thin points from winning; a custom objective ranks by a tearsheet metric in its direction', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const params = { fast: [5, 20], slow: [60] };
    const plain = await runSweep(cfg, gridSchema.parse({ params, rankBy: 'netPnl' }), { workers: 2 });
    const trades = plain.rows.map((r) => r.metrics?.trades ?? 0);
    const min = Math.max(...trades);
    expect(Math.min(...trades)).toBeLessThan(min);
    const s = await runSweep(cfg, gridSchema.parse({ params, rankBy: 'netPnl', minTrades: min }), { workers: 2 });
    expect(s.rows[0]?.rank).toBe(1);
    expect(s.rows[0]?.metrics?.trades).toBeGreaterThanOrEqual(min);
    const thin = s.rows.find((r) => (r.metrics?.trades ?? 0) < min);
    expect(thin).toMatchObject({ rank: null, excluded: `${thin?.metrics?.trades} trades, under minTrades ${min}` });
    expect(sweepTable(s)).toMatch(/points with fewer than \d+ trades are listed, not ranked/);
    expect(s.overfitting?.deflatedSharpe?.index ?? s.rows[0]?.index).toBe(s.rows[0]?.index);

    const o = await runSweep(cfg, gridSchema.parse({ params, objective: { metric: 'exposurePct', direction: 'min' } }), { workers: 2, keepResults: true });
    expect(o.objective).toEqual({ metric: 'exposurePct', direction: 'min' });
    const exposure = (i: number): number | undefined => o.results?.[i]?.tearsheet.sma?.exposurePct;
    expect(o.rows.map((r) => r.objective)).toEqual(o.rows.map((r) => exposure(r.index)));
    expect(o.rows[0]?.objective).toBeLessThanOrEqual(o.rows[1]?.objective ?? -1);
    expect(sweepTable(o)).toMatch(/ranked by exposurePct \(lowest first\)[\s\S]*\| exposurePct \|/);
  }, 180_000);

  it('search: tpe runs `trials` points chosen batch by batch, repeats for its seed, and each point equals a single run', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const grid = gridSchema.parse({ params: { fast: { from: 4, to: 24, step: 4 }, slow: [30, 60, 90], kind: ['SMA', 'EMA'] }, rankBy: 'netPnl', search: 'tpe', trials: 6, batch: 3, startup: 3, seed: 5 });
    const s = await runSweep(cfg, grid, { workers: 2 });
    expect(s.search).toEqual({ method: 'tpe', seed: 5, batch: 3, trials: 6 });
    expect(s.rows).toHaveLength(6);
    expect(new Set(s.rows.map((r) => JSON.stringify(r.params))).size).toBe(6);
    const again = await runSweep(cfg, grid, { workers: 1 });
    expect(again.rows.map((r) => [r.params, r.metrics?.netPnl])).toEqual(s.rows.map((r) => [r.params, r.metrics?.netPnl]));
    const top = s.rows[0];
    const single = await runBacktest(cfg, { paramOverrides: { sma: top?.params ?? {} }, writeOutput: false });
    expect(top?.metrics?.netPnl).toBe(single.strategies.sma?.netPnl);
    expect(sweepTable(s)).toContain('TPE search (seed 5, batches of 3): 6 trials.');
  }, 180_000);

  it('walk-forward: each window ranks in sample, and its out-of-sample figures equal single runs on the window', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-wf-'));
    try {
      const cfgFile = path.join(root, 'config/sma-crossover.yaml');
      const gridFile = path.join(dir, 'grid.yaml');
      writeFileSync(gridFile, 'params:\n  fast: [5, 20]\n  slow: [30]\nrankBy: netPnl\nwalkForward: { start: "2024-08-04T00:00:00Z", outOfSample: 1d, windows: 2, inSample: 1d }\n');
      const out: string[] = [];
      const code = await command.run([cfgFile, '--sweep', gridFile, '--out', dir, '--workers', '2', '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {} });
      expect(code, out.join('')).toBe(0);
      type Wf = { windows: { inSample: { start: number; end: number }; outOfSample: { start: number; end: number }; params: Record<string, unknown>; inSampleMetrics: { netPnl: string }; outOfSampleMetrics: { netPnl: string } }[]; outOfSample: { netPnl: string; windows: number } };
      const json = JSON.parse(readFileSync(path.join(dir, 'sweep.json'), 'utf8')) as { walkForward: Wf };
      const wf = json.walkForward;
      const day = 86_400_000;
      const first = Date.parse('2024-08-04T00:00:00Z');
      expect(wf.windows.map((w) => [w.inSample, w.outOfSample])).toEqual([
        [{ start: first - day, end: first - 1 }, { start: first, end: first + day - 1 }],
        [{ start: first, end: first + day - 1 }, { start: first + day, end: first + 2 * day - 1 }],
      ]);
      const cfg = loadBacktestConfig(cfgFile);
      const single = async (start: number, end: number, fast: number) => (await runBacktest({ ...cfg, backtest: { ...cfg.backtest, start, end } }, { paramOverrides: { sma: { fast, slow: 30 } }, writeOutput: false })).strategies.sma?.netPnl ?? '';
      let sum = new Decimal(0);
      for (const w of wf.windows) {
        // The chosen point is the in-sample best of the two, and its figures are single runs' on each span.
        const inSample = [await single(w.inSample.start, w.inSample.end, 5), await single(w.inSample.start, w.inSample.end, 20)];
        const best = Number(inSample[0]) >= Number(inSample[1]) ? 5 : 20;
        expect(w.params).toEqual({ fast: best, slow: 30 });
        expect(w.inSampleMetrics.netPnl).toBe(inSample[best === 5 ? 0 : 1]);
        expect(w.outOfSampleMetrics.netPnl).toBe(await single(w.outOfSample.start, w.outOfSample.end, best));
        sum = sum.plus(w.outOfSampleMetrics.netPnl);
      }
      expect(wf.outOfSample).toMatchObject({ windows: 2, netPnl: sum.toFixed() });
      const md = readFileSync(path.join(dir, 'sweep.md'), 'utf8');
      expect(md).toMatch(/Walk-forward \(rolling in-sample windows.*\n\n\| window \| in sample \| out of sample \| chosen/);
      expect(md).toContain(`Stitched out of sample (2 windows, each from the configured budget): netPnl ${sum.toFixed()}`);
      const html = readFileSync(path.join(dir, 'sweep.html'), 'utf8');
      expect(html).toContain('<table id="walk-forward">');
      expect(html).toContain('Stitched out of sample (2 windows,');
      // Like with like: the objective in and out of sample side by side, and the annualised returns with their ratio.
      expect(md).toMatch(/\| chosen \| netPnl in sample \| netPnl out of sample \| annualised return in sample \| annualised return out of sample \| efficiency \|/);
      expect(md).toContain('Efficiency: out-of-sample annualised return over in-sample annualised return');
      type WfMore = { windows: { inSampleObjective: number; outOfSampleObjective: number; inSampleAnnualPct: number | null; outOfSampleAnnualPct: number | null; efficiency: number | null; outOfSampleMetrics: { netPnl: string } }[]; outOfSample: { returnPct: number; efficiency: number | null }; stitchedEquity: { t: number; v: number }[] };
      const more = json.walkForward as unknown as WfMore;
      for (const w of more.windows) {
        expect(w.outOfSampleObjective).toBe(Number(w.outOfSampleMetrics.netPnl));
        expect(w.efficiency).toBe(w.inSampleAnnualPct !== null && w.inSampleAnnualPct > 0 && w.outOfSampleAnnualPct !== null ? w.outOfSampleAnnualPct / w.inSampleAnnualPct : null);
      }
      // The stitched curve spans both windows and ends where the compounded return says.
      const curve = more.stitchedEquity;
      expect(curve[0]?.t).toBeGreaterThanOrEqual(first);
      expect(curve[curve.length - 1]?.t).toBeGreaterThan(first + day);
      expect((curve[curve.length - 1]?.v ?? 0) / (curve[0]?.v ?? 1)).toBeCloseTo(1 + more.outOfSample.returnPct / 100, 6);
      expect(html).toContain('<svg id="stitched-equity"');

      // A walk-forward spec is checked before anything runs, naming the field.
      const bad: [string, RegExp][] = [
        ['walkForward: { start: "2024-08-04T00:00:00Z", outOfSample: 1d, windows: 2, inSample: 1d }\noutOfSample: "2024-08-04T00:00:00Z"\n', /walkForward.*outOfSample \(one split\) and walkForward exclude each other/],
        ['walkForward: { start: "2024-08-04T00:00:00Z", outOfSample: 1 day, windows: 2, inSample: anchored }\n', /walkForward\.outOfSample.*a duration such as 90m, 12h or 1d/],
        ['walkForward: { start: "2024-08-04T00:00:00Z", outOfSample: 1d, windows: 0, inSample: anchored }\n', /walkForward\.windows/],
      ];
      for (const [text, want] of bad) {
        writeFileSync(gridFile, `params:\n  fast: [5]\n${text}`);
        const err: string[] = [];
        const c = await command.run([cfgFile, '--sweep', gridFile, '--out', path.join(dir, 'bad'), '--workers', '1'], { stdout: (t) => err.push(t), stderr: (t) => err.push(t), env: {} });
        expect(c, text).toBe(2);
        expect(err.join(''), text).toMatch(want);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

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
