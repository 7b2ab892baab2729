/**
 * The long lists of a result (equity and price samples, fills, round trips) read one at a time.
 * A result built by the collector keeps them in spools (./spool.ts) and its array fields are only
 * built when something reads them (JSON.stringify of a sweep's worker, a test); the writers of
 * result.json and report.html and the summary read them through {@link streamsOf}, so writing a
 * day's result never holds its lists whole. A result from elsewhere (parsed from JSON) is read from
 * its arrays the same way.
 */
import { writeJsonFile } from './jsonFile.js';
import type { BacktestResult, ReportFill, RoundTrip } from './result.js';

/** One equity sample: time and one value per strategy (in `strategies` order), the total last. */
export interface EquityRow {
  readonly t: number;
  readonly v: readonly number[];
}

/** A result's lists, each readable any number of times, with their lengths. */
export interface ResultStreams {
  readonly equityCount: number;
  equity(): Iterable<EquityRow>;
  /** Price sample counts by symbol, in the result's symbol order. */
  readonly priceCounts: Readonly<Record<string, number>>;
  prices(symbol: string): Iterable<{ t: number; p: number }>;
  readonly fillCount: number;
  fills(): Iterable<ReportFill>;
  readonly roundTripCount: number;
  roundTrips(): Iterable<RoundTrip>;
  /** Removes what the lists spilled to disk; the result's lists are empty afterwards. */
  dispose(): void;
}

const registered = new WeakMap<BacktestResult, ResultStreams>();

/** Ties `streams` to `result` (the collector does, for the result it builds). */
export function registerStreams(result: BacktestResult, streams: ResultStreams): void {
  registered.set(result, streams);
}

/** The lists of `r`, from its spools when the collector built it, else from its arrays. */
export function streamsOf(r: BacktestResult): ResultStreams {
  const s = registered.get(r);
  if (s !== undefined) return s;
  const priceCounts: Record<string, number> = {};
  for (const [sym, px] of Object.entries(r.prices)) priceCounts[sym] = px.length;
  return {
    equityCount: r.equity.length,
    equity: () => r.equity,
    priceCounts,
    prices: (symbol) => r.prices[symbol] ?? [],
    fillCount: r.fills.length,
    fills: () => r.fills,
    roundTripCount: r.roundTrips.length,
    roundTrips: () => r.roundTrips,
    dispose: () => undefined,
  };
}

/** The items of `xs` that pass `keep`, lazily. */
export function* filtered<T>(xs: Iterable<T>, keep: (x: T) => boolean): Generator<T> {
  for (const x of xs) if (keep(x)) yield x;
}

/** The items of `xs` mapped by `f`, lazily. */
export function* mapped<T, U>(xs: Iterable<T>, f: (x: T) => U): Generator<U> {
  for (const x of xs) yield f(x);
}

/** Writes `r` as result.json (`JSON.stringify(r, null, 2)`, byte for byte), its lists read one element at a time. */
export function writeResultJson(file: string, r: BacktestResult): void {
  const s = streamsOf(r);
  writeJsonFile(file, r, {
    equity: { items: () => s.equity() },
    prices: { groups: Object.keys(s.priceCounts).map((sym) => [sym, () => s.prices(sym)] as const) },
    fills: { items: () => s.fills() },
    roundTrips: { items: () => s.roundTrips() },
  });
}
