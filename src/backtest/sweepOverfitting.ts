/**
 * A sweep's overfitting figures (overfitting.ts) from its points: the probability of backtest
 * overfitting over their returns per slice, the deflated Sharpe ratio of the point ranked first,
 * and with an out-of-sample split, how the ranking held up there. Each comes with a sentence on
 * how to read it, written into sweep.md, sweep.json and sweep.html.
 */
import { addMoments, deflatedSharpe, NO_MOMENTS, probabilityOfOverfitting, shapeOf, sharpeOf, spearman, type Moments, type PboResult } from './overfitting.js';

/** One point as the figures read it. */
export interface OverfittingPoint {
  readonly index: number;
  /** Its in-sample returns per slice (returnSlices.ts); undefined when its run failed. */
  readonly slices: readonly Moments[] | undefined;
  /** Its ranking figure in sample and out of sample (null: unavailable). */
  readonly inSample: number | null;
  readonly outOfSample?: number | null;
}

/** The figures, each undefined with the reason in `notes` when it cannot be had. */
export interface SweepOverfitting {
  /** Points whose returns entered. */
  readonly points: number;
  readonly pbo?: PboResult;
  readonly deflatedSharpe?: {
    readonly index: number;
    readonly dsr: number;
    /** The point's Sharpe ratio per equity period, and the bar pure noise would clear after this many trials. */
    readonly sharpePerPeriod: number;
    readonly benchmark: number;
    readonly trials: number;
    readonly observations: number;
    readonly skew: number;
    readonly kurtosis: number;
  };
  /** Spearman's rank correlation of the ranking figure in and out of sample. */
  readonly rankCorrelation?: number;
  /** Mean ranking figure in and out of sample over the points that have both. */
  readonly degradation?: { readonly meanInSample: number; readonly meanOutOfSample: number; readonly points: number };
  readonly notes: readonly string[];
}

/** The overfitting figures of a sweep whose first-ranked point is `best` (a point index). */
export function sweepOverfitting(points: readonly OverfittingPoint[], best: number | undefined): SweepOverfitting {
  const notes: string[] = [];
  const withReturns = points.filter((p): p is OverfittingPoint & { slices: readonly Moments[] } => p.slices !== undefined);
  const pbo = probabilityOfOverfitting(withReturns.map((p) => p.slices));
  if (pbo === undefined) notes.push('PBO: needs at least two points with returns');
  const sharpes = withReturns.map((p) => ({ p, all: p.slices.reduce(addMoments, NO_MOMENTS) })).map((x) => ({ ...x, sr: sharpeOf(x.all) }));
  const known = sharpes.filter((x): x is typeof x & { sr: number } => x.sr !== undefined);
  const chosen = known.find((x) => x.p.index === best);
  let dsr: SweepOverfitting['deflatedSharpe'];
  const shape = chosen === undefined ? undefined : shapeOf(chosen.all);
  if (chosen === undefined || shape === undefined || known.length < 2) notes.push('DSR: needs the first-ranked point and one more with a Sharpe ratio');
  else {
    const mean = known.reduce((a, x) => a + x.sr, 0) / known.length;
    const variance = known.reduce((a, x) => a + (x.sr - mean) ** 2, 0) / (known.length - 1);
    const r = deflatedSharpe({ sharpe: chosen.sr, sharpeVariance: variance, trials: known.length, observations: chosen.all.n, skew: shape.skew, kurtosis: shape.kurtosis });
    dsr = { index: chosen.p.index, dsr: r.dsr, sharpePerPeriod: chosen.sr, benchmark: r.benchmark, trials: known.length, observations: chosen.all.n, skew: shape.skew, kurtosis: shape.kurtosis };
  }
  const both = points.filter((p): p is OverfittingPoint & { inSample: number; outOfSample: number } => p.inSample !== null && p.outOfSample !== undefined && p.outOfSample !== null);
  const rankCorrelation = spearman(
    both.map((p) => p.inSample),
    both.map((p) => p.outOfSample),
  );
  const degradation = both.length === 0 ? undefined : { meanInSample: both.reduce((a, p) => a + p.inSample, 0) / both.length, meanOutOfSample: both.reduce((a, p) => a + p.outOfSample, 0) / both.length, points: both.length };
  return { points: withReturns.length, ...(pbo !== undefined ? { pbo } : {}), ...(dsr !== undefined ? { deflatedSharpe: dsr } : {}), ...(rankCorrelation !== undefined ? { rankCorrelation } : {}), ...(degradation !== undefined ? { degradation } : {}), notes };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const num = (x: number): string => (Math.abs(x) >= 1e-3 || x === 0 ? x.toFixed(4) : x.toExponential(3));

/** The figures as Markdown lines, each with how to read it. */
export function overfittingText(o: SweepOverfitting, rankBy: string): string {
  const lines = [`\nOverfitting (${o.points} points with returns):\n`];
  if (o.pbo !== undefined) {
    lines.push(
      `- Probability of backtest overfitting (CSCV, ${o.pbo.splits} splits of 16 slices): ${pct(o.pbo.pbo)}; median logit ${num(o.pbo.medianLogit)}. How often the point best on half of the run ranks below the median point on the other half: near 0 the ranking carries over, near 50 % or above the winner is as good as a random pick.`,
    );
  }
  const d = o.deflatedSharpe;
  if (d !== undefined) {
    lines.push(
      `- Deflated Sharpe ratio of the first-ranked point (#${d.index}): ${pct(d.dsr)} (Sharpe per period ${num(d.sharpePerPeriod)} against ${num(d.benchmark)}, the best pure noise reaches in ${d.trials} trials; ${d.observations} returns, skew ${num(d.skew)}, kurtosis ${num(d.kurtosis)}). The probability that its true Sharpe ratio is above zero once the number of points tried is paid for: below 95 % the result is not significant.`,
    );
  }
  if (o.rankCorrelation !== undefined) lines.push(`- Rank correlation of ${rankBy} in and out of sample (Spearman): ${num(o.rankCorrelation)}. Near 1 the in-sample order holds later; near 0 or below it does not.`);
  if (o.degradation !== undefined) lines.push(`- Mean ${rankBy}: ${num(o.degradation.meanInSample)} in sample, ${num(o.degradation.meanOutOfSample)} out of sample (${o.degradation.points} points): how much of the in-sample figure held out of sample.`);
  for (const n of o.notes) lines.push(`- ${n}.`);
  return `${lines.join('\n')}\n`;
}
