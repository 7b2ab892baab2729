/**
 * The report's tables over time: equity returns per month (a row per strategy and year, a column
 * per month and the year compounded) and round trips by holding time (a row per bucket, a column
 * per strategy), the markouts of fills (a row per horizon) and the per-symbol figures (a row per
 * strategy and symbol). All are bounded: twelve cells a year, eight buckets, three horizons.
 */
import { pctText } from './figureText.js';
import { HOLDING_BUCKETS } from './holdingTimes.js';
import { MARKOUT_HORIZONS_MS, horizonText, type Markout } from './markouts.js';
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

/** A markout as a cell: mean bps and the fills it rests on, or n/a with the reason. */
export function markoutText(m: Markout | undefined): string {
  if (m === undefined || m.meanBps === null) return `n/a (${m?.note ?? 'no fill'})`;
  return `${m.meanBps.toFixed(2)} bps (${m.fills} fills)`;
}

/** Mean markout of each strategy's fills per horizon, or nothing when no strategy filled. */
export function markoutsTable(r: BacktestResult): string {
  const cols = Object.entries(r.tearsheet).filter(([, s]) => s.markouts.some((m) => m.fills > 0));
  if (cols.length === 0) return '';
  const head = `<tr><th>after</th>${cols.map(([n]) => `<th>${escapeHtml(n)}</th>`).join('')}</tr>`;
  const rows = MARKOUT_HORIZONS_MS.map((h, i) => `<tr>${cells([horizonText(h), ...cols.map(([, s]) => markoutText(s.markouts[i]))])}</tr>`);
  return `<h2>Markouts of fills (mark move after a fill, from the filler's side, mean in bps of the fill price; negative: picked off)</h2><table id="markouts">${head}${rows.join('')}</table>`;
}

/** Per strategy and symbol: round trips, winners, net PnL and the inventory held over the run. */
export function symbolsTable(r: BacktestResult): string {
  const rows = Object.entries(r.tearsheet).flatMap(([n, s]) =>
    Object.entries(s.symbols).map(([sym, x]) => `<tr>${cells([n, sym, String(x.roundTrips), String(x.wins), x.netPnl, x.maxAbsPosition, String(x.meanAbsPosition), pctText(x.longPct), pctText(x.shortPct)])}</tr>`),
  );
  if (rows.length === 0) return '';
  const head = `<tr>${['strategy', 'symbol', 'round trips', 'won', 'net PnL (trips)', 'largest position', 'mean |position|', 'time long', 'time short'].map((c) => `<th>${c}</th>`).join('')}</tr>`;
  return `<h2>Per symbol (positions in the base asset, time-weighted over the run)</h2><table id="symbols">${head}${rows.join('')}</table>`;
}
