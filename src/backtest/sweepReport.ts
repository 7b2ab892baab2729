/**
 * The sweep as one self-contained HTML page (sweep.html): the ranked points in a table sortable by
 * any column (click its header), and a heatmap of any metric over any two parameters (chosen in the
 * page; a cell shows the best value among the points sharing those two values). Out-of-sample
 * figures, when the grid has a split, sit beside the in-sample ones and can be mapped too. Skipped
 * and failed points are listed. No library, nothing fetched.
 */
import type { StrategyMetrics } from './result.js';
import { escapeHtml } from './reportTables.js';
import type { WalkForwardResult } from './sweepWalkForward.js';
import { walkForwardHtml } from './walkForwardReport.js';
import { searchText, type SearchNote } from './sweepTpe.js';
import type { RecordingRow } from './sweepRecordings.js';
import { overfittingText, type SweepOverfitting } from './sweepOverfitting.js';

/** What the page needs of a sweep (sweep.ts's SweepResult has it). */
export interface SweepPage {
  readonly strategy: string;
  readonly rankBy: string;
  readonly split?: number;
  readonly rows: readonly { rank: number | null; params: Record<string, unknown>; metrics: StrategyMetrics | undefined; outOfSample?: StrategyMetrics; objective?: number | null; excluded?: string; error?: string; recordings?: readonly RecordingRow[]; ranBy?: readonly string[] }[];
  /** What the points are ranked by, when beyond the metrics every page shows (calmar): its own column. */
  readonly objective?: { readonly metric: string; readonly direction: string };
  readonly minTrades?: number;
  readonly search?: SearchNote;
  readonly skipped: readonly { params: Record<string, unknown>; reason: string }[];
  /** How far an interrupted sweep got. */
  readonly interrupted?: string;
  readonly walkForward?: WalkForwardResult;
  readonly overfitting?: SweepOverfitting;
}

/** The overfitting figures, each with how to read it (the Markdown lines as a list). */
function overfittingHtml(o: SweepOverfitting, rankBy: string): string {
  const items = overfittingText(o, rankBy)
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => `<li>${escapeHtml(l.slice(2))}</li>`);
  return `<h2>Overfitting (${o.points} points with returns)</h2><ul id="overfitting">${items.join('')}</ul>`;
}

