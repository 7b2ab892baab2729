/**
 * The report's sections on how a strategy earned: the spread its fills captured against the mid
 * (a row per strategy that filled; money in its quote asset), its quote time at the touch (tick data)
 * its inventory over time and its rolling Sharpe ratio (a small
 * chart per strategy, the window stated). Bounded: a row per strategy, 200 points per chart.
 */
import { pctText, ratioNumText } from './figureText.js';
import { lineSvg } from './lineSvg.js';
import { INVENTORY_POINTS } from './inventorySeries.js';
import { spanText } from './metrics.js';
import type { BacktestResult } from './result.js';
import { escapeHtml } from './reportTables.js';

const bps = (x: number | null): string => (x === null ? 'n/a' : `${x.toFixed(2)} bps`);

/** Money with its asset, to six significant digits ("0.0406349 USDT"). */
export function amountText(x: number, asset: string): string {
  return `${Number(x.toPrecision(6))} ${asset}`.trim();
}

/** Spread captured per strategy that filled, or nothing when none did. */
export function spreadCapturedTable(r: BacktestResult): string {
  const rows = Object.entries(r.tearsheet).flatMap(([name, t]) => {
    const s = t.spreadCaptured;
    if (s === undefined || s.fills === 0) return [];
    const cells = [name, String(s.fills), String(s.makerFills), bps(s.meanBps), bps(s.makerMeanBps), amountText(s.totalQuote, r.strategies[name]?.quoteAsset ?? '')];
    return [`<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`];
  });
  if (rows.length === 0) return '';
  const head = '<tr><th>strategy</th><th>fills</th><th>maker fills</th><th>mean per fill</th><th>mean per maker fill</th><th>total</th></tr>';
  return `<h2>Spread captured (fill price against the mark when it filled, from the filler's side: the book mid on tick data, the last price on candles; above 0: bought below or sold above it)</h2><table id="spread-captured">${head}${rows.join('')}</table>`;
}

/** Quote time at the touch per strategy that rested quotes on tick data, or nothing. */
export function quoteTouchTable(r: BacktestResult): string {
  const share = (pct: number | null, n: number): string => (pct === null ? 'n/a' : `${pctText(pct, 1)} of ${n} samples`);
  const rows = Object.entries(r.tearsheet).flatMap(([name, t]) => {
    const q = t.quoteTouch;
    if (q === undefined || q.bidSamples + q.askSamples === 0) return [];
    return [`<tr>${[name, share(q.bidAtTouchPct, q.bidSamples), share(q.askAtTouchPct, q.askSamples)].map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`];
  });
  if (rows.length === 0) return '';
  return `<h2>Quote time at the touch (share of equity samples with a resting quote at which it was at or better than the market's best; the market's book without our orders)</h2><table id="quote-touch"><tr><th>strategy</th><th>bid</th><th>ask</th></tr>${rows.join('')}</table>`;
}

/** A chart of each strategy's rolling Sharpe ratio, or a line saying why there is none. */
export function rollingSharpeSection(r: BacktestResult): string {
  const parts = Object.entries(r.tearsheet).map(([name, t]) => {
    const rs = t.rollingSharpe;
    if (rs === undefined) return '';
    const svg = lineSvg(`rolling-sharpe-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`, rs.points);
    const head = `<h3>${escapeHtml(name)}: window of ${rs.windowReturns} returns (${escapeHtml(spanText(rs.windowMs))})</h3>`;
    if (svg === undefined) return `${head}<p>n/a (${escapeHtml(rs.note ?? 'no variance in any window')})</p>`;
    return `${head}${svg}<p>Per-period Sharpe from ${ratioNumText(rs.min)} to ${ratioNumText(rs.max)}; steady through the run, or carried by one stretch of it.</p>`;
  });
  return `<h2>Rolling Sharpe (per equity period, over a rolling window of the run's returns)</h2>${parts.join('')}`;
}

/** A chart of each strategy's position per symbol over the run, or nothing when none traded. */
export function inventorySection(r: BacktestResult): string {
  const parts = Object.entries(r.tearsheet).flatMap(([name, t]) =>
    Object.entries(t.symbols).flatMap(([sym, st]) => {
      const pts = st.inventory ?? [];
      const svg = lineSvg(`inventory-${`${name}-${sym}`.replace(/[^A-Za-z0-9_-]/g, '_')}`, pts.map((p) => ({ t: p.t, v: p.q })));
      if (svg === undefined) return [];
      const qs = pts.map((p) => p.q);
      return [`<h3>${escapeHtml(`${name}, ${sym}`)}</h3>${svg}<p>From ${Number(Math.min(...qs).toPrecision(6))} to ${Number(Math.max(...qs).toPrecision(6))} (base asset), after fills (at most ${INVENTORY_POINTS} of them kept, spread over the run).</p>`];
    }),
  );
  return parts.length === 0 ? '' : `<h2>Inventory over time (position after fills, base asset)</h2>${parts.join('')}`;
}
