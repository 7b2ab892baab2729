/**
 * Markouts of fills (adverse selection): how the mark moved after each fill, from the filler's
 * side, in basis points of the fill price. A buy marked out at `m` a horizon later scores
 * (m - price) / price; a sell, (price - m) / price. Negative means the fills were picked off: the
 * market went against them right after. Descriptive floats: they decide no order.
 */

/** What a markout reads of a fill (result.ts's ReportFill has these; result.ts imports this file). */
export interface MarkedFill {
  readonly t: number;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: string;
}

/** Horizons after a fill (ms) at which fills are marked out. */
export const MARKOUT_HORIZONS_MS = [1000, 10_000, 60_000] as const;

/** A horizon as short text ("1s", "60s"): the way markouts are usually named. */
export function horizonText(ms: number): string {
  return `${ms / 1000}s`;
}

/** A strategy's fills marked out at one horizon. */
export interface Markout {
  readonly horizonMs: number;
  /** Fills with a mark at or after the horizon (those near the end of the run have none). */
  readonly fills: number;
  /** Mean markout in basis points; null without such fills (see `note`). */
  readonly meanBps: number | null;
  readonly note?: string;
}

/** Reads a mark series forward: the first sample at or after a time that never goes back. */
class MarkCursor {
  readonly #it: Iterator<{ t: number; p: number }>;
  #cur: { t: number; p: number } | undefined;
  #done = false;

  constructor(marks: Iterable<{ t: number; p: number }>) {
    this.#it = marks[Symbol.iterator]();
  }

  /** The first mark sampled at or after `t`, or undefined when the samples end before it. */
  at(t: number): number | undefined {
    while (!this.#done && (this.#cur === undefined || this.#cur.t < t)) {
      const n = this.#it.next();
      if (n.done === true) this.#done = true;
      else this.#cur = n.value;
    }
    return this.#cur !== undefined && this.#cur.t >= t ? this.#cur.p : undefined;
  }
}

/**
 * Markouts of every strategy's fills, fed the fills in time order (one pass, sums only). Marks are
 * the sampled ones (every `intervalMs`), so a fill is marked at the first sample at or after
 * fill time + horizon; a horizon shorter than the sampling interval is not measured.
 */
export class MarkoutBuilder {
  readonly #cursors = new Map<string, MarkCursor[]>();
  readonly #sums = new Map<string, { n: number[]; bps: number[] }>();

  constructor(
    readonly intervalMs: number,
    readonly marksOf: (symbol: string) => Iterable<{ t: number; p: number }>,
  ) {}

  /** One fill, in time order across all strategies. */
  fill(f: MarkedFill): void {
    let cs = this.#cursors.get(f.symbol);
    if (cs === undefined) this.#cursors.set(f.symbol, (cs = MARKOUT_HORIZONS_MS.map(() => new MarkCursor(this.marksOf(f.symbol)))));
    let s = this.#sums.get(f.strategy);
    if (s === undefined) this.#sums.set(f.strategy, (s = { n: MARKOUT_HORIZONS_MS.map(() => 0), bps: MARKOUT_HORIZONS_MS.map(() => 0) }));
    const price = Number(f.price);
    if (!(price > 0)) return;
    for (const [i, h] of MARKOUT_HORIZONS_MS.entries()) {
      if (h < this.intervalMs) continue;
      const m = (cs[i] as MarkCursor).at(f.t + h);
      if (m === undefined) continue;
      const move = f.side === 'BUY' ? m - price : price - m;
      s.n[i] = (s.n[i] as number) + 1;
      s.bps[i] = (s.bps[i] as number) + (move / price) * 10_000;
    }
  }

  /** The markouts of one strategy, a row per horizon. */
  of(strategy: string, round: (x: number) => number): Markout[] {
    const s = this.#sums.get(strategy);
    return MARKOUT_HORIZONS_MS.map((h, i) => {
      if (h < this.intervalMs) return { horizonMs: h, fills: 0, meanBps: null, note: `marks sampled every ${this.intervalMs} ms` };
      const n = s?.n[i] ?? 0;
      if (n === 0) return { horizonMs: h, fills: 0, meanBps: null, note: 'no fill with a mark that long after it' };
      return { horizonMs: h, fills: n, meanBps: round((s?.bps[i] ?? 0) / n) };
    });
  }
}
