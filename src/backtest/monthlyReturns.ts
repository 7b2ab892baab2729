/**
 * Returns of an equity curve per calendar month (UTC), chained: each month's return is from the
 * last sample of the month before (the first sample of the run for the first month) to its own
 * last sample, so compounding the months gives the run's return. Descriptive floats.
 */
import type { EquityPoint } from './metrics.js';
import { roundStat } from './metrics.js';

/** One month's return. */
export interface MonthlyReturn {
  /** "YYYY-MM" (UTC). */
  readonly month: string;
  /** Percent; null when the month started at equity <= 0 (no ratio). */
  readonly returnPct: number | null;
}

/** The month of `t` ("YYYY-MM") and the time the next month starts (ms, UTC). */
function monthOf(t: number): { key: string; next: number } {
  const d = new Date(t);
  return { key: d.toISOString().slice(0, 7), next: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The curve's monthly returns in order; empty for an empty curve. */
export function monthlyReturns(curve: Iterable<EquityPoint>): MonthlyReturn[] {
  const out: MonthlyReturn[] = [];
  let month: string | undefined;
  let base = 0;
  let last = 0;
  const close = (m: string): void => {
    out.push({ month: m, returnPct: base > 0 ? roundStat((last / base - 1) * 100) : null });
    base = last;
  };
  // The month is worked out again only past its end: a date per sample would cost more than the rest.
  let next = -Infinity;
  for (const p of curve) {
    if (p.t >= next) {
      const m = monthOf(p.t);
      if (month === undefined) base = p.equity;
      else close(month);
      month = m.key;
      next = m.next;
    }
    last = p.equity;
  }
  if (month !== undefined) close(month);
  return out;
}

/** The return of a year from its months, compounded, percent; null when a month has none. */
export function yearReturnPct(months: readonly MonthlyReturn[]): number | null {
  let g = 1;
  for (const m of months) {
    if (m.returnPct === null) return null;
    g *= 1 + m.returnPct / 100;
  }
  // Rounded as a growth factor (near 1) first: the product's float residue (1.01 x 100/101 is
  // not exactly 1) is not a return.
  return roundStat((roundStat(g) - 1) * 100);
}
