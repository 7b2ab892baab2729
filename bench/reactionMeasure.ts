/**
 * What the reaction bench (bench/reaction.bench.ts) records in a measured stretch and the figures
 * it makes of it. Records are numbers in typed arrays (bench/reactionSamples.ts), so that keeping
 * them adds nothing to the measured bot's heap; the figures are made after the stretch.
 */
import { Pairs } from './reactionSamples.js';
import { percentile } from './report.js';

/** One GC pause: its start (performance.now()), length and kind (a scavenge of the young generation or not). */
export interface GcPause {
  readonly start: number;
  readonly ms: number;
  readonly minor: boolean;
}

/**
 * What the probes and the strategy saw in one measured stretch: trade ids and clientId sequence
 * numbers as keys, times as values.
 */
export class Samples {
  /** Trade frames the strategy answers: trade id -> the read that completed the frame. */
  tickFrames = new Pairs(0);
  /** The same frames: trade id -> handed to the socket's message handlers (the former start). */
  tickHandled = new Pairs(0);
  /** Paper: other public trades (the simulator fills the bid on them): received times, in order. */
  tradeFrames = new Pairs(0);
  /** Live: executionReports of fills: trade id -> the read that completed the frame. */
  fillFrames = new Pairs(0);
  /** Live: the same frames: trade id -> handed to the user socket's message handlers. */
  fillHandled = new Pairs(0);
  /** Orders sent (paper) or their request bytes handed to the socket (live): clientId seq -> time. */
  sent = new Pairs(0);
  /** Live: the request's 'finish' (the former end): clientId seq -> time. */
  finished = new Pairs(0);
  /** When the HTTP transport made each request (clientId seq -> time): the part of tick-to-order spent in the HTTP client. */
  made = new Pairs(0);
  /** When the strategy heard of each tick: trade id -> time. */
  tickAt = new Pairs(0);
  /** clientId seq of each answer -> the trade id it answered (in `at`). */
  answered = new Pairs(0);
  /** Live: the frames ahead of each fill's in its read: trade id -> count (in `at`). */
  fillAhead = new Pairs(0);
  /** The strategy's handler of each fill: trade id -> time. */
  handled = new Pairs(0);
  /** clientId seq of each bid placed on a fill -> the fill's trade id (in `at`). */
  refills = new Pairs(0);
  gc: GcPause[] = [];
  /**
   * RESTART passes of the ledger's checkpoint worker, which hold the journal's commits off
   * (src/core/probes.ts): reported after they end, so kept past the stretch too.
   */
  walRestarts: { start: number; ms: number }[] = [];
  on = false;
  /** When the measured stretch ended (performance.now()). */
  endedAt = Infinity;

  /** Empties every record, with room for `rate` trades/s and `fillRate` fills/s over `seconds` and the drain after it. */
  clear(rate: number, fillRate: number, seconds: number): void {
    const room = Math.ceil((rate + fillRate) * (seconds + 3)) + 1000;
    for (const p of [this.tickFrames, this.tickHandled, this.tradeFrames, this.sent, this.finished, this.made, this.tickAt, this.answered]) p.reset(room);
    const fills = Math.ceil(fillRate * (seconds + 3) * 4) + 1000;
    for (const p of [this.fillFrames, this.fillHandled, this.fillAhead, this.handled, this.refills]) p.reset(fills);
    this.gc = [];
    this.walRestarts = [];
    this.endedAt = Infinity;
  }

  /** Samples left out because a record was full. */
  get dropped(): number {
    return this.#all().reduce((n, p) => n + p.dropped, 0);
  }

  #all(): Pairs[] {
    return [this.tickFrames, this.tickHandled, this.tradeFrames, this.fillFrames, this.fillHandled, this.fillAhead, this.sent, this.finished, this.made, this.tickAt, this.answered, this.handled, this.refills];
  }
}

