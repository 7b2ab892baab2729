/**
 * One strategy's equity curve thinned to a bounded number of points, for a sweep to carry back
 * from a run (a walk-forward window's, stitched with the others in the sweep's report).
 */
import type { BacktestResult } from './result.js';
import { streamsOf } from './resultStreams.js';

/** A point of a thinned curve: time (ms) and equity (quote asset; drawn, decides nothing). */
export interface CurvePoint {
  readonly t: number;
  readonly v: number;
}

/** Points a window's curve keeps by default. */
export const CURVE_POINTS = 400;

/**
 * `strategy`'s equity samples, every k-th one so that at most `max` remain, the last sample
 * always kept (where the run ended); undefined for an unknown strategy.
 */
export function curvePoints(result: BacktestResult, strategy: string, max = CURVE_POINTS): CurvePoint[] | undefined {
  const col = Object.keys(result.strategies).indexOf(strategy);
  if (col < 0) return undefined;
  const all: CurvePoint[] = [];
  for (const row of streamsOf(result).equity()) {
    const v = row.v[col];
    if (v !== undefined) all.push({ t: row.t, v });
  }
  const step = Math.max(1, Math.ceil(all.length / Math.max(1, max - 1)));
  const out = all.filter((_, i) => i % step === 0);
  const last = all[all.length - 1];
  if (last !== undefined && out[out.length - 1] !== last) out.push(last);
  return out;
}
