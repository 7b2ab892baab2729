/**
 * The shape of a strategy's per-period returns: skewness, excess kurtosis and the historical
 * value at risk and expected shortfall at 95 %. Descriptive floats: they decide no order.
 */
import { MIN_RATIO_RETURNS, roundStat } from './metrics.js';

/** Share of the worst returns VaR and CVaR speak of (95 % confidence). */
export const VAR_TAIL = 0.05;

/** The distribution figures of per-period returns; each null with `note` when unavailable. */
export interface ReturnDistribution {
  /** Sample skewness (adjusted Fisher-Pearson, as pandas' `skew`): below 0, a longer left tail. */
  readonly skew: number | null;
  /** Sample excess kurtosis (as pandas' `kurt`): 0 for a normal distribution, above 0 fatter tails. */
  readonly kurtosis: number | null;
  /** 5th percentile of the returns (linear interpolation), percent; negative is a loss. */
  readonly var95Pct: number | null;
  /** Mean of the returns at or below that percentile, percent (expected shortfall). */
  readonly cvar95Pct: number | null;
  /** Why figures are null. */
  readonly note?: string;
}

/** Moves the k-th smallest of `xs` to index k, smaller ones before it, larger after (quickselect). */
function select(xs: Float64Array, k: number): void {
  let lo = 0;
  let hi = xs.length - 1;
  while (hi > lo) {
    const pivot = xs[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((xs[i] as number) < pivot) i++;
      while ((xs[j] as number) > pivot) j--;
      if (i <= j) {
        const t = xs[i] as number;
        xs[i++] = xs[j] as number;
        xs[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/**
 * The `q` quantile of `xs` by linear interpolation between order statistics (numpy's default),
 * by selection rather than a sort (a run's million returns need two order statistics, not an
 * order); `xs` is reordered.
 */
export function quantile(xs: Float64Array, q: number): number {
  const h = (xs.length - 1) * q;
  const lo = Math.floor(h);
  select(xs, lo);
  const a = xs[lo] as number;
  let b = a;
  if (lo + 1 < xs.length) {
    b = Infinity;
    for (let i = lo + 1; i < xs.length; i++) if ((xs[i] as number) < b) b = xs[i] as number;
  }
  return a + (h - lo) * (b - a);
}

/**
 * The rule: like Sharpe, the figures need at least MIN_RATIO_RETURNS returns; skew and kurtosis
 * also need variance (they divide by it). VaR and CVaR are historical: read off the returns as
 * they were, no normal distribution assumed, since crypto returns have fat tails.
 */
export function returnDistribution(returns: readonly number[]): ReturnDistribution {
  const n = returns.length;
  if (n < MIN_RATIO_RETURNS) {
    return { skew: null, kurtosis: null, var95Pct: null, cvar95Pct: null, note: `${n} returns, fewer than ${MIN_RATIO_RETURNS}` };
  }
  let sum = 0;
  for (const r of returns) sum += r;
  const m = sum / n;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (const r of returns) {
    const d = r - m;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  const v = quantile(Float64Array.from(returns), VAR_TAIL);
  let tail = 0;
  let k = 0;
  for (const r of returns) {
    if (r > v) continue;
    tail += r;
    k++;
  }
  const tails = { var95Pct: roundStat(v * 100), cvar95Pct: roundStat((tail / k) * 100) };
  const s2 = m2 / (n - 1);
  // Equal returns leave rounding residue in m2, not variance: a skew of it would be noise.
  if (Math.sqrt(s2) <= Math.abs(m) * 1e-12) return { skew: null, kurtosis: null, ...tails, note: 'returns have no variance' };
  const skew = ((n / ((n - 1) * (n - 2))) * m3) / Math.pow(s2, 1.5);
  const kurtosis = ((n * (n + 1)) / ((n - 1) * (n - 2) * (n - 3))) * (m4 / (s2 * s2)) - (3 * (n - 1) * (n - 1)) / ((n - 2) * (n - 3));
  return { skew: roundStat(skew), kurtosis: roundStat(kurtosis), ...tails };
}
