/**
 * The report's trade tables: the tearsheet figures per strategy (round trips, win rate, profit
 * factor, expectancy, exposure, CAGR, Calmar, the shape of the returns), the worst drawdown
 * periods, and the round trips themselves. A long run's round-trip list shows its first and last
 * MAX_TRIP_ROWS / 2 rows (all of them are in result.json), folded when longer than OPEN_TRIP_ROWS.
 */
import { WORST_DRAWDOWNS, type DrawdownPeriod } from './drawdowns.js';
import { pctText, ratioNumText } from './figureText.js';
import { spanText } from './metrics.js';
import type { BacktestResult, RoundTrip, TradeStats } from './result.js';

/** Most round-trip rows the HTML table shows. */
export const MAX_TRIP_ROWS = 1000;

/** Most round trips listed unfolded; a longer list is folded behind a "show" line. */
export const OPEN_TRIP_ROWS = 50;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const na = (x: number | string | null, unit = ''): string => (x === null ? 'n/a' : `${x}${unit}`);

const STAT_ROWS: readonly [string, (s: TradeStats) => string][] = [
  ['Round trips', (s) => String(s.roundTrips)],
  ['Wins / losses', (s) => `${s.wins} / ${s.losses}`],
  ['Win rate', (s) => pctText(s.winRatePct)],
  ['Profit factor', (s) => (s.profitFactor === null ? (s.wins > 0 ? 'n/a (no losing trip)' : 'n/a') : ratioNumText(s.profitFactor))],
  ['Expectancy (PnL per trip)', (s) => na(s.expectancy)],
  ['Average win', (s) => na(s.avgWin)],
  ['Average loss', (s) => na(s.avgLoss)],
  ['Largest win', (s) => na(s.largestWin)],
  ['Largest loss', (s) => na(s.largestLoss)],
  ['Max consecutive losses', (s) => String(s.maxConsecutiveLosses)],
  ['Average holding time', (s) => (s.avgHoldingMs === null ? 'n/a' : spanText(s.avgHoldingMs))],
  ['Average holding time, winners', (s) => (s.avgWinHoldingMs === null ? 'n/a' : spanText(s.avgWinHoldingMs))],
  ['Average holding time, losers', (s) => (s.avgLossHoldingMs === null ? 'n/a' : spanText(s.avgLossHoldingMs))],
  ['Exposure (time in a position)', (s) => pctText(s.exposurePct)],
  ['CAGR', (s) => (s.cagrPct === null ? `n/a (${s.cagrNote ?? ''})` : pctText(s.cagrPct))],
  ['Calmar (CAGR / max drawdown)', (s) => (s.calmar === null ? `n/a (${s.calmarNote ?? ''})` : ratioNumText(s.calmar))],
  ['Longest drawdown', (s) => (s.longestDrawdownMs === 0 ? 'none' : spanText(s.longestDrawdownMs))],
  ['Skew (per-period returns)', (s) => orNote(ratioNumText(s.returns.skew), s.returns.note)],
  ['Excess kurtosis', (s) => orNote(ratioNumText(s.returns.kurtosis), s.returns.note)],
  ['VaR 95% (historical, per period)', (s) => orNote(pctText(s.returns.var95Pct), s.returns.note)],
  ['CVaR 95% (mean of the worst 5%)', (s) => orNote(pctText(s.returns.cvar95Pct), s.returns.note)],
  ['Buy and hold (first symbol, no fees)', (s) => (s.buyHoldReturnPct === null ? 'n/a' : `${pctText(s.buyHoldReturnPct)} (${s.buyHoldSymbol ?? ''})`)],
];

function orNote(text: string, note: string | undefined): string {
  return text === 'n/a' && note !== undefined ? `n/a (${note})` : text;
}

/** The tearsheet figures, a column per strategy. */
export function tradeStatsTable(r: BacktestResult): string {
  const cols = Object.entries(r.tearsheet);
  // Money rows (expectancy, average and largest win and loss) are in the strategy's quote asset, named once in its header.
  const quote = (n: string): string => (r.strategies[n]?.quoteAsset === undefined ? '' : ` (${r.strategies[n]?.quoteAsset ?? ''})`);
  const head = `<tr><th>trades</th>${cols.map(([n]) => `<th>${escapeHtml(`${n}${quote(n)}`)}</th>`).join('')}</tr>`;
  const rows = STAT_ROWS.map(([label, cell]) => `<tr><td>${escapeHtml(label)}</td>${cols.map(([, s]) => `<td>${escapeHtml(cell(s))}</td>`).join('')}</tr>`);
  return `<table id="trade-stats">${head}${rows.join('')}</table>`;
}

function drawdownRow(strategy: string, i: number, d: DrawdownPeriod): string {
  const iso = (t: number): string => new Date(t).toISOString();
  const cells = [strategy, String(i + 1), iso(d.start), iso(d.trough), d.recovery === null ? 'not recovered' : iso(d.recovery), String(d.depth), pctText(d.depthPct), spanText(d.durationMs)];
  return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
}

/** The worst drawdown periods of each strategy, deepest first, or a line saying equity never fell. */
export function drawdownsTable(r: BacktestResult): string {
  const rows = Object.entries(r.tearsheet).flatMap(([n, s]) => s.drawdowns.map((d, i) => drawdownRow(n, i, d)));
  const title = `<h2>Worst drawdowns (up to ${WORST_DRAWDOWNS} per strategy, from a peak to the trough and back)</h2>`;
  if (rows.length === 0) return `${title}<p>Equity never fell below a previous peak.</p>`;
  const head = `<tr>${['strategy', '#', 'peak', 'trough', 'recovered', 'depth', 'depth %', 'duration'].map((c) => `<th>${c}</th>`).join('')}</tr>`;
  return `${title}<table id="drawdowns">${head}${rows.join('')}</table>`;
}

function tripRow(t: RoundTrip): string {
  const cells = [t.strategy, t.symbol, t.side, new Date(t.entryT).toISOString(), new Date(t.exitT).toISOString(), spanText(t.exitT - t.entryT), t.qty, t.entryPrice, t.exitPrice, t.fees, t.pnl, pctText(t.returnPct)];
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
  const title = `Round trips (${count}, FIFO; fees of both legs in the quote asset)`;
  const table = `<table id="round-trips">${head}${shown.join('')}</table>`;
  // A long list is folded so the figures after it stay in reach; a short one is shown open.
  return folded(title, table, count, 'round trips');
}

/** A titled table, folded under a summary when it has more than OPEN_TRIP_ROWS rows (the figures after it stay in reach). */
export function folded(title: string, table: string, rows: number, what: string): string {
  if (rows > OPEN_TRIP_ROWS) return `<h2>${title}</h2><details><summary>show the ${rows} ${what}</summary>${table}</details>`;
  return `<h2>${title}</h2>${table}`;
}
