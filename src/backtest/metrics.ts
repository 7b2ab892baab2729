/**
 * Pure performance statistics over an equity curve. Statistics (Sharpe, Sortino, drawdown
 * fraction) are descriptive floats: they never decide an order, so binary floats are fine here.
 */

/** One sample of the equity curve: virtual time (ms) and equity in quote currency. */
export interface EquityPoint {
  readonly t: number;
  readonly equity: number;
}

/**
 * Simple period returns of an equity curve; periods starting at equity <= 0 are skipped (undefined
 * ratio). With `intervalMs`, only pairs of samples exactly one interval apart count: the final
 * sample a collector takes at the end of a run closes a shorter period, which is not one of the
 * periods the per-period figures speak of.
 */
export function periodReturns(curve: Iterable<EquityPoint>, intervalMs?: number): number[] {
  const out: number[] = [];
  let a: EquityPoint | undefined;
  for (const b of curve) {
    if (a !== undefined && (intervalMs === undefined || b.t - a.t === intervalMs) && a.equity > 0) out.push(b.equity / a.equity - 1);
    a = b;
  }
  return out;
}

/** Largest peak-to-trough fall, in quote currency and as a fraction of the peak. */
export function maxDrawdown(curve: Iterable<EquityPoint>): { abs: number; pct: number } {
  let peak = -Infinity;
  let abs = 0;
  let pct = 0;
  for (const p of curve) {
    if (p.equity > peak) peak = p.equity;
    const dd = peak - p.equity;
    if (dd > abs) abs = dd;
    if (peak > 0 && dd / peak > pct) pct = dd / peak;
  }
  return { abs, pct };
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length === 0 ? 0 : s / xs.length;
}

/**
 * Sharpe ratio per period (risk-free rate 0): mean / sample standard deviation of the period
 * returns. null when it cannot be estimated: fewer than two returns, or no variance (the ratio is
 * undefined, not 0).
 */
export function sharpe(returns: readonly number[]): number | null {
  if (returns.length < 2) return null;
  const m = mean(returns);
  let v = 0;
  for (const r of returns) v += (r - m) * (r - m);
  const sd = Math.sqrt(v / (returns.length - 1));
  return sd === 0 ? null : m / sd;
}

/**
 * Sortino ratio per period (target 0): mean return over downside deviation, where downside
 * deviation is sqrt(mean(min(r, 0)^2)) over all periods. null when fewer than two returns or no
 * period lost money (no downside to divide by).
 */
export function sortino(returns: readonly number[]): number | null {
  if (returns.length < 2) return null;
  let dn = 0;
  for (const r of returns) if (r < 0) dn += r * r;
  const dd = Math.sqrt(dn / returns.length);
  return dd === 0 ? null : mean(returns) / dd;
}

/** Fewest period returns from which Sharpe and Sortino are reported at all. */
export const MIN_RATIO_RETURNS = 30;

/** Shortest span of returns (ms) whose ratios are annualised: one day. */
export const MIN_ANNUALISED_SPAN_MS = 86_400_000;

/** The four ratio figures of a result. */
export const RATIO_FIELDS = ['sharpePerPeriod', 'sortinoPerPeriod', 'sharpe', 'sortino'] as const;

/** One of {@link RATIO_FIELDS}. */
export type RatioField = (typeof RATIO_FIELDS)[number];

/** Sharpe and Sortino of an equity curve, per period and annualised, with what they rest on. */
export interface RiskRatios {
  /** Per sampling period; null when unavailable (see `notes`). */
  readonly sharpePerPeriod: number | null;
  readonly sortinoPerPeriod: number | null;
  /** Annualised (365-day year); null when unavailable (see `notes`). */
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** The returns the figures come from: how many, the period, and the time they span. */
  readonly sample: { readonly returns: number; readonly intervalMs: number; readonly spanMs: number };
  /** Why each unavailable figure is null, in RATIO_FIELDS order; only unavailable ones appear. */
  readonly notes: Readonly<Partial<Record<RatioField, string>>>;
}

/** A span in ms as short text ("10m 0s", "2d 3h"), for the reasons a figure is unavailable. */
export function spanText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return s > 0 ? `${s}s` : `${ms} ms`;
}

/**
 * The rule: per-period Sharpe and Sortino need at least MIN_RATIO_RETURNS returns between samples
 * one interval apart (fewer estimate nothing a trader should read) and a defined ratio (variance;
 * a losing period for Sortino). The annualised figure is the per-period one times
 * sqrt(periods per 365-day year), and only when the returns span at least a day: scaling ten
 * minutes of returns by sqrt(52,560) is an extrapolation, not a yearly figure. An unavailable
 * figure is null with its reason, never 0, which would read as a measured value.
 */
export function riskRatios(curve: Iterable<EquityPoint>, intervalMs: number): RiskRatios {
  const rets = periodReturns(curve, intervalMs);
  const spanMs = rets.length * intervalMs;
  const notes: Partial<Record<RatioField, string>> = {};
  let sp: number | null = null;
  let so: number | null = null;
  if (rets.length < MIN_RATIO_RETURNS) {
    const why = `${rets.length} returns, fewer than ${MIN_RATIO_RETURNS}`;
    notes.sharpePerPeriod = why;
    notes.sortinoPerPeriod = why;
  } else {
    sp = sharpe(rets);
    so = sortino(rets);
    if (sp === null) notes.sharpePerPeriod = 'returns have no variance';
    if (so === null) notes.sortinoPerPeriod = 'no period lost money';
  }
  const annualise = spanMs >= MIN_ANNUALISED_SPAN_MS;
  const scale = Math.sqrt(periodsPerYear(intervalMs));
  const short = `returns span ${spanText(spanMs)}, under a day: not annualised`;
  if (sp === null || !annualise) notes.sharpe = sp === null ? (notes.sharpePerPeriod as string) : short;
  if (so === null || !annualise) notes.sortino = so === null ? (notes.sortinoPerPeriod as string) : short;
  return {
    sharpePerPeriod: sp === null ? null : roundStat(sp),
    sortinoPerPeriod: so === null ? null : roundStat(so),
    sharpe: sp === null || !annualise ? null : roundStat(sp * scale),
    sortino: so === null || !annualise ? null : roundStat(so * scale),
    sample: { returns: rets.length, intervalMs, spanMs },
    notes,
  };
}

/** Periods per year for a sampling interval in ms (365-day year: crypto trades every day). */
export function periodsPerYear(intervalMs: number): number {
  return (365 * 24 * 3600 * 1000) / intervalMs;
}

/** Rounds a statistic to 10 significant digits so reports are stable and readable. */
export function roundStat(x: number): number {
  if (!Number.isFinite(x) || x === 0) return 0;
  return Number(x.toPrecision(10));
}
