/**
 * What the report draws beyond equity and marks: the candles of bar data (the closed klines of each
 * symbol's shortest interval) and the series strategies plot (`ctx.plot(name, value)`). Both are
 * kept at most once per sampling interval while the run goes (a plot's last value in the interval),
 * and bounded for the report at the end: candles merged into wider ones, plots thinned to the
 * extremes of each bucket, so a month of minutes draws the same shape in a report of bounded size.
 * Metrics never read these.
 */
import type { KlineEvent } from '../core/marketEvents.js';
import { KlineInterval, type KlineIntervalName } from '../core/enums.js';

/** One candle (open time in ms, prices as the nearest doubles: drawn, never traded on). */
export interface Bar {
  readonly t: number;
  readonly o: number;
  readonly h: number;
  readonly l: number;
  readonly c: number;
}

/** A plotted series of a strategy. */
export interface PlotSeries {
  readonly strategy: string;
  readonly name: string;
  /** The symbol's price chart it overlays (the strategy's first symbol). */
  readonly symbol: string;
  readonly points: readonly { t: number; v: number }[];
}

/** Most points a chart series keeps in a report. */
export const MAX_CHART_POINTS = 4000;

/** Candles merged `k` at a time so at most `max` remain. */
export function mergeBars(bars: readonly Bar[], max = MAX_CHART_POINTS): Bar[] {
  if (bars.length <= max) return [...bars];
  const k = Math.ceil(bars.length / max);
  const out: Bar[] = [];
  for (let i = 0; i < bars.length; i += k) {
    const group = bars.slice(i, i + k);
    const first = group[0] as Bar;
    const last = group[group.length - 1] as Bar;
    out.push({ t: first.t, o: first.o, h: Math.max(...group.map((b) => b.h)), l: Math.min(...group.map((b) => b.l)), c: last.c });
  }
  return out;
}

/**
 * At most about `max` points of a series: per bucket, its lowest and highest point in time order,
 * plus the very first and last, so peaks and troughs (a drawdown's bottom) survive the thinning.
 */
export function thin<T extends { t: number }>(points: readonly T[], value: (p: T) => number, max = MAX_CHART_POINTS): T[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 2) - 1);
  const size = Math.ceil(points.length / buckets);
  const out: T[] = [points[0] as T];
  for (let i = 0; i < points.length; i += size) {
    let lo = i;
    let hi = i;
    for (let j = i; j < Math.min(points.length, i + size); j++) {
      if (value(points[j] as T) < value(points[lo] as T)) lo = j;
      if (value(points[j] as T) > value(points[hi] as T)) hi = j;
    }
    for (const j of lo <= hi ? [lo, hi] : [hi, lo]) if ((out[out.length - 1] as T) !== points[j]) out.push(points[j] as T);
  }
  const last = points[points.length - 1] as T;
  if (out[out.length - 1] !== last) out.push(last);
  return out;
}

/** Collects candles and plots during a run. */
export class ChartSeries {
  readonly #bars = new Map<string, { interval: KlineIntervalName; bars: Bar[] }>();
  /** Plots by strategy, then by name: no key built per call (a strategy may plot on every event). */
  readonly #plots = new Map<string, Map<string, { strategy: string; name: string; symbol: string; points: { t: number; v: number }[] }>>();

  constructor(readonly intervalMs: number) {}

  /** Keeps a closed kline of the shortest interval seen for its symbol. */
  kline(e: KlineEvent): void {
    if (!e.closed) return;
    let s = this.#bars.get(e.symbol);
    if (s === undefined || KlineInterval[e.interval] < KlineInterval[s.interval]) this.#bars.set(e.symbol, (s = { interval: e.interval, bars: [] }));
    if (s.interval !== e.interval) return;
    const n = (x: { toNumber(): number }): number => x.toNumber();
    s.bars.push({ t: e.openTime, o: n(e.open), h: n(e.high), l: n(e.low), c: e.closeNumber ?? n(e.close) });
  }

  /** A strategy's plotted value at time t: one point per sampling interval (the last one given in it). */
  plot(strategy: string, symbol: string, name: string, t: number, v: number): void {
    if (!Number.isFinite(v)) return;
    let byName = this.#plots.get(strategy);
    if (byName === undefined) this.#plots.set(strategy, (byName = new Map()));
    let s = byName.get(name);
    if (s === undefined) byName.set(name, (s = { strategy, name, symbol, points: [] }));
    const slot = Math.floor(t / this.intervalMs) * this.intervalMs;
    const last = s.points[s.points.length - 1];
    if (last !== undefined && last.t === slot) last.v = v;
    else s.points.push({ t: slot, v });
  }

  /** The series for the report, bounded (see MAX_CHART_POINTS), in a fixed order. */
  finish(): { bars: Record<string, Bar[]>; plots: PlotSeries[] } {
    const bars: Record<string, Bar[]> = {};
    for (const sym of [...this.#bars.keys()].sort()) bars[sym] = mergeBars(this.#bars.get(sym)?.bars ?? []);
    const plots = [...this.#plots.values()]
      .flatMap((m) => [...m.values()])
      .sort((a, b) => (a.strategy === b.strategy ? (a.name < b.name ? -1 : 1) : a.strategy < b.strategy ? -1 : 1))
      .map((p) => ({ strategy: p.strategy, name: p.name, symbol: p.symbol, points: thin(p.points, (x) => x.v) }));
    return { bars, plots };
  }
}
