/**
 * Two clocks for a recording: each replayed item reaches the simulated exchange at its exchange
 * time and the strategy at its receive time (hftbacktest's `exch_ts` and `local_ts`). A recorded
 * trade consumed its liquidity at its trade time, before any client heard of it; a depth diff is
 * the book as the exchange had it at its event time. So the matching engine's replayed liquidity,
 * the trades consuming it and our resting orders' queue and fills move at exchange time, while
 * local books, bars and published events follow receive time (feedTime.ts).
 *
 * {@link twoClockBatches} turns batches in receive-time order into steps in one time order, each
 * marked with the clock it drives ({@link StepClock}): an item whose exchange time equals its
 * receive time (or that has no exchange part) is one `both` step, as a single-clock replay had it;
 * any other becomes an `exchange` step at its exchange time and a `local` step at its receive time.
 * Steps at the same ms keep the items' receive order (the exchange's part of an item comes before
 * its local part).
 *
 * Exchange time of an item: a depth diff's event time `E`, a trade's trade time `T`, a snapshot's
 * receive time (a REST answer carries no time; its lastUpdateId places it among the diffs). The
 * recording's clocks disagree, so the time is bounded before use:
 * - never after the receive time (`x <= t`): a message cannot be heard before it happened, and a
 *   later stamp is clock skew (the recorder's offset is only estimated, feedTime.ts);
 * - never before the previous exchange time of its stream (the symbol's book: snapshot and diffs;
 *   its trades): each stream keeps its own order, which the book's update ids and the trade ids
 *   need; across streams exchange times interleave freely (a trade printed before a diff that was
 *   received first is applied first);
 * - never more than `maxLagMs` before the receive time (`backtest.feed.maxExchangeLagMs`, default
 *   1,000): the look-ahead is bounded (on the BTCUSDT recordings the largest lag is 217 ms, a trade
 *   the exchange published late). 0 gives one clock: every item is one `both` step.
 */
import { DEFAULT_MAX_EXCHANGE_LAG_MS } from '../config/schema.js';
import type { RecordedItem } from '../record/reader.js';
import type { TimedBatch } from './merge.js';

/** Which clock a replay step drives: both (one instant), the simulated exchange only, or the strategy's side only. */
export const StepClock = { both: 0, exchange: 1, local: 2 } as const;
/** One of {@link StepClock}'s values. */
export type StepClock = (typeof StepClock)[keyof typeof StepClock];

/** Timed items with the clock each step drives (absent: every step is `both`). */
export interface ClockedBatch<T> extends TimedBatch<T> {
  readonly clocks?: readonly StepClock[];
}

/** The exchange's own time of an item with an exchange part, else undefined (the item only reaches the strategy's side). */
function exchangeTimeOf(it: RecordedItem, t: number): number | undefined {
  if (it.kind === 'snapshot') return t;
  const e = it.event;
  if (e.type === 'depthDiff') return e.E;
  if (e.type === 'trade') return e.tradeTime;
  return undefined;
}

/** Last exchange time per stream of a symbol. */
interface StreamTimes {
  book: number;
  trade: number;
}

/**
 * Splits items in receive-time order into exchange and local steps in one time order (see the
 * header). Steps are held until no later item can precede them: `maxLagMs` of receive time.
 */
export class TwoClockSplitter {
  readonly #maxLag: number;
  /** Items not yet given out locally, in receive order: times, exchange times (NaN: one `both` step), items. */
  #t: number[] = [];
  #x: number[] = [];
  #items: RecordedItem[] = [];
  /** Index in the arrays above of the next local step (earlier slots are spent; compacted now and then). */
  #head = 0;
  /** Pending exchange steps as array indices, a binary min-heap on (exchange time, index). */
  readonly #heap: number[] = [];
  readonly #streams = new Map<string, StreamTimes>();
  #lastT = -Infinity;

  constructor(maxLagMs = DEFAULT_MAX_EXCHANGE_LAG_MS) {
    if (!(Number.isFinite(maxLagMs) && maxLagMs >= 0)) throw new RangeError(`maxLagMs must be a non-negative number, got ${String(maxLagMs)}`);
    this.#maxLag = maxLagMs;
  }

