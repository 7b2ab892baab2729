/**
 * Model-based sweep search: our TPE (src/backtest/tpe.ts through sweepTpe.ts, as `search: tpe`
 * runs it) against Optuna's TPESampler (Debian's python3-optuna; bench/tpeOptuna.py), and uniform
 * random draws as the floor, on the same objectives and budgets: the best value found after N
 * evaluated trials, mean and median over 10 seeds (higher is better). Two objectives:
 * - Branin (negated, so higher is better) on a 61 x 61 grid of [-5, 10] x [0, 15] with a
 *   categorical offset (a: 0, b: -2, c: -5): 11,163 points (the continuous optimum -0.3979 lies
 *   between grid points; the grid's best is printed);
 * - a real sweep: the bundled SMA crossover (config/sma-crossover.yaml) over fast, slow and kind,
 *   ranked by netPnl (USDT); every point is run once here (a backtest repeats exactly), and both
 *   searches read the same table, so only the choice of points differs.
 * Both run one trial at a time with 10 uniform startup points (Optuna's default); ours also with
 * its default batch of 4 (four points suggested together for parallel workers). Optuna may suggest
 * a point again, which spends a trial (counted and shown); ours never does. A refused point
 * (fast >= slow) is told as a failure and not counted on either side. Where python3-optuna is not
 * installed the bench says so and shows ours and random alone.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../src/core/random.js';
import { loadBacktestConfig } from '../src/backtest/config.js';
import { runSweep } from '../src/backtest/sweep.js';
import { gridSchema } from '../src/backtest/sweepGrid.js';
import type { PointOutcome } from '../src/backtest/sweepPoints.js';
import { tpeSearch } from '../src/backtest/sweepTpe.js';
import type { TpeSpace } from '../src/backtest/tpe.js';
import type { BenchReport } from './report.js';

const dir = path.dirname(fileURLToPath(import.meta.url));
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);
const STARTUP = 10;

/** An objective over a space: a value per point (higher is better), undefined for a refused point. */
interface Objective {
  readonly name: string;
  readonly space: TpeSpace;
  readonly value: (point: readonly unknown[]) => number | undefined;
  readonly budgets: readonly number[];
  /** What Optuna's side needs to compute the same values. */
  readonly peer: { objective: 'branin' } | { objective: 'table'; table: Record<string, number> };
  readonly best: number;
}

const steps = (from: number, to: number, step: number): number[] => Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => from + i * step);

function branin(x1: number, x2: number): number {
  const b = 5.1 / (4 * Math.PI ** 2);
  const c = 5 / Math.PI;
  const t = 1 / (8 * Math.PI);
  return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - t) * Math.cos(x1) + 10;
}

const OFFSET: Record<string, number> = { a: 0, b: 2, c: 5 };

function braninObjective(): Objective {
  const space: TpeSpace = [
    ['x1', steps(-5, 10, 0.25)],
    ['x2', steps(0, 15, 0.25)],
    ['kind', ['a', 'b', 'c']],
  ];
  const value = (p: readonly unknown[]): number => -branin(p[0] as number, p[1] as number) - (OFFSET[p[2] as string] ?? 0);
  let best = -Infinity;
  for (const x1 of space[0]?.[1] as number[]) for (const x2 of space[1]?.[1] as number[]) best = Math.max(best, value([x1, x2, 'a']));
  return { name: 'Branin, 11,163 points', space, value, budgets: [30, 60, 100], peer: { objective: 'branin' }, best };
}

/** Every point of the SMA grid run once (the embedded pool), as a table of netPnl by point. */
async function smaObjective(): Promise<Objective> {
  const cfg = loadBacktestConfig(path.join(dir, '..', 'config', 'sma-crossover.yaml'));
  const space: TpeSpace = [
    ['fast', steps(4, 28, 4)],
    ['slow', steps(20, 100, 10)],
    ['kind', ['SMA', 'EMA']],
  ];
  const s = await runSweep(cfg, gridSchema.parse({ params: Object.fromEntries(space.map(([k, vs]) => [k, [...vs]])), rankBy: 'netPnl' }));
  const table: Record<string, number> = {};
  for (const r of s.rows) if (r.metrics !== undefined && r.error === undefined) table[JSON.stringify(space.map(([k]) => r.params[k]))] = Number(r.metrics.netPnl);
  const values = Object.values(table);
  return { name: `SMA crossover sweep, netPnl USDT, ${values.length} points (${s.skipped.length} refused)`, space, value: (p) => table[JSON.stringify(p)], budgets: [20, 40], peer: { objective: 'table', table }, best: Math.max(...values) };
}

