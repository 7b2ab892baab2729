/**
 * `kancil backtest` keeps its memory flat in the length of the run: the same generated market (a
 * seeded random walk of 1-minute candles, traded by the SMA crossover) 25 and 100 days long,
 * each through the real CLI in a process of its own, with garbage collected every 50 ms while it
 * replays. The largest live heap seen may not grow with the run: equity and price samples, fills,
 * candles and round trips are spooled (spilled to disk past a bound), ended orders only counted.
 * Holding them in memory, as before, grew it by ~60 MB from the short run to the long one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { streamsOf } from '../../src/backtest/resultStreams.js';
import { runSweepJob } from '../../src/backtest/sweepJob.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-backtest-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Spill files go to the temp folder: this file's own (its fork's and its children's environment).
const tmp = path.join(dir, 'tmp');
mkdirSync(tmp);
process.env.TMPDIR = tmp;
const spills = (): string[] => readdirSync(tmp).filter((f) => f.startsWith('kancil-spool-'));

/** A kline CSV of `bars` 1-minute candles: a seeded random walk around 60,000. */
function candles(bars: number): string {
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const lines: string[] = [];
  let price = 60_000;
  const t0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < bars; i++) {
    const open = price;
    price = Math.max(1000, price + (rnd() - 0.5) * 60);
    const high = Math.max(open, price) + rnd() * 10;
    const low = Math.min(open, price) - rnd() * 10;
    const t = t0 + i * 60_000;
    lines.push(`${t},${open.toFixed(2)},${high.toFixed(2)},${low.toFixed(2)},${price.toFixed(2)},1.5,${t + 59_999},90000,10,0.7,42000,0`);
  }
  const file = path.join(dir, `candles-${bars}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The largest live heap (MB) of one `kancil backtest` over `bars` candles. */
/** A config over `bars` generated candles, traded by the SMA crossover. */
function configFile(bars: number): string {
  const cfg = path.join(dir, `cfg-${bars}.yaml`);
  writeFileSync(
    cfg,
    `mode: backtest
name: memory-${bars}
strategies:
  - name: sma
    plugin: sma-crossover
    symbols: [BTC_USDT]
    budget: { USDT: "100000" }
    params: { fast: 5, slow: 20, kind: SMA, interval: 1m, quantity: "0.1" }
backtest:
  candles:
    - symbol: BTC_USDT
      interval: 1m
      files: [${JSON.stringify(candles(bars))}]
  fees: { makerBps: 10, takerBps: 10 }
  equityIntervalMs: 60000
`,
  );
  return cfg;
}

/** The largest live heap (MB) of one `kancil backtest` over `bars` candles. */
function peakLiveHeapMb(bars: number): { mb: number; stdout: string } {
  const cfg = configFile(bars);
  const probe = path.join(dir, `heap-${bars}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', pathToFileURL(path.join(import.meta.dirname, 'heapProbe.mjs')).href, path.join(root, 'bin/kancil.mjs'), 'backtest', cfg, '--quiet', '--out', path.join(dir, `out-${bars}`)], {
    cwd: root,
    env: { ...process.env, KANCIL_HEAP_PROBE: probe },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`kancil backtest exited ${String(r.status ?? r.signal)}: ${r.stderr}`);
  return { mb: Number(readFileSync(probe, 'utf8')) / 1e6, stdout: r.stdout };
}

describe('kancil backtest memory', () => {
  it('the live heap of a run 4x longer is not larger (samples, fills and candles spooled)', () => {
    const short = peakLiveHeapMb(36_000);
    const long = peakLiveHeapMb(144_000);
    // Both traded all along (the long run's fills are about 4x the short one's).
    const fills = (s: string): number => Number(/, (\d+) fills/.exec(s)?.[1] ?? NaN);
    expect(fills(short.stdout)).toBeGreaterThan(1000);
    expect(fills(long.stdout)).toBeGreaterThan(3 * fills(short.stdout));
    expect(long.mb - short.mb).toBeLessThan(6);
    // The command removed what it spilled.
    expect(spills()).toEqual([]);
  }, 180_000);

  it('a long run spills its lists to disk; disposing them, and every sweep job, removes the files', async () => {
    const cfg = configFile(36_000);
    const r = await runBacktest(loadBacktestConfig(cfg), { writeOutput: false });
    expect(spills().length).toBeGreaterThan(0);
    streamsOf(r).dispose();
    expect(spills()).toEqual([]);
    const answer = await runSweepJob({ index: 0, configFile: cfg, strategy: 'sma', params: { fast: 6 } });
    expect(answer.ok).toBe(true);
    expect(spills()).toEqual([]);
  }, 120_000);
});
