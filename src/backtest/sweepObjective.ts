/**
 * What a sweep ranks its points by: a named metric of result.json (the strategy's figures, its
 * tearsheet or the shape of its returns) with a direction, and which points may win at all (a
 * minimum number of trades: a winner on six fills is luck, not a parameter). Points under the
 * minimum are listed with their figures but never ranked, chosen or counted as candidates.
 */
import type { BacktestResult, StrategyMetrics } from './result.js';

/** Where each metric an objective may name lives in result.json (per strategy). */
export const OBJECTIVE_METRICS = {
  netPnl: 'strategies',
  realizedPnl: 'strategies',
  finalEquity: 'strategies',
  fees: 'strategies',
  returnPct: 'strategies',
  maxDrawdownPct: 'strategies',
  sharpe: 'strategies',
  sortino: 'strategies',
  sharpePerPeriod: 'strategies',
  sortinoPerPeriod: 'strategies',
  turnoverRatio: 'strategies',
  fillRatio: 'strategies',
  qtyFillRatio: 'strategies',
  trades: 'strategies',
  roundTrips: 'tearsheet',
  winRatePct: 'tearsheet',
  profitFactor: 'tearsheet',
  expectancy: 'tearsheet',
  maxConsecutiveLosses: 'tearsheet',
  avgHoldingMs: 'tearsheet',
  exposurePct: 'tearsheet',
  cagrPct: 'tearsheet',
  calmar: 'tearsheet',
  longestDrawdownMs: 'tearsheet',
  buyHoldReturnPct: 'tearsheet',
  skew: 'returns',
  kurtosis: 'returns',
  var95Pct: 'returns',
  cvar95Pct: 'returns',
} as const;

/** A metric an objective may name. */
export type ObjectiveMetric = keyof typeof OBJECTIVE_METRICS;

/** Whether a larger or a smaller value of the metric is better. */
export const Direction = { MAX: 'max', MIN: 'min' } as const;
/** A direction. */
export type Direction = (typeof Direction)[keyof typeof Direction];

/** A sweep's objective: rank by `metric`, best first in `direction`. */
export interface Objective {
  readonly metric: ObjectiveMetric;
  readonly direction: Direction;
}

/** Whether `name` is a metric an objective may name. */
export function isObjectiveMetric(name: string): name is ObjectiveMetric {
  return Object.hasOwn(OBJECTIVE_METRICS, name);
}

/**
 * The figures of a run's tearsheet and return shape an objective may read, for one strategy: the
 * scalars only (what a sweep carries back per point, not the tables).
 */
export type TradeFigures = Readonly<Record<string, number | null>>;

/** The tearsheet scalars of `strategy` in a result (numbers; decimal strings as numbers: they rank, they decide no order). */
export function tradeFigures(result: Pick<BacktestResult, 'tearsheet'>, strategy: string): TradeFigures | undefined {
  const t = result.tearsheet[strategy];
  if (t === undefined) return undefined;
  const out: Record<string, number | null> = {};
  for (const [name, where] of Object.entries(OBJECTIVE_METRICS)) {
    const raw: unknown = where === 'tearsheet' ? (t as unknown as Record<string, unknown>)[name] : where === 'returns' ? (t.returns as unknown as Record<string, unknown>)[name] : undefined;
    if (where !== 'strategies') out[name] = toNumber(raw);
  }
  return out;
}

function toNumber(x: unknown): number | null {
  if (x === null || x === undefined) return null;
  const v = Number(x);
  // A figure that is no number cannot be ordered: unavailable, never a sort key NaN.
  return Number.isFinite(v) ? v : null;
}

/** The objective's metric as measured (not oriented); null when unavailable. */
export function objectiveFigure(o: Objective, m: StrategyMetrics | undefined, t: TradeFigures | undefined): number | null {
  if (OBJECTIVE_METRICS[o.metric] === 'strategies') return toNumber(m?.[o.metric as keyof StrategyMetrics]);
  return toNumber(t?.[o.metric]);
}

/** The figure oriented so that higher is better (what ranking compares); null stays null. */
export function orientedValue(o: Objective, figure: number | null): number | null {
  return figure === null ? null : o.direction === Direction.MIN ? -figure : figure;
}

/** The objective a grid's `rankBy` stands for: highest first, except a drawdown (lowest first). */
export function rankByObjective(rankBy: ObjectiveMetric): Objective {
  return { metric: rankBy, direction: rankBy === 'maxDrawdownPct' ? Direction.MIN : Direction.MAX };
}

/** The value `rankBy` ranks a point by (oriented: a drawdown negated); null when unavailable. */
export function rankValue(m: StrategyMetrics, by: ObjectiveMetric, t?: TradeFigures): number | null {
  const o = rankByObjective(by);
  return orientedValue(o, objectiveFigure(o, m, t));
}

/** The objective as text: `calmar (highest first)`. */
export function objectiveText(o: Objective): string {
  return `${o.metric} (${o.direction === Direction.MAX ? 'highest' : 'lowest'} first)`;
}

/** One point as ranking sees it. */
export interface RankCandidate {
  readonly index: number;
  readonly metrics: StrategyMetrics | undefined;
  readonly trade?: TradeFigures;
  readonly failed: boolean;
}

/** A candidate with its oriented value and, when it may not win, why. */
export type Ranked<C extends RankCandidate> = C & { readonly value: number | null; readonly excluded?: string };

/** Why a point may not win: fewer trades than `minTrades` (undefined: it may). */
export function exclusionOf(m: StrategyMetrics | undefined, minTrades: number | undefined): string | undefined {
  if (minTrades === undefined || m === undefined || m.trades >= minTrades) return undefined;
  return `${m.trades} trades, under minTrades ${minTrades}`;
}

/**
 * Candidates in rank order: the eligible ones by value (unavailable last, ties in grid order),
 * then those under the minimum trades (same order among them), then the failed ones.
 */
export function rankCandidates<C extends RankCandidate>(cs: readonly C[], o: Objective, minTrades: number | undefined): Ranked<C>[] {
  const tier = (c: Ranked<C>): number => (c.failed ? 2 : c.excluded !== undefined ? 1 : 0);
  return cs
    .map((c): Ranked<C> => {
      const excluded = c.failed ? undefined : exclusionOf(c.metrics, minTrades);
      const value = c.failed || c.metrics === undefined ? null : orientedValue(o, objectiveFigure(o, c.metrics, c.trade));
      return { ...c, value, ...(excluded !== undefined ? { excluded } : {}) };
    })
    .sort((a, b) => tier(a) - tier(b) || compareRank(a, b));
}

/**
 * Orders two points by their oriented values, highest first, unavailable ones last; ties
 * (including two unavailable) keep grid order, so a ranking is deterministic.
 */
export function compareRank(a: { value: number | null; index: number }, b: { value: number | null; index: number }): number {
  if (a.value === b.value) return a.index - b.index;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return b.value - a.value;
}
