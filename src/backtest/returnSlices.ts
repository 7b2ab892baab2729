/**
 * A run's per-period returns of one strategy's equity, summed per time slice: what a sweep keeps
 * of each point to measure overfitting (overfitting.ts) without carrying its whole curve. The run's
 * span is cut into `slices` equal parts; a return belongs to the slice its period ends in. Only
 * samples exactly one equity interval apart count, as for the Sharpe ratio of the result.
 */
import { momentsOf, type Moments } from './overfitting.js';
import type { BacktestResult } from './result.js';
import { streamsOf } from './resultStreams.js';

/** Slices a sweep cuts each run into (16 gives 12,870 in-sample / out-of-sample splits). */
export const RETURN_SLICES = 16;

/** The moments of `strategy`'s per-period returns in each of `slices` equal spans of the run; undefined for an unknown strategy. */
export function returnSlices(result: BacktestResult, strategy: string, slices = RETURN_SLICES): Moments[] | undefined {
  const col = Object.keys(result.strategies).indexOf(strategy);
  if (col < 0) return undefined;
  const span = Math.max(1, result.end - result.start);
  const per: number[][] = Array.from({ length: slices }, () => []);
  let prev: { t: number; v: number } | undefined;
  for (const row of streamsOf(result).equity()) {
    const v = row.v[col];
    if (v === undefined) continue;
    if (prev !== undefined && row.t - prev.t === result.equityIntervalMs && prev.v > 0) {
      const k = Math.min(slices - 1, Math.floor(((row.t - result.start) / span) * slices));
      per[Math.max(0, k)]?.push(v / prev.v - 1);
    }
    prev = { t: row.t, v };
  }
  return per.map((xs) => momentsOf(xs));
}
