/**
 * What the report's charts draw, built from a result and bounded: every series is thinned to
 * MAX_CHART_POINTS (extremes kept), candles merged, and fills beyond MAX_FILL_MARKERS grouped per
 * time bucket and side into one marker each. Metrics and tables are computed from the full result;
 * only what is drawn is thinned, so a month of data gives a report of bounded size that shows the
 * whole run at once.
 */
import { thinStream, type Bar, type PlotSeries } from './chartSeries.js';
import type { BacktestResult, ReportFill } from './result.js';
import { filtered, mapped, streamsOf } from './resultStreams.js';

/** Most fill markers per symbol before they are grouped. */
export const MAX_FILL_MARKERS = 2000;

/** A marker: time (ms), side, and the text shown on hover. */
export interface FillMarker {
  readonly t: number;
  readonly side: 'BUY' | 'SELL';
  readonly text: string;
}

/** The charts' data. */
export interface ChartData {
  readonly names: readonly string[];
  /** One series per strategy, TOTAL last. */
  readonly equity: readonly (readonly { t: number; v: number }[])[];
  /** Buy-and-hold of `benchmarkSymbol` with the total's initial equity, when the run has its marks. */
  readonly benchmark: readonly { t: number; v: number }[];
  readonly benchmarkSymbol: string | undefined;
  /** Drawdown of the total from its running peak, in percent (0 or below). */
  readonly underwater: readonly { t: number; v: number }[];
  /** Per symbol: candles (bar data) or a mark line (tick data), with its fill markers and plots. */
  readonly symbols: readonly { symbol: string; bars: readonly Bar[]; line: readonly { t: number; v: number }[]; markers: readonly FillMarker[]; plots: readonly PlotSeries[] }[];
}

function fillText(f: ReportFill): string {
  return `${new Date(f.t).toISOString()} ${f.strategy} ${f.side} ${f.qty} @ ${f.price}, fee ${f.fee}${f.feeAsset === null ? '' : ` ${f.feeAsset}`}${f.maker ? ', maker' : ', taker'}`;
}

/** One marker per fill, or per time bucket and side once there are more than MAX_FILL_MARKERS. */
export function fillMarkers(fills: readonly ReportFill[], start: number, end: number, max = MAX_FILL_MARKERS): FillMarker[] {
  return fillMarkersOf(fills, fills.length, start, end, max);
}

/** {@link fillMarkers} of `count` fills read once, in order. */
function fillMarkersOf(fills: Iterable<ReportFill>, count: number, start: number, end: number, max = MAX_FILL_MARKERS): FillMarker[] {
  if (count <= max) return [...mapped(fills, (f) => ({ t: f.t, side: f.side, text: fillText(f) }))];
  const bucket = Math.max(1, Math.ceil((end - start + 1) / (max / 2)));
  const groups = new Map<string, { t: number; side: 'BUY' | 'SELL'; n: number; qty: number; notional: number }>();
  for (const f of fills) {
    const b = Math.floor((f.t - start) / bucket);
    const key = `${b}:${f.side}`;
    const q = Number(f.qty);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { t: start + b * bucket, side: f.side, n: 1, qty: q, notional: q * Number(f.price) });
    else {
      g.n++;
      g.qty += q;
      g.notional += q * Number(f.price);
    }
  }
  return [...groups.values()]
    .sort((a, b) => a.t - b.t || (a.side < b.side ? -1 : 1))
    .map((g) => ({ t: g.t, side: g.side, text: `${g.n} ${g.side === 'BUY' ? 'buys' : 'sells'} from ${new Date(g.t).toISOString()} over ${Math.round(bucket / 1000)} s: ${Number(g.qty.toPrecision(8))} at ${Number((g.notional / g.qty).toPrecision(10))} on average` }));
}

/** Percent below the running peak at each point (0 at a new peak). */
export function underwater(curve: readonly { t: number; v: number }[]): { t: number; v: number }[] {
  return [...underwaterOf(curve)];
}

function* underwaterOf(curve: Iterable<{ t: number; v: number }>): Generator<{ t: number; v: number }> {
  let peak = -Infinity;
  for (const p of curve) {
    if (p.v > peak) peak = p.v;
    yield { t: p.t, v: peak > 0 ? Number((((p.v - peak) / peak) * 100).toPrecision(8)) : 0 };
  }
}

/** The charts' data of a result (its lists read through streamsOf, one pass per series). */
export function chartData(r: BacktestResult): ChartData {
  const s = streamsOf(r);
  const names = [...Object.keys(r.strategies), 'TOTAL'];
  const n = s.equityCount;
  const value = (p: { v: number }): number => p.v;
  const column = (i: number): Iterable<{ t: number; v: number }> => mapped(s.equity(), (e) => ({ t: e.t, v: e.v[i] ?? 0 }));
  const benchmarkSymbol = Object.values(r.tearsheet)[0]?.buyHoldSymbol;
  const pxCount = benchmarkSymbol === undefined ? 0 : (s.priceCounts[benchmarkSymbol] ?? 0);
  let first: number | undefined;
  for (const p of benchmarkSymbol === undefined ? [] : s.prices(benchmarkSymbol)) {
    first = p.p;
    break;
  }
  let init: number | undefined;
  for (const e of s.equity()) {
    init = e.v[names.length - 1] ?? 0;
    break;
  }
  const benchmark = first === undefined || init === undefined || first <= 0 || benchmarkSymbol === undefined ? [] : thinStream(mapped(s.prices(benchmarkSymbol), (p) => ({ t: p.t, v: (init * p.p) / first })), pxCount, value);
  const symbols = Object.keys(s.priceCounts).map((symbol) => {
    const bars = r.bars[symbol] ?? [];
    let fills = 0;
    for (const f of s.fills()) if (f.symbol === symbol) fills++;
    return {
      symbol,
      bars,
      line: bars.length > 0 ? [] : thinStream(mapped(s.prices(symbol), (p) => ({ t: p.t, v: p.p })), s.priceCounts[symbol] ?? 0, value),
      markers: fillMarkersOf(
        filtered(s.fills(), (f) => f.symbol === symbol),
        fills,
        r.start,
        r.end,
      ),
      plots: r.plots.filter((p) => p.symbol === symbol),
    };
  });
  return {
    names,
    equity: names.map((_, i) => thinStream(column(i), n, value)),
    benchmark,
    benchmarkSymbol,
    underwater: thinStream(underwaterOf(column(names.length - 1)), n, value),
    symbols,
  };
}
