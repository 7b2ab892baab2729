/**
 * How much a sweep's winner owes to luck, from each point's per-period returns:
 *
 * - The probability of backtest overfitting by combinatorially symmetric cross-validation (Bailey,
 *   Borwein, López de Prado and Zhu, 2015): the run is cut into S equal slices; for every way of
 *   taking half of them as the in-sample set, the point best in sample is ranked among all points
 *   on the other half; PBO is the share of those splits where it ranks in the lower half there.
 * - The deflated Sharpe ratio (Bailey and López de Prado, 2014): the probability that the best
 *   point's true Sharpe ratio is above zero, after the expected maximum Sharpe ratio of as many
 *   trials of pure noise (the more points tried, the higher the bar) and the non-normality (skew,
 *   kurtosis) and length of its returns.
 * - Spearman's rank correlation between two rankings (in and out of sample).
 *
 * Descriptive floats over the equity's doubles: nothing here decides an order. A point enters as
 * the moments of its returns per slice, so a sweep moves a few numbers per point, not its curve.
 */

/** Sums of a sample's powers: count, sum, sum of squares, cubes and fourth powers. */
export interface Moments {
  readonly n: number;
  readonly s1: number;
  readonly s2: number;
  readonly s3: number;
  readonly s4: number;
}

/** The moments of no observation. */
export const NO_MOMENTS: Moments = { n: 0, s1: 0, s2: 0, s3: 0, s4: 0 };

/** The moments of `xs`. */
export function momentsOf(xs: Iterable<number>): Moments {
  let n = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  for (const x of xs) {
    const x2 = x * x;
    n++;
    s1 += x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
  }
  return { n, s1, s2, s3, s4 };
}

/** The moments of two samples together. */
export function addMoments(a: Moments, b: Moments): Moments {
  return { n: a.n + b.n, s1: a.s1 + b.s1, s2: a.s2 + b.s2, s3: a.s3 + b.s3, s4: a.s4 + b.s4 };
}

/** Mean over sample standard deviation; undefined with fewer than two returns or none varying. */
export function sharpeOf(m: Moments): number | undefined {
  if (m.n < 2) return undefined;
  const mean = m.s1 / m.n;
  const variance = (m.s2 - m.n * mean * mean) / (m.n - 1);
  return variance > 0 ? mean / Math.sqrt(variance) : undefined;
}

/** Skewness and (non-excess: 3 for a normal) kurtosis of a sample, population formulas; undefined without variance. */
export function shapeOf(m: Moments): { skew: number; kurtosis: number } | undefined {
  if (m.n < 2) return undefined;
  const mu = m.s1 / m.n;
  const m2 = m.s2 / m.n - mu * mu;
  if (!(m2 > 0)) return undefined;
  const m3 = m.s3 / m.n - 3 * mu * (m.s2 / m.n) + 2 * mu ** 3;
  const m4 = m.s4 / m.n - 4 * mu * (m.s3 / m.n) + 6 * mu * mu * (m.s2 / m.n) - 3 * mu ** 4;
  return { skew: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2) };
}

