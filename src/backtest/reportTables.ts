/**
 * The report's trade tables: the tearsheet figures per strategy (round trips, win rate, profit
 * factor, expectancy, exposure, CAGR, buy-and-hold) and the round trips themselves. A long run's
 * round-trip list shows its first and last MAX_TRIP_ROWS / 2 rows (all of them are in result.json).
 */
import { spanText } from './metrics.js';
import type { BacktestResult, RoundTrip, TradeStats } from './result.js';

/** Most round-trip rows the HTML table shows. */
export const MAX_TRIP_ROWS = 1000;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const na = (x: number | string | null, unit = ''): string => (x === null ? 'n/a' : `${x}${unit}`);

const STAT_ROWS: readonly [string, (s: TradeStats) => string][] = [
  ['Round trips', (s) => String(s.roundTrips)],
  ['Wins / losses', (s) => `${s.wins} / ${s.losses}`],
  ['Win rate', (s) => na(s.winRatePct, '%')],
  ['Profit factor', (s) => (s.profitFactor === null ? (s.wins > 0 ? 'n/a (no losing trip)' : 'n/a') : String(s.profitFactor))],
  ['Expectancy (PnL per trip)', (s) => na(s.expectancy)],
  ['Average win', (s) => na(s.avgWin)],
  ['Average loss', (s) => na(s.avgLoss)],
  ['Largest win', (s) => na(s.largestWin)],
  ['Largest loss', (s) => na(s.largestLoss)],
  ['Max consecutive losses', (s) => String(s.maxConsecutiveLosses)],
  ['Average holding time', (s) => (s.avgHoldingMs === null ? 'n/a' : spanText(s.avgHoldingMs))],
  ['Exposure (time in a position)', (s) => `${s.exposurePct}%`],
  ['CAGR', (s) => (s.cagrPct === null ? `n/a (${s.cagrNote ?? ''})` : `${s.cagrPct}%`)],
  ['Buy and hold (first symbol, no fees)', (s) => (s.buyHoldReturnPct === null ? 'n/a' : `${s.buyHoldReturnPct}% (${s.buyHoldSymbol ?? ''})`)],
];

/** The tearsheet figures, a column per strategy. */
export function tradeStatsTable(r: BacktestResult): string {
  const cols = Object.entries(r.tearsheet);
  const head = `<tr><th>trades</th>${cols.map(([n]) => `<th>${escapeHtml(n)}</th>`).join('')}</tr>`;
  const rows = STAT_ROWS.map(([label, cell]) => `<tr><td>${escapeHtml(label)}</td>${cols.map(([, s]) => `<td>${escapeHtml(cell(s))}</td>`).join('')}</tr>`);
  return `<table id="trade-stats">${head}${rows.join('')}</table>`;
}

function tripRow(t: RoundTrip): string {
  const cells = [t.strategy, t.symbol, t.side, new Date(t.entryT).toISOString(), new Date(t.exitT).toISOString(), spanText(t.exitT - t.entryT), t.qty, t.entryPrice, t.exitPrice, t.fees, t.pnl, `${t.returnPct}%`];
  return `<tr class="${t.pnl.startsWith('-') ? 'loss' : 'win'}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
}

/** The round trips (`count` of them, read once), or a line saying there are none. */
export function roundTripsTable(trips: Iterable<RoundTrip>, count: number): string {
  if (count === 0) return '<h2>Round trips</h2><p>No round trip was closed.</p>';
  const head = `<tr>${['strategy', 'symbol', 'side', 'entry', 'exit', 'held', 'qty', 'entry price', 'exit price', 'fees', 'PnL', 'return'].map((c) => `<th>${c}</th>`).join('')}</tr>`;
  const half = MAX_TRIP_ROWS / 2;
  const all = count <= MAX_TRIP_ROWS;
  const shown: string[] = [];
  let i = 0;
  for (const t of trips) {
    if (all || i < half || i >= count - half) shown.push(tripRow(t));
    if (!all && i === half - 1) shown.push(`<tr><td colspan="12">... ${count - MAX_TRIP_ROWS} more (all ${count} in result.json) ...</td></tr>`);
    i++;
  }
  return `<h2>Round trips (${count}, FIFO; fees of both legs in the quote asset)</h2><table id="round-trips">${head}${shown.join('')}</table>`;
}