/** Figures of one list of latencies (ms). */
export interface Dist {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** p50 / p99 / p99.9 / max of `xs`. */
export function dist(xs: readonly number[]): Dist {
  return { n: xs.length, p50: percentile(xs, 50), p99: percentile(xs, 99), p999: percentile(xs, 99.9), max: xs.length > 0 ? Math.max(...xs) : NaN };
}

/** "p50 0.123  p99 ... (n)". */
export const fmt = (d: Dist): string => (d.n === 0 ? 'no samples' : `p50 ${d.p50.toFixed(3)}  p99 ${d.p99.toFixed(3)}  p99.9 ${d.p999.toFixed(3)}  max ${d.max.toFixed(3)} ms (${d.n})`);

/** The figures of one stretch. */
export interface Measured {
  readonly heard: Dist;
  readonly tick: Dist;
  readonly former: Dist;
  readonly client: Dist;
  readonly fill: Dist;
  /** A fill's read -> the bid the strategy placed on it written (live) or sent (paper). */
  readonly fillToOrder: Dist;
  /** Where the slowest fills' time went (live), one line. */
  readonly slowFills: string;
  readonly gc: string;
}

/** Latencies of one stretch: tick-to-order, fill-to-strategy and fill-to-order. */
export function measure(S: Samples, paper: boolean): Measured {
  const trades = S.tickFrames.toMap();
  const handedOver = S.tickHandled.toMap();
  const sent = S.sent.toMap();
  const finished = S.finished.toMap();
  const made = S.made.toMap();
  const tick: number[] = [];
  const former: number[] = [];
  const client: number[] = [];
  const heard: number[] = [];
  for (let i = 0; i < S.tickAt.n; i++) {
    const f = trades.get(S.tickAt.keys[i] as number);
    if (f !== undefined) heard.push((S.tickAt.at[i] as number) - f);
  }
  for (let i = 0; i < S.answered.n; i++) {
    const seq = S.answered.keys[i] as number;
    const at = trades.get(S.answered.at[i] as number);
    const out = sent.get(seq);
    if (at !== undefined && out !== undefined) tick.push(out - at);
    // The former definition: handed to the message handler -> 'finish' (live) or sent (paper).
    const from = handedOver.get(S.answered.at[i] as number);
    const to = paper ? out : finished.get(seq);
    if (from !== undefined && to !== undefined) former.push(to - from);
    const m = made.get(seq);
    if (at !== undefined && out !== undefined && m !== undefined) client.push(out - m);
  }
  const fillRead = fillReads(S, paper);
  const fill: number[] = [];
  for (let i = 0; i < S.handled.n; i++) {
    const at = fillRead(S.handled.keys[i] as number, S.handled.at[i] as number);
    if (at !== undefined) fill.push((S.handled.at[i] as number) - at);
  }
  const handledAt = S.handled.toMap();
  const fillToOrder: number[] = [];
  for (let i = 0; i < S.refills.n; i++) {
    const h = handledAt.get(S.refills.at[i] as number);
    const at = h === undefined ? undefined : fillRead(S.refills.at[i] as number, h);
    const out = sent.get(S.refills.keys[i] as number);
    if (at !== undefined && out !== undefined) fillToOrder.push(out - at);
  }
  const restarts = S.walRestarts.filter((w) => w.start < S.endedAt);
  const wal = restarts.length > 0 ? `; ${restarts.length} WAL restarts (the ledger's checkpoint), max ${Math.max(...restarts.map((w) => w.ms)).toFixed(1)} ms` : '';
  return { heard: dist(heard), tick: dist(tick), former: dist(former), client: dist(client), fill: dist(fill), fillToOrder: dist(fillToOrder), slowFills: paper ? '' : slowFills(S), gc: gcText(S.gc) + wal };
}

/**
 * The read that brought a fill (trade id, handled at): live, its executionReport's; paper, the
 * public trade the simulator filled the bid on, the last trade frame read before the handler.
 */
function fillReads(S: Samples, paper: boolean): (tradeId: number, handledAt: number) => number | undefined {
  if (!paper) {
    const fills = S.fillFrames.toMap();
    return (id) => fills.get(id);
  }
  const trades = S.tradeFrames.at.subarray(0, S.tradeFrames.n);
  return (_id, h) => latestBefore(trades, h);
}

/**
 * The slowest 1 % of live fills (at least 3), each as its total, the part it waited behind the
 * earlier frames of its read (read -> handed over by ws; how many), the rest (handed over -> the
 * strategy's handler: parsing, the orderer, the bus, the tracker and journal), and the GC and the
 * ledger's WAL restarts inside it.
 */
function slowFills(S: Samples): string {
  const read = S.fillFrames.toMap();
  const over = S.fillHandled.toMap();
  const ahead = S.fillAhead.toMap();
  const rows: { total: number; behind: number; frames: number; rest: number; gc: number; wal: number }[] = [];
  for (let i = 0; i < S.handled.n; i++) {
    const id = S.handled.keys[i] as number;
    const h = S.handled.at[i] as number;
    const r = read.get(id);
    const o = over.get(id);
    if (r === undefined || o === undefined) continue;
    rows.push({ total: h - r, behind: o - r, frames: ahead.get(id) ?? 0, rest: h - o, gc: pausedWithin(S.gc, r, h), wal: pausedWithin(S.walRestarts, r, h) });
  }
  rows.sort((a, b) => b.total - a.total);
  const f = (x: number): string => x.toFixed(1);
  return rows
    .slice(0, Math.max(3, Math.ceil(rows.length / 100)))
    .map((x) => `${f(x.total)} (${f(x.behind)} behind ${x.frames} frames of its read, ${f(x.rest)} after, GC ${f(x.gc)}, WAL restart ${f(x.wal)})`)
    .join(', ');
}

/** Milliseconds of the pauses inside [from, to]. */
function pausedWithin(gc: readonly { start: number; ms: number }[], from: number, to: number): number {
  let ms = 0;
  for (const g of gc) ms += Math.max(0, Math.min(to, g.start + g.ms) - Math.max(from, g.start));
  return ms;
}

/** "GC 12 pauses, 41 ms in all, max 9.1 ms (11 scavenges, max 9.1; 1 other, max 3.0)". */
function gcText(gc: readonly GcPause[]): string {
  const max = (xs: readonly { ms: number }[]): string => (xs.length > 0 ? Math.max(...xs.map((g) => g.ms)) : 0).toFixed(1);
  const minor = gc.filter((g) => g.minor);
  const other = gc.filter((g) => !g.minor);
  return `GC ${gc.length} pauses, ${gc.reduce((t, g) => t + g.ms, 0).toFixed(0)} ms in all, max ${max(gc)} ms (${minor.length} scavenges, max ${max(minor)}; ${other.length} other, max ${max(other)})`;
}

function latestBefore(sorted: Float64Array, t: number): number | undefined {
  let best: number | undefined;
  for (const x of sorted) if (x <= t) best = x;
  return best;
}
