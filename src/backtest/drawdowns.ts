/**
 * Drawdown periods of an equity curve: each runs from the last sample at a peak, through its
 * lowest sample (the trough), to the first sample back at or above the peak (the recovery), or to
 * the end of the run when equity never got back. Descriptive floats: they decide no order.
 */
import type { EquityPoint } from './metrics.js';
import { roundStat } from './metrics.js';

/** One drawdown period; times in ms of virtual time. */
export interface DrawdownPeriod {
  /** Last sample at the peak before the fall. */
  readonly start: number;
  /** Lowest sample of the period. */
  readonly trough: number;
  /** First sample back at or above the peak; null when the run ended below it. */
  readonly recovery: number | null;
  /** Peak minus trough, in the quote currency. */
  readonly depth: number;
  /** Depth as a percent of the peak; null when the peak was not positive. */
  readonly depthPct: number | null;
  /** From start to recovery, or to the end of the run when not recovered. */
  readonly durationMs: number;
}

/** The worst drawdown periods of a curve and the longest time spent in one. */
export interface DrawdownSummary {
  /** Deepest first (by percent of the peak, then by depth), at most the number asked for. */
  readonly worst: readonly DrawdownPeriod[];
  /** Longest duration of any period (not only the worst ones); 0 when equity never fell. */
  readonly longestMs: number;
}

/** How many drawdown periods results keep. */
export const WORST_DRAWDOWNS = 5;

/** Whether period a ranks before b: deeper in percent, then deeper in quote, then earlier. */
function deeper(a: DrawdownPeriod, b: DrawdownPeriod): boolean {
  const pa = a.depthPct ?? -1;
  const pb = b.depthPct ?? -1;
  if (pa !== pb) return pa > pb;
  if (a.depth !== b.depth) return a.depth > b.depth;
  return a.start < b.start;
}

/**
 * The `keep` worst drawdown periods and the longest one's duration, in one pass; only `keep`
 * periods are held at a time, so a curve of millions of small dips costs no memory.
 */
export function drawdownPeriods(curve: Iterable<EquityPoint>, keep = WORST_DRAWDOWNS): DrawdownSummary {
  const worst: DrawdownPeriod[] = [];
  let longestMs = 0;
  let peak: EquityPoint | undefined;
  let trough: EquityPoint | undefined;
  let lastT = 0;
  const close = (p: EquityPoint, low: EquityPoint, recovery: number | null, end: number): void => {
    const depth = p.equity - low.equity;
    const period: DrawdownPeriod = {
      start: p.t,
      trough: low.t,
      recovery,
      depth: roundStat(depth),
      depthPct: p.equity > 0 ? roundStat((depth / p.equity) * 100) : null,
      durationMs: end - p.t,
    };
    if (period.durationMs > longestMs) longestMs = period.durationMs;
    let i = worst.length;
    while (i > 0 && deeper(period, worst[i - 1] as DrawdownPeriod)) i--;
    if (i < keep) {
      worst.splice(i, 0, period);
      if (worst.length > keep) worst.pop();
    }
  };
  for (const q of curve) {
    lastT = q.t;
    if (peak === undefined || q.equity >= peak.equity) {
      if (peak !== undefined && trough !== undefined) close(peak, trough, q.t, q.t);
      peak = q;
      trough = undefined;
    } else if (trough === undefined || q.equity < trough.equity) trough = q;
  }
  if (peak !== undefined && trough !== undefined) close(peak, trough, null, lastT);
  return { worst, longestMs };
}
