/**
 * Self-contained HTML report: the lightweight-charts standalone bundle and the result JSON are
 * inlined, so the file opens from disk with no network. Output depends only on the result, so
 * the same run gives the same bytes.
 */
import { positionsText } from './positionsText.js';
import { failureText } from './failureText.js';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MIN_RATIO_RETURNS, type RatioField } from './metrics.js';
import { ratioSampleText, ratioText } from './ratioText.js';
import { pctText, ratioNumText } from './figureText.js';
import { chartData } from './reportData.js';
import { REPORT_CLIENT } from './reportClient.js';
import { drawdownsTable, escapeHtml, folded, roundTripsTable, tradeStatsTable } from './reportTables.js';
import { provenanceSection } from './provenanceHtml.js';
import { holdingTimesTable, markoutsTable, monthlyReturnsTable, symbolsTable } from './reportPeriodTables.js';
import { inventorySection, quoteTouchTable, rollingSharpeSection, spreadCapturedTable } from './reportMarketTables.js';
import { streamsOf } from './resultStreams.js';

export { escapeHtml };
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';

let bundle: Buffer | undefined;

/**
 * The lightweight-charts standalone production bundle (read once), as the file's UTF-8 bytes: the
 * report writes them as they are, where a text would be decoded and encoded again (~200 KB, ~1 ms
 * of a short backtest's CPU).
 */
