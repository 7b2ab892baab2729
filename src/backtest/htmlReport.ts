/**
 * Self-contained HTML report: the lightweight-charts standalone bundle and the result JSON are
 * inlined, so the file opens from disk with no network. Output depends only on the result, so
 * the same run gives the same bytes.
 */
import { positionsText } from './positionsText.js';
import { failureText } from './failureText.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MIN_RATIO_RETURNS, type RatioField } from './metrics.js';
import { ratioSampleText, ratioText } from './ratioText.js';
import type { BacktestResult, StrategyMetrics } from './ResultCollector.js';

let bundle: string | undefined;

/** The lightweight-charts standalone production bundle (read once). */
function chartsBundle(): string {
  if (bundle === undefined) {
    // The package's `exports` only exposes ESM entry points; resolve its folder via package.json.
    const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
    bundle = readFileSync(path.join(path.dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
  }
  return bundle;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** JSON that is safe inside a <script> element (no `</script>` or `<!--` can appear). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A row of the metrics table: a field printed as is, a ratio (value or n/a with its reason), the ratios' sample, or the end positions. */
type MetricRow = readonly [keyof StrategyMetrics, string] | readonly ['ratio', RatioField, string] | readonly ['ratioSample', string] | readonly ['positionsText', string];

const METRIC_ROWS: readonly MetricRow[] = [
  ['initialEquity', 'Initial equity'],
  ['finalEquity', 'Final equity'],
  ['netPnl', 'Net PnL'],
  ['realizedPnl', 'Realized PnL'],
  ['unrealizedPnl', 'Unrealized PnL'],
  ['fees', 'Fees'],
  ['positionsText', 'Position at the end (base, net of base-asset fees)'],
  ['returnPct', 'Return %'],
  ['maxDrawdown', 'Max drawdown'],
  ['maxDrawdownPct', 'Max drawdown %'],
  ['ratio', 'sharpePerPeriod', 'Sharpe (per period)'],
  ['ratio', 'sortinoPerPeriod', 'Sortino (per period)'],
  ['ratio', 'sharpe', 'Sharpe (annualised)'],
  ['ratio', 'sortino', 'Sortino (annualised)'],
  ['ratioSample', 'Ratio sample'],
  ['turnover', 'Turnover'],
  ['turnoverRatio', 'Turnover / equity'],
  ['orders', 'Orders'],
  ['ordersFilled', 'Orders filled'],
  ['ordersCanceled', 'Orders canceled/expired'],
  ['ordersRejected', 'Orders rejected (venue)'],
  ['ordersOpen', 'Orders open at the end'],
  ['riskRejections', 'Intents rejected (risk)'],
  ['trades', 'Trades (fills)'],
  ['fillRatio', 'Fill ratio (orders)'],
  ['qtyFillRatio', 'Fill ratio (quantity)'],
];

function metricsTable(r: BacktestResult): string {
  const cols: [string, StrategyMetrics][] = Object.entries(r.strategies);
  if (r.total) cols.push(['TOTAL', r.total]);
  const head = `<tr><th>metric</th>${cols.map(([n, m]) => `<th>${escapeHtml(n)} (${escapeHtml(m.quoteAsset)})</th>`).join('')}</tr>`;
  const row = (label: string, cell: (m: StrategyMetrics) => string): string => `<tr><td>${escapeHtml(label)}</td>${cols.map(([, m]) => `<td>${escapeHtml(cell(m))}</td>`).join('')}</tr>`;
  const rows = METRIC_ROWS.map((r) => {
    if (r[0] === 'ratio') return row(r[2], (m) => ratioText(m, r[1]));
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

// Browser-side script: draws the charts from the inlined JSON and exposes counts for tests.
const CLIENT = String.raw`
(function () {
  var R = JSON.parse(document.getElementById('result').textContent);
  var LC = window.LightweightCharts;
  var names = Object.keys(R.strategies).concat(['TOTAL']);
  var colors = ['#2962FF', '#E91E63', '#FF9800', '#4CAF50', '#9C27B0', '#00BCD4'];
  function secondsSeries(points) {
    // lightweight-charts needs strictly increasing whole-second times: keep the last value per second.
    var out = [];
    for (var i = 0; i < points.length; i++) {
      var t = Math.floor(points[i].t / 1000);
      if (out.length && out[out.length - 1].time === t) out[out.length - 1].value = points[i].v;
      else out.push({ time: t, value: points[i].v });
    }
    return out;
  }
  var status = { equityPoints: 0, priceCharts: 0, pricePoints: 0, markers: 0 };
  var eqChart = LC.createChart(document.getElementById('equity'), { height: 320, timeScale: { timeVisible: true, secondsVisible: true } });
  names.forEach(function (n, i) {
    var s = eqChart.addSeries(LC.LineSeries, { color: colors[i % colors.length], lineWidth: n === 'TOTAL' ? 3 : 1, title: n });
    var data = secondsSeries(R.equity.map(function (e) { return { t: e.t, v: e.v[i] }; }));
    s.setData(data);
    status.equityPoints += data.length;
  });
  eqChart.timeScale().fitContent();
  var holder = document.getElementById('prices');
  Object.keys(R.prices).forEach(function (sym) {
    var div = document.createElement('div');
    div.className = 'chart';
    div.id = 'price-' + sym;
    var h = document.createElement('h3');
    h.textContent = sym + ' mark price and fills';
    holder.appendChild(h);
    holder.appendChild(div);
    var chart = LC.createChart(div, { height: 320, timeScale: { timeVisible: true, secondsVisible: true } });
    var s = chart.addSeries(LC.LineSeries, { color: '#455A64', lineWidth: 1, title: sym });
    var data = secondsSeries(R.prices[sym].map(function (p) { return { t: p.t, v: p.p }; }));
    s.setData(data);
    var markers = [];
    R.fills.forEach(function (f) {
      if (f.symbol !== sym || data.length === 0) return;
      var t = Math.floor(f.t / 1000);
      // snap to the last sample at or before the fill so the marker sits on the line
      var lo = 0, hi = data.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (data[mid].time <= t) lo = mid; else hi = mid - 1; }
      markers.push({ time: data[lo].time, position: f.side === 'BUY' ? 'belowBar' : 'aboveBar', color: f.side === 'BUY' ? '#26a69a' : '#ef5350', shape: f.side === 'BUY' ? 'arrowUp' : 'arrowDown', text: f.side[0] + ' ' + f.qty + '@' + f.price });
    });
    LC.createSeriesMarkers(s, markers);
    chart.timeScale().fitContent();
    status.priceCharts++;
    status.pricePoints += data.length;
    status.markers += markers.length;
  });
  status.ready = true;
  window.__kancilReport = status;
})();
`;

/** The orders still open at the end (a backtest does not cancel them), or nothing when there are none. */
function openOrdersTable(r: BacktestResult): string {
  if (r.openOrders.length === 0) return '';
  const cells = ['strategy', 'clientId', 'symbol', 'side', 'type', 'state', 'price', 'quantity', 'filled', 'since'];
  const head = `<tr>${cells.map((c) => `<th>${c}</th>`).join('')}</tr>`;
  const rows = r.openOrders.map((o) => `<tr>${[o.strategy, o.clientId, o.symbol, o.side, o.orderType, o.state, o.price ?? '', o.quantity ?? '', o.filledQty, new Date(o.since).toISOString()].map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`);
  return `<h2>Orders open at the end</h2><table>${head}${rows.join('')}</table>`;
}

/** Refused intents (risk) and orders (venue) by strategy and reason, or nothing when none was refused. */
function rejectionsTable(r: BacktestResult): string {
  const rows = Object.entries(r.rejections).flatMap(([n, counts]) => counts.map((c) => `<tr>${[n, c.source, c.reason, String(c.count), c.example].map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`));
  if (rows.length === 0) return '';
  return `<h2>Rejections by reason</h2><table id="rejections"><tr><th>strategy</th><th>by</th><th>reason</th><th>count</th><th>first message</th></tr>${rows.join('')}</table>`;
}

/** The strategies an error of their own stopped, or nothing when none failed. */
function failuresBox(r: BacktestResult): string {
  if (r.failures.length === 0) return '';
  const items = r.failures.map((f) => `<li>${escapeHtml(failureText(f))}</li>`);
  return `<div class="failed"><h2>Strategies stopped by an error</h2><p>Their figures after that time are those of a strategy that did nothing more.</p><ul>${items.join('')}</ul></div>`;
}

/** Renders a backtest result as one self-contained HTML document. */
export function renderHtmlReport(r: BacktestResult): string {
  const title = `kancil backtest: ${r.name}`;
  const period = `${new Date(r.start).toISOString()} to ${new Date(r.end).toISOString()}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.chart{width:100%;height:320px}.failed{border:2px solid #c62828;background:#fdecea;padding:4px 12px;margin:12px 0}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(period)} &middot; ${r.events} events &middot; ${r.fills.length} fills &middot; equity sampled every ${r.equityIntervalMs} ms</p>
${failuresBox(r)}
${metricsTable(r)}
${ratioNote(r)}
${openOrdersTable(r)}
${rejectionsTable(r)}
<h2>Equity</h2><div class="chart" id="equity"></div>
<h2>Prices</h2><div id="prices"></div>
<script>${chartsBundle()}</script>
<script type="application/json" id="result">${scriptJson(r)}</script>
<script>${CLIENT}</script>
</body></html>
`;
}