  /** Adds an item replayed at receive time `t` (non-decreasing across calls). */
  push(t: number, item: RecordedItem): void {
    if (t < this.#lastT) throw new RangeError(`receive times must not go back: ${t} after ${this.#lastT}`);
    this.#lastT = t;
    const i = this.#t.length;
    this.#t.push(t);
    this.#items.push(item);
    const e = exchangeTimeOf(item, t);
    if (e === undefined) {
      this.#x.push(NaN);
      return;
    }
    const symbol = item.kind === 'snapshot' ? item.symbol : item.event.symbol;
    let st = this.#streams.get(symbol);
    if (st === undefined) this.#streams.set(symbol, (st = { book: -Infinity, trade: -Infinity }));
    const isTrade = item.kind === 'market' && item.event.type === 'trade';
    const x = Math.min(t, Math.max(e, isTrade ? st.trade : st.book, t - this.#maxLag));
    if (isTrade) st.trade = x;
    else st.book = x;
    if (x === t) {
      this.#x.push(NaN);
      return;
    }
    this.#x.push(x);
    this.#heapPush(i);
  }

  /**
   * Moves the steps that no later item can precede into `out` (all of them with `all`, at the end
   * of the data): a later item's exchange time is at least the last receive time minus the bound.
   */
  drain(out: { times: number[]; items: RecordedItem[]; clocks: StepClock[] }, all = false): void {
    const safe = all ? Infinity : this.#lastT - this.#maxLag;
    const tArr = this.#t;
    const xArr = this.#x;
    const heap = this.#heap;
    for (;;) {
      const h = this.#head;
      const localT = h < tArr.length ? (tArr[h] as number) : Infinity;
      const top = heap.length > 0 ? (heap[0] as number) : -1;
      const exchT = top >= 0 ? (xArr[top] as number) : Infinity;
      // The earlier step first; at the same ms the earlier item (the heap's index is never the head's: x < t).
      if (top >= 0 && (exchT < localT || (exchT === localT && top < h))) {
        if (exchT > safe) break;
        this.#heapPop();
        out.times.push(exchT);
        out.items.push(this.#items[top] as RecordedItem);
        out.clocks.push(StepClock.exchange);
        continue;
      }
      if (h >= tArr.length || localT > safe) break;
      out.times.push(localT);
      out.items.push(this.#items[h] as RecordedItem);
      out.clocks.push(Number.isNaN(xArr[h]) ? StepClock.both : StepClock.local);
      this.#head = h + 1;
    }
    this.#compact();
  }

  /** Drops spent slots once they are most of the arrays (indices in the heap shift with them). */
  #compact(): void {
    const h = this.#head;
    if (h < 4096 || h * 2 < this.#t.length) return;
    // Every heap entry is at or after the head: its item's local step is still to come.
    this.#t = this.#t.slice(h);
    this.#x = this.#x.slice(h);
    this.#items = this.#items.slice(h);
    const heap = this.#heap;
    for (let k = 0; k < heap.length; k++) heap[k] = (heap[k] as number) - h;
    this.#head = 0;
  }

  /** Heap order: earlier exchange time first, then the earlier item. */
  #less(a: number, b: number): boolean {
    const xa = this.#x[a] as number;
    const xb = this.#x[b] as number;
    return xa < xb || (xa === xb && a < b);
  }

  #heapPush(i: number): void {
    const heap = this.#heap;
    let k = heap.length;
    heap.push(i);
    while (k > 0) {
      const p = (k - 1) >> 1;
      const pi = heap[p] as number;
      if (!this.#less(i, pi)) break;
      heap[k] = pi;
      k = p;
    }
    heap[k] = i;
  }

  #heapPop(): void {
    const heap = this.#heap;
    const last = heap.pop() as number;
    if (heap.length === 0) return;
    const n = heap.length;
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.#less(heap[r] as number, heap[l] as number) ? r : l;
      const ci = heap[c] as number;
      if (!this.#less(ci, last)) break;
      heap[k] = ci;
      k = c;
    }
    heap[k] = last;
  }
}

/**
 * Receive-time batches as two-clock steps (see the header), in batches: one output batch per input
 * batch (when it released anything) and the rest at the end of the data.
 */
export async function* twoClockBatches(batches: AsyncIterable<TimedBatch<RecordedItem>>, maxLagMs = DEFAULT_MAX_EXCHANGE_LAG_MS): AsyncGenerator<ClockedBatch<RecordedItem>> {
  const split = new TwoClockSplitter(maxLagMs);
  for await (const b of batches) {
    for (let i = 0; i < b.items.length; i++) split.push(b.times[i] as number, b.items[i] as RecordedItem);
    const out = { times: [] as number[], items: [] as RecordedItem[], clocks: [] as StepClock[] };
    split.drain(out);
    if (out.items.length > 0) yield out;
  }
  const out = { times: [] as number[], items: [] as RecordedItem[], clocks: [] as StepClock[] };
  split.drain(out, true);
  if (out.items.length > 0) yield out;
}
