/**
 * The walk-forward part of a sweep's reports (sweep.md and sweep.html): per window the chosen
 * point and, side by side, like with like: the objective in and out of sample, the annualised
 * return in and out of sample and their ratio (the walk-forward efficiency); then the stitched
 * out-of-sample totals and equity curve, each with a sentence on how to read it.
 */
import { pctText, ratioNumText } from './figureText.js';
import type { CurvePoint } from './equityCurve.js';
import { escapeHtml } from './reportTables.js';
import { lineSvg } from './lineSvg.js';
import { objectiveText } from './sweepObjective.js';
import type { WalkForwardResult, WalkForwardWindow } from './sweepWalkForward.js';

const HEAD = (wf: WalkForwardResult): string[] => ['window', 'in sample', 'out of sample', 'chosen', `${wf.rankBy} in sample`, `${wf.rankBy} out of sample`, 'annualised return in sample', 'annualised return out of sample', 'efficiency', 'oos netPnl', 'oos trades', 'error'];

const READ = 'Efficiency: out-of-sample annualised return over in-sample annualised return (simple, not compounded) of the point each window chose. Near 1 or above, what the choice earned in sample held on data it never saw; near 0 or below, the in-sample figures were mostly fit to noise. n/a where the in-sample return is not above 0.';

function num(x: number | null | undefined): string {
  return x === undefined ? '' : x === null ? 'n/a' : Number(x.toPrecision(6)).toString();
}

function cells(w: WalkForwardWindow, time: (t: number | undefined) => string): string[] {
  const o = w.outOfSampleMetrics;
  return [
    String(w.window),
    `${time(w.inSample.start)} .. ${time(w.inSample.end + 1)}`,
    `${time(w.outOfSample.start)} .. ${time(w.outOfSample.end + 1)}`,
    w.params === undefined ? '' : JSON.stringify(w.params),
    num(w.inSampleObjective),
    num(w.outOfSampleObjective),
    w.inSampleAnnualPct === undefined ? '' : pctText(w.inSampleAnnualPct),
    w.outOfSampleAnnualPct === undefined ? '' : pctText(w.outOfSampleAnnualPct),
    w.efficiency === undefined ? '' : ratioNumText(w.efficiency),
    o === undefined ? '' : `${o.netPnl} ${o.quoteAsset}`,
    o === undefined ? '' : String(o.trades),
    w.error ?? '',
  ];
}

function totalsText(wf: WalkForwardResult): string {
  const t = wf.outOfSample;
  // Nothing to add up: figures of 0 with no asset would read as a flat result.
  if (t.windows === 0) return 'Stitched out of sample: no window chose a point (each window says why).';
  const quote = wf.windows.find((w) => w.outOfSampleMetrics !== undefined)?.outOfSampleMetrics?.quoteAsset ?? '';
  return `Stitched out of sample (${t.windows} windows, each from the configured budget): netPnl ${t.netPnl} ${quote}, return ${pctText(t.returnPct)} (compounded), fees ${t.fees} ${quote}, trades ${t.trades}, profitable windows ${t.profitableWindows} of ${t.windows}, walk-forward efficiency ${ratioNumText(t.efficiency)}.`;
}

/** The walk-forward windows and their stitched totals as Markdown. */
export function walkForwardTable(wf: WalkForwardResult): string {
  const day = (t: number | undefined): string => (t === undefined ? 'data start' : new Date(t).toISOString());
  const rows = wf.windows.map((w) => `| ${cells(w, day).map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`);
  const head = HEAD(wf);
  return `\nWalk-forward (${wf.anchored ? 'anchored' : 'rolling'} in-sample windows; each window's best point by ${objectiveText(wf.objective)} in sample, run on the next out-of-sample window):\n\n| ${head.join(' | ')} |\n|${' --- |'.repeat(head.length)}\n${rows.join('\n')}\n\n${totalsText(wf)}\n${READ}\n`;
}

/** The stitched curve as an inline SVG line, with its first and last equity. */
export function curveSvg(curve: readonly CurvePoint[]): string {
  const svg = lineSvg('stitched-equity', curve);
  if (svg === undefined) return '<p>No out-of-sample equity to draw.</p>';
  const vs = curve.map((p) => p.v);
  return `${svg}<p>From ${num(vs[0])} to ${num(vs[vs.length - 1])} (low ${num(Math.min(...vs))}, high ${num(Math.max(...vs))}).</p>`;
}

/** Walk-forward windows, the stitched totals and the stitched out-of-sample equity as HTML. */
export function walkForwardHtml(wf: WalkForwardResult | undefined): string {
  if (wf === undefined) return '';
  const time = (t: number | undefined): string => (t === undefined ? 'data start' : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  const rows = wf.windows.map((w) => `<tr>${cells(w, time).map((x) => `<td>${escapeHtml(x)}</td>`).join('')}</tr>`);
  return `<h2>Walk-forward</h2><p>${wf.anchored ? 'Anchored' : 'Rolling'} in-sample windows; each window's best point by ${escapeHtml(objectiveText(wf.objective))} in sample, run on the out-of-sample window after it.</p>
<table id="walk-forward"><tr>${HEAD(wf).map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>${rows.join('')}</table>
<p>${escapeHtml(totalsText(wf))}</p><p>${escapeHtml(READ)}</p>
<h3>Stitched out-of-sample equity</h3><p>Each window's equity after the last one's, as if its growth were carried over; what choosing parameters this way would have earned.</p>${curveSvg(wf.stitchedEquity)}`;
}