/** The standard normal distribution function, from the complementary error function below. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** The complementary error function, by the continued fraction for large |x| and the series for small. */
function erfc(x: number): number {
  const z = Math.abs(x);
  let r: number;
  if (z < 2.5) {
    // erf by its Maclaurin series (converges fast for |x| < 2.5).
    let term = z;
    let sum = z;
    for (let k = 1; k < 200; k++) {
      term *= (-z * z) / k;
      const add = term / (2 * k + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    r = 1 - (2 / Math.sqrt(Math.PI)) * sum;
  } else {
    // Lentz's continued fraction of erfc.
    let f = z;
    let c = z;
    let d = 0;
    for (let k = 1; k < 300; k++) {
      const a = k / 2;
      d = z + a * d;
      d = d === 0 ? 1e-300 : 1 / d;
      c = z + a / c;
      if (c === 0) c = 1e-300;
      const delta = c * d;
      f *= delta;
      if (Math.abs(delta - 1) < 1e-16) break;
    }
    r = Math.exp(-z * z) / (f * Math.sqrt(Math.PI));
  }
  return x < 0 ? 2 - r : r;
}

/** The standard normal quantile (P. J. Acklam's rational approximation refined by one Halley step). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  let x: number;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - lo) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  // One Halley step on the exact distribution function brings it to double precision.
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

const EULER_GAMMA = 0.5772156649015329;

/** The expected maximum Sharpe ratio of `trials` independent trials of zero true Sharpe whose estimates vary with `variance`. */
export function expectedMaxSharpe(variance: number, trials: number): number {
  if (trials < 2 || !(variance > 0)) return 0;
  return Math.sqrt(variance) * ((1 - EULER_GAMMA) * normalQuantile(1 - 1 / trials) + EULER_GAMMA * normalQuantile(1 - 1 / (trials * Math.E)));
}

/** Inputs of {@link deflatedSharpe}, all per period (not annualised). */
export interface DeflatedSharpeInput {
  /** The selected (best) point's Sharpe ratio. */
  readonly sharpe: number;
  /** Variance of the Sharpe ratios of all points tried. */
  readonly sharpeVariance: number;
  readonly trials: number;
  /** Returns the selected point's Sharpe ratio was measured on. */
  readonly observations: number;
  readonly skew: number;
  /** Non-excess kurtosis (3 for normal returns). */
  readonly kurtosis: number;
}

/** The deflated Sharpe ratio (a probability) and the Sharpe ratio a point had to beat (SR0). */
export function deflatedSharpe(i: DeflatedSharpeInput): { dsr: number; benchmark: number } {
  const benchmark = expectedMaxSharpe(i.sharpeVariance, i.trials);
  const denom = 1 - i.skew * i.sharpe + ((i.kurtosis - 1) / 4) * i.sharpe * i.sharpe;
  const z = ((i.sharpe - benchmark) * Math.sqrt(Math.max(0, i.observations - 1))) / Math.sqrt(Math.max(denom, 1e-12));
  return { dsr: normalCdf(z), benchmark };
}

/** Every way of choosing k of 0..n-1, in lexicographic order. */
export function* combinations(n: number, k: number): Generator<number[]> {
  const idx = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    yield [...idx];
    let i = k - 1;
    while (i >= 0 && idx[i] === n - k + i) i--;
    if (i < 0) return;
    idx[i] = (idx[i] as number) + 1;
    for (let j = i + 1; j < k; j++) idx[j] = (idx[j - 1] as number) + 1;
  }
}

/** The result of {@link probabilityOfOverfitting}. */
export interface PboResult {
  /** Share of the splits where the in-sample best ranks in the lower half out of sample. */
  readonly pbo: number;
  /** Number of splits (S choose S/2). */
  readonly splits: number;
  /** Median over splits of the logit of the in-sample best's relative rank out of sample (below 0: worse than the median point). */
  readonly medianLogit: number;
}

/**
 * PBO by combinatorially symmetric cross-validation over `chunks[point][slice]` (S slices, S even):
 * performance is the Sharpe ratio of a point's returns over a set of slices. Points without a
 * Sharpe ratio on a set count as the worst there. Undefined with fewer than two points or slices.
 */
export function probabilityOfOverfitting(chunks: readonly (readonly Moments[])[]): PboResult | undefined {
  const n = chunks.length;
  const s = chunks[0]?.length ?? 0;
  if (n < 2 || s < 2 || s % 2 !== 0 || chunks.some((c) => c.length !== s)) return undefined;
  const perf = (point: number, slices: readonly number[]): number => {
    let m = NO_MOMENTS;
    for (const j of slices) m = addMoments(m, chunks[point]?.[j] ?? NO_MOMENTS);
    return sharpeOf(m) ?? -Infinity;
  };
  const logits: number[] = [];
  let below = 0;
  for (const train of combinations(s, s / 2)) {
    const inTrain = new Set(train);
    const test = Array.from({ length: s }, (_, j) => j).filter((j) => !inTrain.has(j));
    let best = 0;
    let bestPerf = -Infinity;
    for (let p = 0; p < n; p++) {
      const v = perf(p, train);
      if (v > bestPerf) {
        bestPerf = v;
        best = p;
      }
    }
    const oos = Array.from({ length: n }, (_, p) => perf(p, test));
    const mine = oos[best] as number;
    // Rank 1..n of the best's out-of-sample figure (ties share the mean rank), relative to n + 1.
    let lower = 0;
    let equal = 0;
    for (const v of oos) {
      if (v < mine) lower++;
      else if (v === mine) equal++;
    }
    const omega = (lower + (equal + 1) / 2) / (n + 1);
    const logit = Math.log(omega / (1 - omega));
    logits.push(logit);
    if (logit <= 0) below++;
  }
  logits.sort((a, b) => a - b);
  const mid = logits.length / 2;
  const medianLogit = logits.length % 2 === 1 ? (logits[Math.floor(mid)] as number) : ((logits[mid - 1] as number) + (logits[mid] as number)) / 2;
  return { pbo: below / logits.length, splits: logits.length, medianLogit };
}

/** Spearman's rank correlation of two equally long lists (ties get their mean rank); undefined under two pairs or with a constant list. */
export function spearman(a: readonly number[], b: readonly number[]): number | undefined {
  if (a.length !== b.length || a.length < 2) return undefined;
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const mean = (n + 1) / 2;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    const x = (ra[i] as number) - mean;
    const y = (rb[i] as number) - mean;
    cov += x * y;
    va += x * x;
    vb += y * y;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : undefined;
}

function ranks(xs: readonly number[]): number[] {
  const order = xs.map((v, i) => ({ v, i })).sort((p, q) => p.v - q.v);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.v === order[i]?.v) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) out[(order[k] as { i: number }).i] = r;
    i = j + 1;
  }
  return out;
}