function chartsBundle(): Buffer {
  if (bundle === undefined) {
    // The package's `exports` only exposes ESM entry points; resolve its folder via package.json.
    const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
    bundle = readFileSync(path.join(path.dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'));
  }
  return bundle;
}

/** JSON that is safe inside a <script> element (no `</script>` or `<!--` can appear). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A row of the metrics table: a field printed as is, a ratio (value or n/a with its reason), the ratios' sample, or the end positions. */
type MetricRow = readonly [keyof StrategyMetrics, string] | readonly ['pct' | 'num', PctOrNumField, string] | readonly ['ratio', RatioField, string] | readonly ['ratioSample', string] | readonly ['positionsText', string];

/** Plain-number fields of the metrics printed rounded: percents with their unit, ratios to 4 decimals. */
type PctOrNumField = 'returnPct' | 'maxDrawdownPct' | 'turnoverRatio' | 'fillRatio' | 'qtyFillRatio';

const METRIC_ROWS: readonly MetricRow[] = [
  ['initialEquity', 'Initial equity'],
  ['finalEquity', 'Final equity'],
  ['netPnl', 'Net PnL'],
  ['realizedPnl', 'Realized PnL'],
  ['unrealizedPnl', 'Unrealized PnL'],
  ['fees', 'Fees'],
  ['positionsText', 'Position at the end (base, net of base-asset fees)'],
  ['pct', 'returnPct', 'Return'],
  ['maxDrawdown', 'Max drawdown'],
  ['pct', 'maxDrawdownPct', 'Max drawdown %'],
  ['ratio', 'sharpePerPeriod', 'Sharpe (per period)'],
  ['ratio', 'sortinoPerPeriod', 'Sortino (per period)'],
  ['ratio', 'sharpe', 'Sharpe (annualised)'],
  ['ratio', 'sortino', 'Sortino (annualised)'],
  ['ratioSample', 'Ratio sample'],
  ['turnover', 'Turnover'],
  ['num', 'turnoverRatio', 'Turnover / equity'],
  ['orders', 'Orders'],
  ['ordersFilled', 'Orders filled'],
  ['ordersCanceled', 'Orders canceled/expired'],
  ['ordersRejected', 'Orders rejected (venue)'],
  ['ordersOpen', 'Orders open at the end'],
  ['riskRejections', 'Intents rejected (risk)'],
  ['trades', 'Trades (fills)'],
  ['num', 'fillRatio', 'Fill ratio (orders)'],
  ['num', 'qtyFillRatio', 'Fill ratio (quantity)'],
];

function metricsTable(r: BacktestResult): string {
  const cols: [string, StrategyMetrics][] = Object.entries(r.strategies);
  if (r.total) cols.push(['TOTAL', r.total]);
  const head = `<tr><th>metric</th>${cols.map(([n, m]) => `<th>${escapeHtml(n)} (${escapeHtml(m.quoteAsset)})</th>`).join('')}</tr>`;
  const row = (label: string, cell: (m: StrategyMetrics) => string): string => `<tr><td>${escapeHtml(label)}</td>${cols.map(([, m]) => `<td>${escapeHtml(cell(m))}</td>`).join('')}</tr>`;
  const rows = METRIC_ROWS.map((r) => {
    if (r[0] === 'ratio') return row(r[2], (m) => (m[r[1]] === null ? ratioText(m, r[1]) : ratioNumText(m[r[1]])));
    if (r[0] === 'pct') return row(r[2], (m) => pctText(m[r[1]]));
    if (r[0] === 'num') return row(r[2], (m) => ratioNumText(m[r[1]], 4));
    if (r[0] === 'ratioSample') return row(r[1], ratioSampleText);
    if (r[0] === 'positionsText') return row(r[1], positionsText);
    const k = r[0];
    return row(r[1], (m) => String(m[k]));
  });
  return `<table id="metrics">${head}${rows.join('')}</table>`;
}

/** What the ratio rows are, so a short sample's figure is not taken for a yearly one. */
function ratioNote(r: BacktestResult): string {
  return `<p id="ratio-note">Sharpe and Sortino: risk-free rate 0, from the returns between equity samples one interval apart (${r.equityIntervalMs} ms). Per period: over one such interval. Annualised: the per-period figure times &radic;(periods in a 365-day year), given only when the returns span at least a day. Neither is estimated from fewer than ${MIN_RATIO_RETURNS} returns; n/a gives the reason.</p>`;
}

/** The orders still open at the end (a backtest does not cancel them), or nothing when there are none. */
function openOrdersTable(r: BacktestResult): string {
  if (r.openOrders.length === 0) return '';
  const cells = ['strategy', 'clientId', 'symbol', 'side', 'type', 'state', 'price', 'quantity', 'filled', 'since'];
  const head = `<tr>${cells.map((c) => `<th>${c}</th>`).join('')}</tr>`;
  const rows = r.openOrders.map((o) => `<tr>${[o.strategy, o.clientId, o.symbol, o.side, o.orderType, o.state, o.price ?? '', o.quantity ?? '', o.filledQty, new Date(o.since).toISOString()].map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`);
  return folded('Orders open at the end', `<table id="open-orders">${head}${rows.join('')}</table>`, rows.length, 'open orders');
}

/** Refused intents (risk) and orders (venue) by strategy and reason, or nothing when none was refused. */
function rejectionsTable(r: BacktestResult): string {
  const rows = Object.entries(r.rejections).flatMap(([n, counts]) => counts.map((c) => `<tr>${[n, c.source, c.reason, String(c.count), c.example].map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`));
  if (rows.length === 0) return '';
  return folded('Rejections by reason', `<table id="rejections"><tr><th>strategy</th><th>by</th><th>reason</th><th>count</th><th>first message</th></tr>${rows.join('')}</table>`, rows.length, 'reasons');
}

/** The strategies an error of their own stopped, or nothing when none failed. */
function warningsBox(r: BacktestResult): string {
  if ((r.warnings ?? []).length === 0) return '';
  return `<div class="failed"><h2>Warnings</h2><ul>${r.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>`;
}

function failuresBox(r: BacktestResult): string {
  if (r.failures.length === 0) return '';
  const items = r.failures.map((f) => `<li>${escapeHtml(failureText(f))}</li>`);
  return `<div class="failed"><h2>Strategies stopped by an error</h2><p>Their figures after that time are those of a strategy that did nothing more.</p><ul>${items.join('')}</ul></div>`;
}

/** Renders a backtest result as one self-contained HTML document (the charts' data inlined, bounded: see reportData.ts). */
export function renderHtmlReport(r: BacktestResult): string {
  return [...htmlParts(r)].map((part) => (typeof part === 'string' ? part : part.toString('utf8'))).join('');
}

/** Writes {@link renderHtmlReport}'s document to `file` a part at a time. */
export function writeHtmlReport(file: string, r: BacktestResult): void {
  const fd = openSync(file, 'w');
  try {
    for (const part of htmlParts(r)) {
      // Two overloads of writeSync: one for text, one for bytes.
      if (typeof part === 'string') writeSync(fd, part);
      else writeSync(fd, part);
    }
  } finally {
    closeSync(fd);
  }
}

/** The document in parts (each bounded: tables and charts are, whatever the run's length); UTF-8 bytes or text. */
function* htmlParts(r: BacktestResult): Generator<string | Buffer> {
  const s = streamsOf(r);
  const title = `kancil backtest: ${r.name}`;
  const period = `${new Date(r.start).toISOString()} to ${new Date(r.end).toISOString()}`;
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.chart{width:100%;height:320px}#underwater{height:200px}.failed{border:2px solid #c62828;background:#fdecea;padding:4px 12px;margin:12px 0}tr.loss td{color:#b71c1c}.cols{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}#tip{position:absolute;display:none;white-space:pre;background:#fff;border:1px solid #888;padding:4px 8px;font:12px monospace;pointer-events:none;z-index:10;box-shadow:0 2px 6px rgba(0,0,0,.2)}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(period)} &middot; ${r.events} events &middot; ${s.fillCount} fills &middot; ${s.roundTripCount} round trips &middot; equity sampled every ${r.equityIntervalMs} ms</p>
${failuresBox(r)}
${warningsBox(r)}
<div class="cols">${metricsTable(r)}${tradeStatsTable(r)}</div>
${ratioNote(r)}
<h2>Equity</h2><div class="chart" id="equity"></div>
<h2>Underwater (drawdown of the total from its peak, %)</h2><div class="chart" id="underwater"></div>
${drawdownsTable(r)}
${monthlyReturnsTable(r)}
${holdingTimesTable(r)}
${symbolsTable(r)}
${markoutsTable(r)}
${spreadCapturedTable(r)}
${quoteTouchTable(r)}
${inventorySection(r)}
${rollingSharpeSection(r)}
<h2>Prices</h2><div id="prices"></div>
${rejectionsTable(r)}
${openOrdersTable(r)}
${provenanceSection(r)}`;
  yield roundTripsTable(s.roundTrips(), s.roundTripCount);
  yield `
<div id="tip"></div>
<script>`;
  yield chartsBundle();
  yield `</script>
<script type="application/json" id="chart-data">`;
  yield scriptJson(chartData(r));
  yield `</script>
<script>${REPORT_CLIENT}</script>
</body></html>
`;
}
