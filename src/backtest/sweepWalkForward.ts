/**
 * Walk-forward analysis of a sweep: for each of N consecutive out-of-sample windows, every grid
 * point runs on the in-sample data before the window (a rolling look-back, or anchored at the
 * data's start), the best by the sweep's objective is chosen, and only that point runs on the
 * window. The out-of-sample figures are what choosing parameters this way would have earned on
 * data it never saw; stitched, they are the strategy's walk-forward record.
 */
import { Decimal } from '../core/decimal.js';
import { timeBoundMs } from '../config/timeBound.js';
import type { BacktestConfig } from './config.js';
import { failureText } from './failureText.js';
import type { StrategyMetrics } from './result.js';
import { gridObjective, type SweepGrid } from './sweepGrid.js';
import type { JobRunner, SweepAnswer, SweepFigures, SweepJob } from './sweepJob.js';
import { objectiveFigure, rankCandidates, type Objective } from './sweepObjective.js';
import { CURVE_POINTS, type CurvePoint } from './equityCurve.js';
import { annualisedPct, efficiency, overallEfficiency, stitchCurves } from './walkForwardEfficiency.js';

/** One window: its two spans (inclusive ms), the point chosen in sample and its figures on both. */
export interface WalkForwardWindow {
  readonly window: number;
  /** In-sample span; no start when anchored (the data's start). */
  readonly inSample: { readonly start?: number; readonly end: number };
  readonly outOfSample: { readonly start: number; readonly end: number };
  /** The best point in sample; absent when every point failed there. */
  readonly params?: Record<string, unknown>;
  readonly inSampleMetrics?: StrategyMetrics;
  readonly outOfSampleMetrics?: StrategyMetrics;
  /** The objective's metric of the chosen point in sample and out of sample (like with like); null when unavailable. */
  readonly inSampleObjective?: number | null;
  readonly outOfSampleObjective?: number | null;
  /** The chosen point's return annualised (simply: walkForwardEfficiency.ts) in and out of sample, percent. */
  readonly inSampleAnnualPct?: number | null;
  readonly outOfSampleAnnualPct?: number | null;
  /** Out-of-sample over in-sample annualised return; null when the in-sample one is not above 0. */
  readonly efficiency?: number | null;
  /** Why the window has no figures (every point failed in sample, or the chosen point failed out of sample). */
  readonly error?: string;
}

/** The stitched out-of-sample record: the windows' figures added (each window starts from the configured budget). */
export interface WalkForwardTotals {
  readonly windows: number;
  readonly netPnl: string;
  readonly fees: string;
  readonly trades: number;
  /** The windows' returns compounded, in %. */
  readonly returnPct: number;
  /** Windows whose out-of-sample netPnl is above 0. */
  readonly profitableWindows: number;
  /** Walk-forward efficiency of all windows: their out-of-sample annualised returns summed over their in-sample ones. */
  readonly efficiency: number | null;
}

/** The walk-forward part of a sweep's result. */
export interface WalkForwardResult {
  readonly rankBy: string;
  readonly objective: Objective;
  readonly anchored: boolean;
  readonly windows: readonly WalkForwardWindow[];
  readonly outOfSample: WalkForwardTotals;
  /** The windows' out-of-sample equity one after another, each starting where the last ended (thinned per window). */
  readonly stitchedEquity: readonly CurvePoint[];
}

type Spans = Pick<WalkForwardWindow, 'window' | 'inSample' | 'outOfSample'>;

/** The windows of a walk-forward spec, checked against the config's own start and end (errors name the field). */
export function walkForwardSpans(wf: NonNullable<SweepGrid['walkForward']>, cfg: BacktestConfig, gridFile = 'grid'): Spans[] {
  const first = timeBoundMs(wf.start);
  const spans = Array.from({ length: wf.windows }, (_, k) => {
    const start = first + k * wf.outOfSample;
    return { window: k + 1, inSample: { ...(wf.inSample === 'anchored' ? {} : { start: start - wf.inSample }), end: start - 1 }, outOfSample: { start, end: start + wf.outOfSample - 1 } };
  });
  const own = { start: cfg.backtest.start === undefined ? undefined : timeBoundMs(cfg.backtest.start), end: cfg.backtest.end === undefined ? undefined : timeBoundMs(cfg.backtest.end) };
  const last = spans[spans.length - 1] as Spans;
  const firstIn = (spans[0] as Spans).inSample.start ?? first;
  if (own.start !== undefined && firstIn < own.start) throw new RangeError(`${gridFile}: walkForward.start=${JSON.stringify(wf.start)}: the first in-sample window starts at ${new Date(firstIn).toISOString()}, before backtest.start of ${cfg.file} (${new Date(own.start).toISOString()})`);
  if (own.end !== undefined && last.outOfSample.end > own.end) throw new RangeError(`${gridFile}: walkForward.windows=${wf.windows}: the last out-of-sample window ends at ${new Date(last.outOfSample.end).toISOString()}, after backtest.end of ${cfg.file} (${new Date(own.end).toISOString()})`);
  return spans;
}

