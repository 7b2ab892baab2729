/**
 * Ctrl-C during `kancil backtest`, sent to the CLI as a child process: a sweep keeps the points
 * that finished (sweep.md / .json / .html marked as interrupted, exit 130), a second signal more
 * than a second later abandons the running points; a single run exits 130 writing no result. A
 * model-based search and a walk-forward cut short say which trials and windows are done. On a
 * queue, Ctrl-C stops the waiting only: the jobs stay queued for the workers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startKancil, type BotProcess } from '../support/botProcess.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { runSweep, sweepTable } from '../../src/backtest/sweep.js';
import { gridSchema } from '../../src/backtest/sweepGrid.js';
import type { JobRunner } from '../../src/backtest/sweepJob.js';
import { runJobs } from '../../src/backtest/sweepPool.js';
import { command } from '../../src/cli/backtest.js';
import { REDIS_SERVER, startRedis } from '../support/redisServer.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-backtest-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bundled SMA config's candles, run by the slow test strategy at `ms` per event. */
function slowConfig(name: string, ms: number): string {
  const text = readFileSync(path.join(root, 'config/sma-crossover.yaml'), 'utf8')
    .replace('../backtest-data/', `${path.join(root, 'backtest-data')}/`)
    .replace('plugin: sma-crossover', `plugin: ${path.join(root, 'test/integration/slow-plugin.ts')}`)
    .replace(/params: \{ fast.*\}/, `params: { ms: ${ms} }`);
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

const POINTS = 6;

function sweep(name: string, msPerEvent: number): { proc: BotProcess; out: string } {
  const grid = path.join(dir, `${name}.grid.yaml`);
  writeFileSync(grid, `params:\n  point: [${Array.from({ length: POINTS }, (_, i) => i).join(', ')}]\n`);
  const out = path.join(dir, name);
  return { proc: startKancil(['backtest', slowConfig(name, msPerEvent), '--sweep', grid, '--workers', '2', '--out', out]), out };
}

async function ended(p: BotProcess, ms: number): Promise<number | null> {
  return Promise.race([p.exit, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
}

/** Rows and the interrupted line of the written sweep, checked to agree across its three files. */
function written(out: string): { rows: number; line: string } {
  const json = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { interrupted?: string; rows: unknown[] };
  const line = json.interrupted ?? '';
  expect(readFileSync(path.join(out, 'sweep.md'), 'utf8')).toContain(line);
  expect(readFileSync(path.join(out, 'sweep.html'), 'utf8')).toContain(line);
  return { rows: json.rows.length, line };
}

describe('kancil backtest interrupted', () => {
  it('sweep: the first SIGINT lets the running points finish and writes those done, exit 130', async () => {
    const { proc, out } = sweep('let-finish', 0.3);
    try {
      expect(await proc.waitForOutput(/sweep 1\/6/, 60_000), proc.output()).toBe(true);
      proc.child.kill('SIGINT');
      proc.child.kill('SIGINT'); // the same Ctrl-C reaching the process twice: one request
      expect(await ended(proc, 30_000), proc.output()).toBe(130);
      const w = written(out);
      // One point was done at the signal, and the one still running on the other thread finished.
      expect(w.rows, proc.output()).toBeGreaterThanOrEqual(2);
      expect(w.rows).toBeLessThan(POINTS);
      expect(w.line).toBe(`interrupted: ${w.rows} of ${POINTS} points run`);
      expect(proc.output()).toContain(w.line);
      expect(proc.output()).toMatch(/wrote .*sweep\.md/);
    } finally {
      if (proc.alive()) proc.child.kill('SIGKILL');
    }
  }, 60_000);

  it('sweep: a second SIGINT after a second abandons the running points', async () => {
    const { proc, out } = sweep('abandon', 1.5);
    try {
      expect(await proc.waitForOutput(/slow strategy started/, 60_000), proc.output()).toBe(true);
      proc.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 1200));
      proc.child.kill('SIGINT');
      // A point takes ~10 s here: the exit comes long before the running ones could finish.
      expect(await ended(proc, 5_000), proc.output()).toBe(130);
      expect(proc.output()).toMatch(/abandoning the running points/);
      expect(written(out)).toEqual({ rows: 0, line: `interrupted: 0 of ${POINTS} points run` });
    } finally {
      if (proc.alive()) proc.child.kill('SIGKILL');
    }
  }, 60_000);

  it('a single backtest: exit 130 with one line, no result.json', async () => {
    const out = path.join(dir, 'single');
    const proc = startKancil(['backtest', slowConfig('single', 2), '--out', out, '--quiet']);
    try {
      expect(await proc.waitForOutput(/slow strategy started/, 60_000), proc.output()).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      proc.child.kill('SIGINT');
      expect(await ended(proc, 10_000), proc.output()).toBe(130);
      expect(proc.output()).toMatch(/backtest interrupted \(SIGINT\): no result written/);
      expect(existsSync(path.join(out, 'result.json'))).toBe(false);
    } finally {
      if (proc.alive()) proc.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('an interrupted search or walk-forward says how far it got', () => {
  const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
  /** Runs batches on two threads; the stop comes as the `calls`-th batch ends, as a Ctrl-C would then. */
  function stopAfter(calls: number): { runner: JobRunner; signals: { stop: AbortSignal } } {
    const stop = new AbortController();
    let n = 0;
    const runner: JobRunner = async (jobs, onDone) => {
      const answers = await runJobs(jobs, 2, onDone, { stop: stop.signal });
      if (++n === calls) stop.abort();
      return answers;
    };
    return { runner, signals: { stop: stop.signal } };
  }

  it('tpe: the trials of the batches that ran, and no further batch', async () => {
    const grid = gridSchema.parse({ params: { fast: { from: 4, to: 24, step: 4 }, slow: [30, 60, 90] }, rankBy: 'netPnl', search: 'tpe', trials: 6, batch: 2, startup: 2, seed: 5 });
    const s = await runSweep(cfg, grid, stopAfter(1));
    expect(s.interrupted).toBe('interrupted: 2 of 6 trials run');
    expect(s.rows).toHaveLength(2);
    expect(s.search?.trials).toBe(2);
    expect(sweepTable(s)).toContain('interrupted: 2 of 6 trials run');
  }, 60_000);

  it('walk-forward: its points all ran, its windows did not', async () => {
    const grid = gridSchema.parse({ params: { fast: [5, 20], slow: [30] }, rankBy: 'netPnl', walkForward: { start: '2024-08-04T00:00:00Z', outOfSample: '1d', windows: 2, inSample: '1d' } });
    // Batches: the grid's points, the windows' in-sample runs, then their out-of-sample runs (cut).
    const s = await runSweep(cfg, grid, stopAfter(2));
    expect(s.interrupted).toBe('interrupted: 2 of 2 points run; walk-forward: 0 of 2 windows done');
    expect(s.rows).toHaveLength(2);
    expect(s.walkForward?.windows.map((w) => w.error)).toEqual(['not run: interrupted', 'not run: interrupted']);
  }, 60_000);
});

describe.skipIf(REDIS_SERVER === undefined)(`a queue sweep interrupted${REDIS_SERVER === undefined ? ' (skipped: no redis-server on PATH)' : ''}`, () => {
  it('stops waiting, exit 130, and leaves its jobs queued for the workers', async () => {
    const redis = await startRedis('pw-interrupt-7c1');
    const grid = path.join(dir, 'queue-grid.yaml');
    writeFileSync(grid, 'strategy: mm\nparams:\n  spreadBps: [41, 42, 43]\n');
    const args = [path.join(root, 'config/market-maker.yaml'), '--sweep', grid, '--queue', redis.url, '--out', path.join(dir, 'queue'), '--quiet'];
    const proc = startKancil(['backtest', ...args]);
    try {
      expect(await proc.waitForOutput(/waiting for workers/, 30_000), proc.output()).toBe(true);
      proc.child.kill('SIGINT');
      expect(await ended(proc, 10_000), proc.output()).toBe(130);
      expect(proc.output()).toMatch(/its jobs keep running on the workers \(nothing was cancelled\).*--gather/);
      expect(existsSync(path.join(dir, 'queue', 'sweep.json'))).toBe(false);
      let status = '';
      const io = { stdout: (t: string) => void (status += t), stderr: (t: string) => void (status += t), env: {} };
      expect(await command.run([...args, '--status'], io), status).toBe(0);
      expect(status).toMatch(/this sweep has 3 jobs: 3 waiting/);
    } finally {
      if (proc.alive()) proc.child.kill('SIGKILL');
      await redis.stop();
    }
  }, 60_000);
});
