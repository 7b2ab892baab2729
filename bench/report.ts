/** Shared shape and formatting helpers for benchmarks (`npm run bench`). */

/** What every bench/*.bench.ts `run()` returns. `ok` is false when outputs disagreed or a goal was missed. */
export interface BenchReport {
  name: string;
  lines: string[];
  ok: boolean;
}

/** Formats an operations-per-second figure with thousands separators. */
export function fmtRate(opsPerSec: number): string {
  return `${Math.round(opsPerSec).toLocaleString('en-US')}/s`;
}

/** Formats a ratio such as 3.41x. */
export function fmtRatio(ours: number, peer: number): string {
  return peer > 0 ? `${(ours / peer).toFixed(2)}x` : 'n/a';
}

/** The p-th percentile (0..100) of a list of samples (sorted copy; nearest-rank). */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const a = Array.from(samples).sort((x, y) => x - y);
  if (a.length === 0) return NaN;
  const idx = Math.min(a.length - 1, Math.max(0, Math.ceil((p / 100) * a.length) - 1));
  return a[idx] as number;
}

/** Times `fn` once and returns elapsed seconds (high resolution). */
export function timeIt(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}