function resultOf(a: SweepAnswer | undefined): { result?: SweepFigures; error?: string } {
  if (a === undefined) return { error: 'no answer' };
  if (!a.ok) return { error: a.error };
  const result = JSON.parse(a.result) as SweepFigures;
  return result.failures.length > 0 ? { result, error: result.failures.map(failureText).join('; ') } : { result };
}

/** Runs the walk-forward: every point on each in-sample span, then each window's best point on its window. */
export async function runWalkForward(
  cfg: BacktestConfig,
  grid: SweepGrid,
  strategy: string,
  points: readonly Record<string, unknown>[],
  opts: { gridFile?: string; run: JobRunner; onDone?: (done: number, total: number) => void },
): Promise<WalkForwardResult> {
  const wf = grid.walkForward;
  if (wf === undefined) throw new RangeError('the grid has no walkForward');
  const spans = walkForwardSpans(wf, cfg, opts.gridFile);
  const total = spans.length * (points.length + 1);
  let before = 0;
  const progress = (done: number): void => opts.onDone?.(before + done, total);
  const inJobs: SweepJob[] = spans.flatMap((s, k) => points.map((params, p) => ({ index: k * points.length + p, configFile: cfg.file, strategy, params, window: s.inSample })));
  const inAnswers = await opts.run(inJobs, progress);
  before = inJobs.length;
  const objective = gridObjective(grid);
  const chosen = spans.map((_, k) => {
    const ranked = rankCandidates(
      points.map((params, index) => {
        const r = resultOf(inAnswers[k * points.length + index]);
        const metrics = r.result?.strategies[strategy];
        return { index, params, metrics, ...(r.result?.trade !== undefined ? { trade: r.result.trade } : {}), failed: r.error !== undefined || metrics === undefined, error: r.error };
      }),
      objective,
      grid.minTrades,
    );
    const best = ranked[0];
    if (best !== undefined && !best.failed && best.excluded === undefined) return best;
    return { error: best?.excluded !== undefined ? `no point reached minTrades in sample, e.g. ${best.excluded}` : `every point failed in sample, e.g. ${best?.error ?? 'no answer'}` };
  });
  const outJobs: SweepJob[] = [];
  chosen.forEach((c, k) => {
    if ('params' in c) outJobs.push({ index: outJobs.length, configFile: cfg.file, strategy, params: c.params, window: (spans[k] as Spans).outOfSample, curve: CURVE_POINTS });
  });
  const outAnswers = await opts.run(outJobs, progress);
  let j = 0;
  const curves: (readonly CurvePoint[] | undefined)[] = [];
  const windows = spans.map((s, k): WalkForwardWindow => {
    const c = chosen[k];
    if (c === undefined || !('params' in c)) return { ...s, error: c?.error ?? 'no answer' };
    const r = resultOf(outAnswers[j++]);
    const m = r.result?.strategies[strategy];
    curves.push(r.result?.curve);
    const isPct = c.metrics === undefined ? null : annualisedPct(c.metrics.returnPct, c.metrics.ratioSample.spanMs);
    const oosPct = m === undefined ? null : annualisedPct(m.returnPct, m.ratioSample.spanMs);
    const figures = { inSampleObjective: objectiveFigure(objective, c.metrics, c.trade), outOfSampleObjective: m === undefined ? null : objectiveFigure(objective, m, r.result?.trade), inSampleAnnualPct: isPct, outOfSampleAnnualPct: oosPct, efficiency: efficiency(isPct, oosPct) };
    return { ...s, params: c.params, ...(c.metrics !== undefined ? { inSampleMetrics: c.metrics } : {}), ...(m !== undefined ? { outOfSampleMetrics: m } : {}), ...figures, ...(r.error !== undefined ? { error: r.error } : {}) };
  });
  return { rankBy: objective.metric, objective, anchored: wf.inSample === 'anchored', windows, outOfSample: stitch(windows), stitchedEquity: stitchCurves(curves) };
}

/** Adds up the windows' out-of-sample figures (exact decimals for money). */
export function stitch(windows: readonly WalkForwardWindow[]): WalkForwardTotals {
  let netPnl = new Decimal(0);
  let fees = new Decimal(0);
  let trades = 0;
  let growth = 1;
  let profitable = 0;
  let n = 0;
  for (const w of windows) {
    const m = w.outOfSampleMetrics;
    if (m === undefined) continue;
    n++;
    netPnl = netPnl.plus(m.netPnl);
    fees = fees.plus(m.fees);
    trades += m.trades;
    growth *= 1 + m.returnPct / 100;
    if (new Decimal(m.netPnl).gt(0)) profitable++;
  }
  const eff = overallEfficiency(windows.map((w) => ({ inSamplePct: w.inSampleAnnualPct ?? null, outOfSamplePct: w.outOfSampleAnnualPct ?? null })));
  return { windows: n, netPnl: netPnl.toFixed(), fees: fees.toFixed(), trades, returnPct: Number(((growth - 1) * 100).toFixed(10)), profitableWindows: profitable, efficiency: eff };
}
