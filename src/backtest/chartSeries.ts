/**
 * What the report draws beyond equity and marks: the candles of bar data (the closed klines of each
 * symbol's shortest interval, every one, as doubles the reader already has) and the series
 * strategies plot (`ctx.plot(name, value)`, at most once per sampling interval: a plot's last value
 * in the interval). Both are spooled while the run goes and bounded for the report at the end:
 * candles merged into wider ones, plots thinned to the extremes of each bucket, so a month of
 * minutes draws the same shape in a report of bounded size.
 * Metrics never read these.
 */
import type { KlineEvent } from '../core/marketEvents.js';
import { KlineInterval, type KlineIntervalName } from '../core/enums.js';
import { NumberSpool } from './spool.js';

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
  /** The symbol's price chart it is drawn with (the strategy's first symbol). */
  readonly symbol: string;
  /** The pane below the price it is drawn in (absent: over the price, on its axis). */
  readonly pane?: string;
  readonly points: readonly { t: number; v: number }[];
}

/** Most points a chart series keeps in a report. */
export const MAX_CHART_POINTS = 4000;

/** Candles merged `k` at a time so at most `max` remain. */
export function mergeBars(bars: readonly Bar[], max = MAX_CHART_POINTS): Bar[] {
  return mergeBarsOf(bars, bars.length, max);
}

/** {@link mergeBars} of `count` candles read once, in order. */
export function mergeBarsOf(bars: Iterable<Bar>, count: number, max = MAX_CHART_POINTS): Bar[] {
  if (count <= max) return [...bars];
  const m = new BarMerger(Math.ceil(count / max));
  for (const b of bars) m.add(b.t, b.o, b.h, b.l, b.c);
  return m.done();
}

/** Merges candles given one at a time, `k` into one. */
class BarMerger {
  readonly #out: Bar[] = [];
  #i = 0;
  #open: { t: number; o: number; h: number; l: number; c: number } | undefined;

  constructor(readonly k: number) {}

  add(t: number, o: number, h: number, l: number, c: number): void {
    const open = this.#open;
    if (this.#i++ % this.k === 0) {
      if (open !== undefined) this.#out.push(open);
      this.#open = { t, o, h, l, c };
    } else if (open !== undefined) {
      open.h = Math.max(open.h, h);
      open.l = Math.min(open.l, l);
      open.c = c;
    }
  }

  done(): Bar[] {
    if (this.#open !== undefined) this.#out.push(this.#open);
    this.#open = undefined;
    return this.#out;
  }
}

/**
 * At most about `max` points of a series: per bucket, its lowest and highest point in time order,
 * plus the very first and last, so peaks and troughs (a drawdown's bottom) survive the thinning.
 */
export function thin<T extends { t: number }>(points: readonly T[], value: (p: T) => number, max = MAX_CHART_POINTS): T[] {
  return thinStream(points, points.length, value, max);
}

/**
 * {@link thin} of `count` points read once, in order: only the points kept (and the current
 * bucket's extremes) are held.
 */
export function thinStream<T extends { t: number }>(points: Iterable<T>, count: number, value: (p: T) => number, max = MAX_CHART_POINTS): T[] {
  if (count <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 2) - 1);
  const size = Math.ceil(count / buckets);
  const out: T[] = [];
  let outLast = -1;
  const keep = (p: T, i: number): void => {
    if (i !== outLast) {
      out.push(p);
      outLast = i;
    }
  };
  let lo: T | undefined;
  let hi: T | undefined;
  let loI = 0;
  let hiI = 0;
  const flush = (): void => {
    if (lo === undefined || hi === undefined) return;
    if (loI <= hiI) {
      keep(lo, loI);
      keep(hi, hiI);
    } else {
      keep(hi, hiI);
      keep(lo, loI);
    }
  };
  let i = 0;
  let last: T | undefined;
  for (const p of points) {
    if (i === 0) keep(p, 0);
    if (i % size === 0) {
      flush();
      lo = hi = p;
      loI = hiI = i;
    } else {
      const v = value(p);
      if (v < value(lo as T)) {
        lo = p;
        loI = i;
      }
      if (v > value(hi as T)) {
        hi = p;
        hiI = i;
      }
    }
    last = p;
    i++;
  }
  flush();
  if (last !== undefined) keep(last, i - 1);
  return out;
}

/** The nearest double of a decimal (module level: a closure made per bar costs more than its work). */
function n(x: { toNumber(): number }): number {
  return x.toNumber();
}

/** A plotted series while the run goes: its points spooled, the last one still open to a later value in its slot. */
interface PlotTrack {
  readonly strategy: string;
  readonly name: string;
  readonly symbol: string;
  readonly pane: string | undefined;
  readonly points: NumberSpool;
  slot: number;
  v: number;
}

/**
 * Collects candles and plots during a run, spooled (./spool.ts): a long run's candles and plotted
 * points are not held in memory, only the bounded series the report draws are built at the end.
 */
export class ChartSeries {
  readonly #bars = new Map<string, { interval: KlineIntervalName; bars: NumberSpool }>();
  #lastSymbol: string | undefined;
  #lastBars: { interval: KlineIntervalName; bars: NumberSpool } | undefined;
  /** Plots by strategy, then by name: no key built per call (a strategy may plot on every event). */
  readonly #plots = new Map<string, Map<string, PlotTrack>>();
  readonly #row = [0, 0, 0, 0, 0];
  /** The strategy, its map and the time and slot of the last plot (see plot). */
  #lastStrategy: string | undefined;
  #lastByName: Map<string, PlotTrack> | undefined;
  #lastT = Number.NaN;
  #lastSlot = 0;

  constructor(readonly intervalMs: number) {}

