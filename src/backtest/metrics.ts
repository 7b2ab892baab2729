/**
 * Pure performance statistics over an equity curve. Statistics (Sharpe, Sortino, drawdown
 * fraction) are descriptive floats: they never decide an order, so binary floats are fine here.
 */

/** One sample of the equity curve: virtual time (ms) and equity in quote currency. */
export interface EquityPoint {
  readonly t: number;
  readonly equity: number;
}

/** Simple period returns of an equity curve; periods starting at equity <= 0 are skipped (undefined ratio). */
export function periodReturns(curve: readonly EquityPoint[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < curve.length; i++) {
    const prev = (curve[i - 1] as EquityPoint).equity;
    if (prev > 0) out.push((curve[i] as EquityPoint).equity / prev - 1);
  }
  return out;
}

/** Largest peak-to-trough fall, in quote currency and as a fraction of the peak. */
export function maxDrawdown(curve: readonly EquityPoint[]): { abs: number; pct: number } {
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
 * Annualized Sharpe ratio (risk-free rate 0): mean / sample standard deviation of period returns,
 * times sqrt(periods per year). 0 when fewer than two returns or no variance.
 */
export function sharpe(returns: readonly number[], periodsPerYear: number): number {
  if (returns.length < 2) return 0;
  const m = mean(returns);
  let v = 0;
  for (const r of returns) v += (r - m) * (r - m);
  const sd = Math.sqrt(v / (returns.length - 1));
  return sd === 0 ? 0 : (m / sd) * Math.sqrt(periodsPerYear);
}

/**
 * Annualized Sortino ratio (target 0): mean return over downside deviation, where downside
 * deviation is sqrt(mean(min(r, 0)^2)) over all periods. 0 when there is no downside.
 */
export function sortino(returns: readonly number[], periodsPerYear: number): number {
  if (returns.length < 2) return 0;
  let dn = 0;
  for (const r of returns) if (r < 0) dn += r * r;
  const dd = Math.sqrt(dn / returns.length);
  return dd === 0 ? 0 : (mean(returns) / dd) * Math.sqrt(periodsPerYear);
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
