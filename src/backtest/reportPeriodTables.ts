/**
 * The report's tables over time: equity returns per month (a row per strategy and year, a column
 * per month and the year compounded) and round trips by holding time (a row per bucket, a column
 * per strategy). Both are bounded: twelve cells a year, eight buckets.
 */
import { pctText } from './figureText.js';
import { HOLDING_BUCKETS } from './holdingTimes.js';
import { yearReturnPct, type MonthlyReturn } from './monthlyReturns.js';
import type { BacktestResult } from './result.js';
import { escapeHtml } from './reportTables.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

function cells(values: readonly string[]): string {
  return values.map((v) => `<td>${escapeHtml(v)}</td>`).join('');
}

function yearRows(strategy: string, months: readonly MonthlyReturn[]): string[] {
  const years = new Map<string, MonthlyReturn[]>();
  for (const m of months) {
    const y = m.month.slice(0, 4);
    const list = years.get(y) ?? [];
    list.push(m);
    years.set(y, list);
  }
  return [...years].map(([y, list]) => {
    const byMonth = MONTHS.map((_, i) => list.find((m) => Number(m.month.slice(5, 7)) === i + 1));
    const shown = byMonth.map((m) => (m === undefined ? '' : pctText(m.returnPct)));
    return `<tr>${cells([strategy, y, ...shown, pctText(yearReturnPct(list))])}</tr>`;
  });
}

/** Equity return per month and year (compounded over the months of the run in that year). */
export function monthlyReturnsTable(r: BacktestResult): string {
  const rows = Object.entries(r.tearsheet).flatMap(([n, s]) => yearRows(n, s.monthlyReturns));
  if (rows.length === 0) return '';
  const head = `<tr>${['strategy', 'year', ...MONTHS, 'year'].map((c) => `<th>${c}</th>`).join('')}</tr>`;
  return `<h2>Monthly returns (equity, UTC months; a month of the run's edge covers only its part)</h2><table id="monthly-returns">${head}${rows.join('')}</table>`;
}

/** Round trips per holding-time bucket: count, then winners / losers, per strategy. */
export function holdingTimesTable(r: BacktestResult): string {
  const cols = Object.entries(r.tearsheet).filter(([, s]) => s.roundTrips > 0);
  if (cols.length === 0) return '';
  const head = `<tr><th>held</th>${cols.map(([n]) => `<th>${escapeHtml(n)}: trips (won / lost)</th>`).join('')}</tr>`;
  const rows = HOLDING_BUCKETS.map((label, i) => {
    const shown = cols.map(([, s]) => {
      const b = s.holdingTimes[i];
      return b === undefined || b.count === 0 ? '0' : `${b.count} (${b.wins} / ${b.losses})`;
    });
    return `<tr>${cells([label, ...shown])}</tr>`;
  });
  return `<h2>Round trips by holding time</h2><table id="holding-times">${head}${rows.join('')}</table>`;
}