  /** Keeps a closed kline of the shortest interval seen for its symbol. */
  kline(e: KlineEvent): void {
    if (!e.closed) return;
    // Bar data is nearly always one symbol's: its series is the one of the bar before.
    let s = e.symbol === this.#lastSymbol ? this.#lastBars : this.#bars.get(e.symbol);
    if (s === undefined || (e.interval !== s.interval && KlineInterval[e.interval] < KlineInterval[s.interval])) {
      s?.bars.dispose();
      this.#bars.set(e.symbol, (s = { interval: e.interval, bars: new NumberSpool(5) }));
    }
    this.#lastSymbol = e.symbol;
    this.#lastBars = s;
    if (s.interval !== e.interval) return;
    const row = this.#row;
    row[0] = e.openTime;
    // The reader's doubles where it has them: a Decimal built and printed per bar only to be drawn
    // was most of a candle backtest's time.
    row[1] = e.openNumber ?? n(e.open);
    row[2] = e.highNumber ?? n(e.high);
    row[3] = e.lowNumber ?? n(e.low);
    row[4] = e.closeNumber ?? n(e.close);
    s.bars.push(row);
  }

  /**
   * A strategy's plotted value at time t: one point per sampling interval (the last one given in
   * it), in the pane of the series' first point (undefined: over the price).
   */
  plot(strategy: string, symbol: string, name: string, t: number, v: number, pane?: string): void {
    if (!Number.isFinite(v)) return;
    // A strategy plots several series at one time, every bar: the slot and its map are those of the call before.
    let byName = strategy === this.#lastStrategy ? this.#lastByName : this.#plots.get(strategy);
    if (byName === undefined) this.#plots.set(strategy, (byName = new Map()));
    this.#lastStrategy = strategy;
    this.#lastByName = byName;
    const slot = this.#slotAt(t);
    const s = byName.get(name);
    if (s === undefined) byName.set(name, { strategy, name, symbol, pane, points: new NumberSpool(2), slot, v });
    else put(s, slot, v);
  }

  /**
   * {@link plot} of one series over the price (no pane), named once: each call hands a time and a
   * value. Its track is the one plot keeps (made at the series' first finite value), found once.
   */
  overlay(strategy: string, symbol: string, name: string): (t: number, v: number) => void {
    let s: PlotTrack | undefined;
    return (t, v) => {
      if (s === undefined) {
        this.plot(strategy, symbol, name, t, v);
        s = this.#plots.get(strategy)?.get(name);
      } else if (Number.isFinite(v)) put(s, this.#slotAt(t), v);
    };
  }

  /** The start of the sampling interval of time t (that of the call before when t is the same). */
  #slotAt(t: number): number {
    if (t !== this.#lastT) {
      this.#lastT = t;
      this.#lastSlot = Math.floor(t / this.intervalMs) * this.intervalMs;
    }
    return this.#lastSlot;
  }

  /** The series for the report, bounded (see MAX_CHART_POINTS), in a fixed order; the spools are emptied. */
  finish(): { bars: Record<string, Bar[]>; plots: PlotSeries[] } {
    const bars: Record<string, Bar[]> = {};
    for (const sym of [...this.#bars.keys()].sort()) {
      const spool = this.#bars.get(sym)?.bars;
      if (spool === undefined) continue;
      bars[sym] = mergeSpooledBars(spool);
      spool.dispose();
    }
    const plots = [...this.#plots.values()]
      .flatMap((m) => [...m.values()])
      .sort((a, b) => (a.strategy === b.strategy ? (a.name < b.name ? -1 : 1) : a.strategy < b.strategy ? -1 : 1))
      .map((p) => {
        p.points.push([p.slot, p.v]);
        const points = thinStream(pointsOf(p.points), p.points.length, (x) => x.v);
        p.points.dispose();
        // No pane key for an overlay: a result without panes reads as before.
        return p.pane === undefined ? { strategy: p.strategy, name: p.name, symbol: p.symbol, points } : { strategy: p.strategy, name: p.name, symbol: p.symbol, pane: p.pane, points };
      });
    return { bars, plots };
  }
}

/** A series' value at a slot: the last one given in it is kept, the slot before is written out when it ends. */
function put(s: PlotTrack, slot: number, v: number): void {
  if (s.slot === slot) s.v = v;
  else {
    s.points.push([s.slot, s.v]);
    s.slot = slot;
    s.v = v;
  }
}

function* barsOf(spool: NumberSpool): Generator<Bar> {
  for (const { data, rows } of spool.chunks()) for (let r = 0; r < rows; r++) yield { t: data[5 * r] as number, o: data[5 * r + 1] as number, h: data[5 * r + 2] as number, l: data[5 * r + 3] as number, c: data[5 * r + 4] as number };
}

/**
 * {@link mergeBarsOf} of the spooled candles (rows t, o, h, l, c) read from the spool's chunks:
 * no object per candle for the million of a month of minutes merged into a few thousand.
 */
function mergeSpooledBars(spool: NumberSpool, max = MAX_CHART_POINTS): Bar[] {
  if (spool.length <= max) return [...barsOf(spool)];
  const m = new BarMerger(Math.ceil(spool.length / max));
  for (const { data, rows } of spool.chunks()) for (let at = 0; at < 5 * rows; at += 5) m.add(data[at] as number, data[at + 1] as number, data[at + 2] as number, data[at + 3] as number, data[at + 4] as number);
  return m.done();
}

function* pointsOf(spool: NumberSpool): Generator<{ t: number; v: number }> {
  for (const { data, rows } of spool.chunks()) for (let r = 0; r < rows; r++) yield { t: data[2 * r] as number, v: data[2 * r + 1] as number };
}