/** Best value after each evaluated trial of our search. */
async function ours(o: Objective, seed: number, batch: number, trials: number): Promise<number[]> {
  let best = -Infinity;
  const curve: number[] = [];
  await tpeSearch(o.space, { trials, seed, batch, startup: STARTUP }, {
    refusal: (p) => (o.value(o.space.map(([k]) => p[k])) === undefined ? 'refused' : undefined),
    runPoints: async (ps) => ps.map((params): PointOutcome => ({ params, metrics: undefined, ranBy: [] })),
    valueOf: (out) => {
      const v = o.value(o.space.map(([k]) => out.params[k])) as number;
      best = Math.max(best, v);
      curve.push(best);
      return v;
    },
  });
  return curve;
}

/** Uniform random distinct points (refused ones redrawn), best after each. */
function random(o: Objective, seed: number, trials: number): number[] {
  const rnd = mulberry32(seed);
  const seen = new Set<string>();
  const curve: number[] = [];
  let best = -Infinity;
  for (let guard = 0; curve.length < trials && guard < trials * 100; guard++) {
    const p = o.space.map(([, vs]) => vs[Math.floor(rnd() * vs.length)]);
    const key = JSON.stringify(p);
    const v = o.value(p);
    if (v === undefined || seen.has(key)) continue;
    seen.add(key);
    best = Math.max(best, v);
    curve.push(best);
  }
  return curve;
}

type Peer = { missing: true } | { curves: Record<string, number[]>; duplicates: number; version: string };

/** Interpreters tried in turn: the first on PATH (it may be a pyenv one without Debian's packages), then Debian's own. */
const PYTHONS = ['python3', '/usr/bin/python3'];

function optuna(o: Objective, trials: number): Peer | { error: string } {
  const input = JSON.stringify({ space: o.space, ...o.peer, trials, seeds: SEEDS, startup: STARTUP });
  for (const python of PYTHONS) {
    const r = spawnSync(python, [path.join(dir, 'tpeOptuna.py')], { input, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    if (r.error !== undefined) continue;
    if (r.status !== 0) return { error: r.stderr.slice(-500) };
    const peer = JSON.parse(r.stdout) as Peer;
    if (!('missing' in peer)) return peer;
  }
  return { missing: true };
}

function stats(xs: readonly number[]): { mean: number; median: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return { mean: s.reduce((a, x) => a + x, 0) / s.length, median: s.length % 2 === 1 ? (s[Math.floor(mid)] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2 };
}

const at = (curves: readonly (readonly number[])[], n: number): number[] => curves.map((c) => c[Math.min(n, c.length) - 1] ?? NaN);
const fmt = (x: { mean: number; median: number }): string => `mean ${x.mean.toFixed(4)}, median ${x.median.toFixed(4)}`;

async function compare(o: Objective, lines: string[]): Promise<boolean> {
  const max = Math.max(...o.budgets);
  const t0 = Date.now();
  const seq = await Promise.all(SEEDS.map((s) => ours(o, s, 1, max)));
  const oursMs = Date.now() - t0;
  const batched = await Promise.all(SEEDS.map((s) => ours(o, s, 4, max)));
  const rnd = SEEDS.map((s) => random(o, s, max));
  const t1 = Date.now();
  const peer = optuna(o, max);
  const peerMs = Date.now() - t1;
  lines.push(`${o.name}: best in the grid ${o.best.toFixed(4)}; best found after N trials over ${SEEDS.length} seeds (higher is better):`);
  for (const n of o.budgets) {
    lines.push(`  N=${n}: ours ${fmt(stats(at(seq, n)))}; ours batch 4 ${fmt(stats(at(batched, n)))}; random ${fmt(stats(at(rnd, n)))}`);
    if ('curves' in peer) lines.push(`  N=${n}: Optuna ${peer.version} TPESampler ${fmt(stats(at(Object.values(peer.curves), n)))}`);
  }
  if ('missing' in peer) lines.push('  Optuna: not installed (apt-get install python3-optuna): peer skipped');
  else if ('error' in peer) lines.push(`  Optuna: failed: ${peer.error}`);
  else lines.push(`  time for ${SEEDS.length} x ${max} trials: ours ${oursMs} ms, Optuna ${peerMs} ms (process included); Optuna repeated ${peer.duplicates} points in all`);
  return !('error' in peer);
}

export async function run(): Promise<BenchReport> {
  const lines: string[] = [`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`];
  const ok = (await compare(braninObjective(), lines)) && (await compare(await smaObjective(), lines));
  return { name: 'tpe: model-based sweep search against Optuna TPESampler', lines, ok };
}
