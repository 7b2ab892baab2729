/**
 * The Sharpe ratio over a rolling window of a strategy's per-period equity returns: whether the
 * edge held through the run or came from one stretch of it. The window is a tenth of the returns,
 * and at least MIN_RATIO_RETURNS (fewer estimate nothing a trader should read); the figure is per
 * period, like `sharpePerPeriod` (annualising a window shorter than a day would extrapolate).
 * Only returns between samples exactly one interval apart count, as for the run's own ratio.
 * Running sums, one pass, floats: it decides no order.
 */
import { MIN_RATIO_RETURNS, roundStat, type EquityPoint } from './metrics.js';

/** Points of the series kept in result.json (every k-th window end). */
export const ROLLING_POINTS = 200;

/** The rolling Sharpe ratio of one strategy. */
export interface RollingSharpe {
  /** Returns per window, and the time they span (ms). */
  readonly windowReturns: number;
  readonly windowMs: number;
  /** Per-period Sharpe of the window ending at t (null: no variance in it), thinned to at most ROLLING_POINTS. */
  readonly points: readonly { readonly t: number; readonly v: number | null }[];
  /** Lowest and highest over every window (not only the points kept); null without windows. */
  readonly min: number | null;
  readonly max: number | null;
  /** Why there is no series. */
  readonly note?: string;
}

/**
 * The rolling Sharpe of an equity curve sampled every `intervalMs`, from its per-period returns as
 * periodReturns(curve, intervalMs) gives them (the run's ratios already have them: no second
 * array). The curve is read once more, without storing it, for the times of the points kept.
 */
export function rollingSharpe(rets: readonly number[], curve: Iterable<EquityPoint>, intervalMs: number): RollingSharpe {
  const w = Math.max(MIN_RATIO_RETURNS, Math.floor(rets.length / 10));
  if (rets.length < w) return { windowReturns: w, windowMs: w * intervalMs, points: [], min: null, max: null, note: `${rets.length} returns, fewer than one window of ${w}` };
  const step = Math.max(1, Math.ceil((rets.length - w + 1) / ROLLING_POINTS));
  const kept: { i: number; v: number | null }[] = [];
  let sum = 0;
  let sq = 0;
  let min: number | null = null;
  let max: number | null = null;
  for (let i = 0; i < rets.length; i++) {
    const r = rets[i] as number;
    sum += r;
    sq += r * r;
    if (i >= w) {
      const old = rets[i - w] as number;
      sum -= old;
      sq -= old * old;
    }
    if (i < w - 1) continue;
    const mean = sum / w;
    // Sample variance from running sums; a window of equal returns can leave a tiny negative by rounding.
    const variance = (sq - w * mean * mean) / (w - 1);
    const v = variance > 1e-30 ? roundStat(mean / Math.sqrt(variance)) : null;
    if (v !== null) {
      min = min === null ? v : Math.min(min, v);
      max = max === null ? v : Math.max(max, v);
    }
    if ((i - (w - 1)) % step === 0 || i === rets.length - 1) kept.push({ i, v });
  }
  return { windowReturns: w, windowMs: w * intervalMs, points: withTimes(kept, curve, intervalMs), min, max };
}

/** The time each kept return ends at: the curve read again, counting its returns as periodReturns does. */
function withTimes(kept: readonly { i: number; v: number | null }[], curve: Iterable<EquityPoint>, intervalMs: number): { t: number; v: number | null }[] {
  const out: { t: number; v: number | null }[] = [];
  let k = 0;
  let n = 0;
  let a: EquityPoint | undefined;
  for (const b of curve) {
    if (k >= kept.length) break;
    if (a !== undefined && b.t - a.t === intervalMs && a.equity > 0) {
      const want = kept[k] as { i: number; v: number | null };
      if (n === want.i) {
        out.push({ t: b.t, v: want.v });
        k++;
      }
      n++;
    }
    a = b;
  }
  return out;
}