/** Each point's runs on its recordings (eachRecording), in rank order. */
function recordingsHtml(rows: SweepPage['rows']): string {
  const lines = rows.flatMap((r) =>
    (r.recordings ?? []).map((x) => {
      const m = x.metrics;
      const cells = [r.rank === null ? '-' : String(r.rank), JSON.stringify(r.params), x.file, m?.netPnl ?? '', m === undefined ? '' : String(m.returnPct), m === undefined ? '' : String(m.maxDrawdownPct), m?.fees ?? '', m === undefined ? '' : String(m.trades), x.error ?? ''];
      return `<tr${x.error !== undefined ? ' class="failed"' : ''}>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    }),
  );
  if (lines.length === 0) return '';
  const head = ['rank', 'params', 'recording', 'netPnl', 'returnPct', 'maxDrawdownPct', 'fees', 'trades', 'error'];
  return `<h2>Per recording</h2><p>Each recording run separately from the configured budget; a point's figures combine them (PnL, fees and counts added, drawdown the worst, Sharpe and Sortino n/a).</p>
<table id="recordings"><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>${lines.join('')}</table>`;
}

/** Metrics shown and mappable (higher is better except drawdown). */
const METRICS = ['netPnl', 'returnPct', 'maxDrawdownPct', 'sharpe', 'sortino', 'sharpePerPeriod', 'fees', 'trades', 'fillRatio'] as const;

function figures(m: StrategyMetrics | undefined): (number | null)[] {
  return METRICS.map((k) => {
    const v = m?.[k];
    const n = v === null || v === undefined ? NaN : Number(v);
    return Number.isFinite(n) ? n : null;
  });
}

type PageRow = SweepPage['rows'][number];

/**
 * Columns beyond the shown metrics, each only when some point has it: the objective's metric
 * (calmar), the queue worker that ran the point (to trace an odd point to its machine), and why a
 * point is not ranked.
 */
function extraColumns(s: SweepPage): { name: string; cell: (r: PageRow) => string | number | null }[] {
  const o = s.objective;
  return [
    ...(o !== undefined && !(METRICS as readonly string[]).includes(o.metric) ? [{ name: o.metric, cell: (r: PageRow) => r.objective ?? null }] : []),
    ...(s.rows.some((r) => r.ranBy !== undefined) ? [{ name: 'ran on', cell: (r: PageRow) => (r.ranBy ?? []).join(', ') }] : []),
    ...(s.rows.some((r) => r.excluded !== undefined) ? [{ name: 'not ranked', cell: (r: PageRow) => r.excluded ?? '' }] : []),
  ];
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const CLIENT = String.raw`
(function () {
  var D = JSON.parse(document.getElementById('sweep-data').textContent);
  var cols = ['rank'].concat(D.keys).concat(D.metrics).concat(D.oos ? D.metrics.map(function (m) { return 'oos ' + m; }) : []).concat(D.extra);
  var rows = D.rows.map(function (r, pos) {
    return { pos: pos, cells: [r.rank].concat(D.keys.map(function (k) { return r.params[k]; })).concat(r.in).concat(D.oos ? r.out : []).concat(r.x), error: r.error };
  });
  var sortCol = 0, sortDir = 1;
  function fmt(v) { return v === null || v === undefined ? 'n/a' : typeof v === 'number' ? String(Number(v.toPrecision(8))) : typeof v === 'string' ? v : JSON.stringify(v); }
  // Parameter names and values are the user's text: markup in them is shown, never parsed.
  function esc(v) { return String(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); }
  function cmp(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined) return 1;
    if (b === null || b === undefined) return -1;
    return a < b ? -1 : 1;
  }
  var table = document.getElementById('points');
  function draw() {
    var sorted = rows.slice().sort(function (x, y) { var c = cmp(x.cells[sortCol], y.cells[sortCol]); return c === 0 ? x.pos - y.pos : (x.cells[sortCol] === null ? c : c * sortDir); });
    var h = '<tr>' + cols.map(function (c, i) { return '<th data-i="' + i + '">' + esc(c) + (i === sortCol ? (sortDir > 0 ? ' \u25B2' : ' \u25BC') : '') + '</th>'; }).join('') + '</tr>';
    table.innerHTML = h + sorted.map(function (r) {
      return '<tr' + (r.error ? ' class="failed" title="' + esc(r.error) + '"' : '') + '>' + r.cells.map(function (v) { return '<td>' + esc(fmt(v)) + '</td>'; }).join('') + '</tr>';
    }).join('');
    Array.prototype.forEach.call(table.querySelectorAll('th'), function (th) {
      th.onclick = function () { var i = Number(th.getAttribute('data-i')); if (i === sortCol) sortDir = -sortDir; else { sortCol = i; sortDir = i === 0 ? 1 : -1; } draw(); };
    });
  }
  draw();
  var sx = document.getElementById('hx'), sy = document.getElementById('hy'), sm = document.getElementById('hm');
  function opt(sel, values, chosen) { sel.innerHTML = values.map(function (v) { return '<option' + (v === chosen ? ' selected' : '') + '>' + esc(v) + '</option>'; }).join(''); }
  opt(sx, D.keys, D.keys[0]);
  opt(sy, D.keys, D.keys[1] || D.keys[0]);
  opt(sm, D.metrics.concat(D.oos ? D.metrics.map(function (m) { return 'oos ' + m; }) : []), D.rankBy);
  function uniq(k) {
    var seen = [], out = [];
    D.rows.forEach(function (r) { var v = JSON.stringify(r.params[k]); if (seen.indexOf(v) < 0) { seen.push(v); out.push(r.params[k]); } });
    return out.sort(function (a, b) { return typeof a === 'number' && typeof b === 'number' ? a - b : cmp(JSON.stringify(a), JSON.stringify(b)); });
  }
  var heat = document.getElementById('heatmap');
  function drawHeat() {
    var kx = sx.value, ky = sy.value, m = sm.value;
    var oos = m.indexOf('oos ') === 0, name = oos ? m.slice(4) : m, mi = D.metrics.indexOf(name), lower = name === 'maxDrawdownPct';
    var xs = uniq(kx), ys = uniq(ky), cell = {}, lo = Infinity, hi = -Infinity;
    D.rows.forEach(function (r) {
      var v = (oos ? r.out : r.in)[mi];
      if (v === null || v === undefined || r.error) return;
      var key = JSON.stringify(r.params[kx]) + '|' + JSON.stringify(r.params[ky]);
      if (cell[key] === undefined || (lower ? v < cell[key] : v > cell[key])) cell[key] = v;
    });
    Object.keys(cell).forEach(function (k) { lo = Math.min(lo, cell[k]); hi = Math.max(hi, cell[k]); });
    var html = '<tr><th>' + esc(ky) + ' \\ ' + esc(kx) + '</th>' + xs.map(function (x) { return '<th>' + esc(fmt(x)) + '</th>'; }).join('') + '</tr>';
    html += ys.map(function (y) {
      return '<tr><th>' + esc(fmt(y)) + '</th>' + xs.map(function (x) {
        var v = cell[JSON.stringify(x) + '|' + JSON.stringify(y)];
        if (v === undefined) return '<td class="empty">-</td>';
        var f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
        if (lower) f = 1 - f;
        return '<td style="background:hsl(' + Math.round(f * 120) + ',65%,' + (75 - Math.round(15 * f)) + '%)">' + fmt(v) + '</td>';
      }).join('') + '</tr>';
    }).join('');
    heat.innerHTML = html;
    window.__kancilSweep = { cells: Object.keys(cell).length, rows: rows.length, x: kx, y: ky, metric: m };
  }
  [sx, sy, sm].forEach(function (s) { s.onchange = drawHeat; });
  drawHeat();
})();
`;

/** The page. */
export function renderSweepHtml(s: SweepPage): string {
  const keys = Object.keys(s.rows[0]?.params ?? s.skipped[0]?.params ?? {});
  const extra = extraColumns(s);
  const data = {
    keys,
    metrics: METRICS,
    rankBy: s.rankBy,
    oos: s.split !== undefined,
    extra: extra.map((c) => c.name),
    rows: s.rows.map((r) => ({ rank: r.rank, params: r.params, in: figures(r.metrics), out: figures(r.outOfSample), x: extra.map((c) => c.cell(r)), ...(r.error !== undefined ? { error: r.error } : {}) })),
  };
  const title = `kancil sweep: ${s.strategy}`;
  const split = s.split === undefined ? '' : ` In sample: before ${new Date(s.split).toISOString()} (ranked); out of sample (oos): from then on.`;
  const skipped = s.skipped.length === 0 ? '' : `<h2>Skipped (${s.skipped.length}, refused by the strategy)</h2><ul>${s.skipped.map((p) => `<li>${escapeHtml(JSON.stringify(p.params))}: ${escapeHtml(p.reason)}</li>`).join('')}</ul>`;
  const failed = s.rows.filter((r) => r.error !== undefined);
  const failedList = failed.length === 0 ? '' : `<h2>Failed (${failed.length})</h2><ul>${failed.map((r) => `<li>${escapeHtml(JSON.stringify(r.params))}: ${escapeHtml(r.error ?? '')}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}#points th{cursor:pointer;background:#f4f4f4}tr.failed td{color:#b71c1c}#heatmap td{min-width:60px}#walk-forward td{white-space:nowrap}#heatmap .empty{color:#aaa;text-align:center}select{margin:0 12px 0 4px}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>${s.interrupted === undefined ? '' : `<p id="interrupted"><strong>${escapeHtml(s.interrupted)}</strong></p>`}
<p>${s.rows.length} points run, ranked by ${escapeHtml(s.objective === undefined ? s.rankBy : `${s.objective.metric} (${s.objective.direction === 'min' ? 'lowest' : 'highest'} first)`)}${s.minTrades === undefined ? '' : `; points with fewer than ${s.minTrades} trades are listed, not ranked (rank -)`} (click a column header to sort by it).${escapeHtml(split)}</p>${s.search === undefined ? '' : `<p id="search">${escapeHtml(searchText(s.search))}</p>`}
${walkForwardHtml(s.walkForward)}
${s.overfitting === undefined ? '' : overfittingHtml(s.overfitting, s.rankBy)}
<h2>Heatmap</h2>
<p>x <select id="hx"></select> y <select id="hy"></select> metric <select id="hm"></select> (each cell: the best value among the points with those two values)</p>
<table id="heatmap"></table>
<h2>Points</h2>
<table id="points"></table>
${recordingsHtml(s.rows)}
${skipped}
${failedList}
<script type="application/json" id="sweep-data">${scriptJson(data)}</script>
<script>${CLIENT}</script>
</body></html>
`;
}
