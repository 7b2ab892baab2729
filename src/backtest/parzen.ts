/**
 * Parzen estimators over the finite values of one sweep parameter, as the tree-structured Parzen
 * estimator (tpe.ts) needs them: the probability of each value under a mixture of kernels centred
 * on observed values plus a wide prior. Numeric values get truncated Gaussians in value space, each
 * value owning the cell between the midpoints to its neighbours (so a list such as 20, 40, 60, 90
 * is searched by value, not by position); other values get a categorical estimator. The bandwidth
 * and categorical rules follow Bergstra et al. (2011) as Optuna 3's univariate TPE applies them
 * (neighbour distances with the prior among the centres, the magic clip). Descriptive floats:
 * they choose which point runs next, never an order's price or quantity.
 */

/** Weight of the prior among the kernels (Optuna's `prior_weight`). */
export const PRIOR_WEIGHT = 1;

/** erf by Abramowitz and Stegun 7.1.26 (absolute error under 1.5e-7: enough to rank candidates). */
function erf(x: number): number {
  const s = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return s * y;
}

function cdf(x: number, mu: number, sigma: number): number {
  return 0.5 * (1 + erf((x - mu) / (sigma * Math.SQRT2)));
}

/**
 * Kernel weights of `n` observations, oldest first (Optuna's default_weights): equal up to 25;
 * beyond that the 25 newest weigh 1 and older ones ramp up from 1/n, so an early lucky trial
 * does not hold the search forever.
 */
export function observationWeights(n: number): number[] {
  if (n < 25) return Array.from({ length: n }, () => 1);
  const ramp = n - 25;
  return Array.from({ length: n }, (_, i) => (i < ramp ? 1 / n + ((1 - 1 / n) * i) / Math.max(1, ramp - 1) : 1));
}

/**
 * Probability of each of `values` (numbers ascending, distinct) under a mixture of Gaussians at
 * `observed` (values among them, oldest first) and a prior at the middle of the range, truncated to
 * the range and integrated over each value's cell.
 */
export function numericMasses(values: readonly number[], observed: readonly number[]): number[] {
  const k = values.length;
  if (k === 1) return [1];
  const first = values[0] as number;
  const last = values[k - 1] as number;
  // Cell bounds: midpoints, and half a neighbour gap beyond each end.
  const bounds = [first - ((values[1] as number) - first) / 2, ...values.slice(1).map((v, i) => (v + (values[i] as number)) / 2), last + (last - (values[k - 2] as number)) / 2];
  const lo = bounds[0] as number;
  const hi = bounds[k] as number;
  const mus = [...observed, (lo + hi) / 2];
  const weights = [...observationWeights(observed.length), PRIOR_WEIGHT];
  const sigmas = bandwidths(observed, lo, hi);
  const masses = new Array<number>(k).fill(0);
  const total = weights.reduce((a, w) => a + w, 0);
  mus.forEach((mu, i) => {
    const sigma = sigmas[i] as number;
    const z = cdf(hi, mu, sigma) - cdf(lo, mu, sigma);
    if (!(z > 0)) return;
    const w = (weights[i] as number) / total / z;
    for (let j = 0; j < k; j++) masses[j] = (masses[j] as number) + w * (cdf(bounds[j + 1] as number, mu, sigma) - cdf(bounds[j] as number, mu, sigma));
  });
  // The prior always carries mass (sigma = range), so no value has probability 0; normalised for rounding.
  const sum = masses.reduce((a, m) => a + m, 0);
  return masses.map((m) => (sum > 0 ? m / sum : 1 / k));
}

/**
 * Bandwidth of each kernel (observations in order, then the prior at the middle): the larger
 * distance to its neighbours among the sorted centres (the prior's included) and the range ends,
 * except that the outermost centres take the distance to their inner neighbour only; clipped to
 * [range / min(100, 1 + centres), range]. The prior's is the range.
 */
export function bandwidths(observed: readonly number[], lo: number, hi: number): number[] {
  const range = hi - lo;
  const mus = [...observed, (lo + hi) / 2];
  const n = mus.length;
  const order = mus.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v || a.i - b.i);
  const at = [lo, ...order.map((o) => o.v), hi];
  const gap = (r: number): number => (at[r] as number) - (at[r - 1] as number);
  const sorted = order.map((_, r) => Math.max(gap(r + 1), gap(r + 2)));
  if (at.length >= 4) {
    sorted[0] = gap(2);
    sorted[n - 1] = gap(n);
  }
  const min = range / Math.min(100, 1 + n);
  const out = new Array<number>(n).fill(range);
  order.forEach((o, r) => {
    out[o.i] = Math.min(range, Math.max(min, sorted[r] as number));
  });
  out[n - 1] = range;
  return out;
}

/**
 * Probability of each of `count` categories: a mixture of one kernel per observation (category
 * indices, oldest first, weighted as observationWeights) that puts 1 + v on its category and v on
 * every one (v = prior weight / (n + 1)), and a uniform prior.
 */
export function categoricalMasses(count: number, observed: readonly number[]): number[] {
  const weights = [...observationWeights(observed.length), PRIOR_WEIGHT];
  const total = weights.reduce((a, w) => a + w, 0);
  const v = PRIOR_WEIGHT / (observed.length + 1);
  const masses = new Array<number>(count).fill(PRIOR_WEIGHT / total / count);
  observed.forEach((c, i) => {
    const w = (weights[i] as number) / total / (count * v + 1);
    for (let j = 0; j < count; j++) masses[j] = (masses[j] as number) + w * (v + (j === c ? 1 : 0));
  });
  return masses;
}

/** An index drawn from `masses` (summing to 1) with a uniform draw `u` in [0, 1). */
export function drawIndex(masses: readonly number[], u: number): number {
  let acc = 0;
  for (let i = 0; i < masses.length; i++) {
    acc += masses[i] as number;
    if (u < acc) return i;
  }
  return masses.length - 1;
}
