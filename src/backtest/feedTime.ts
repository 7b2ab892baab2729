/**
 * Feed latency: the time a strategy sees each recorded item. A recording stamps every message with
 * the recorder's receive time, on the recorder's own clock, which is not the exchange's (about
 * 1.27 s behind it on the bundled and shared BTCUSDT/ETHUSDT recordings, drifting ~0.3 ms a
 * minute). The offset between the clocks is estimated as the smallest receive-minus-event time of
 * the depth diffs and trades in each window of `windowMs` of receive time (the fastest message of
 * the window is taken to have had no latency above the path's minimum); an item is then replayed at
 * its receive time minus its window's offset, never before its own event time. What remains is the
 * varying part of the feed latency: depth diffs ~4 ms at the median, trades ~3 ms after their
 * event time (and up to ~210 ms after their trade time at the 99th percentile, the exchange's own
 * delay in publishing them).
 *
 * The constant part of the path (the fastest message's real latency) cannot be told apart from the
 * clock offset in a recording; `offsetMs` fixes the offset instead when it is known.
 */
import type { RecordedItem } from '../record/reader.js';
import type { Timed, TimedBatch } from './merge.js';

/** How a recording's receive times become replay times. */
export interface FeedTimeOptions {
  /** Window of receive time over which one clock offset is estimated (ms). */
  readonly windowMs: number;
  /** A known offset (receive clock minus exchange clock, ms), used instead of the estimate. */
  readonly offsetMs?: number;
  /** Filled as windows are estimated (tests, reports). */
  readonly stats?: FeedTimeStats;
}

/** What the estimate found. */
export interface FeedTimeStats {
  windows: number;
  /** Estimated offsets of the first and last window (ms, receive minus exchange clock). */
  firstOffsetMs: number | undefined;
  lastOffsetMs: number | undefined;
}

/** The event time of an item that can estimate the offset (depth diffs and trades), else undefined. */
function eventTimeOf(it: RecordedItem): number | undefined {
  if (it.kind !== 'market') return undefined;
  const e = it.event;
  return e.type === 'depthDiff' || e.type === 'trade' ? e.E : undefined;
}

/** Replay time of an item given the clock offset: whole ms, never before its event time. */
function timeOf(it: RecordedItem, offset: number): number {
  const t = Math.round(it.recvTime - offset);
  return it.kind === 'market' && it.event.E > t ? it.event.E : t;
}

/**
 * A recording's items (in batches, as the reader gives them) with their replay times at receive
 * time on the exchange's clock, in batches: an async step per batch, not per item, and no object
 * per item. Items are held back for one window at most (a few thousand). With the offset estimated,
 * every batch is the same object, its arrays refilled, as the items held back are one array refilled:
 * a batch is valid until the next one is asked for (the two-clock split and the merge take each
 * batch's items before they ask). Why: arrays grown by a push per item, new for every window and
 * batch, were 5 % of the bytes a binary backtest allocates.
 */
export async function* receiveTimeBatches(batches: AsyncIterable<readonly RecordedItem[]>, o: FeedTimeOptions): AsyncGenerator<TimedBatch<RecordedItem>> {
  const fixed = o.offsetMs;
  if (fixed !== undefined) {
    for await (const batch of batches) {
      const times = new Array<number>(batch.length);
      for (let i = 0; i < batch.length; i++) times[i] = timeOf(batch[i] as RecordedItem, fixed);
      yield { times, items: batch };
    }
    return;
  }
  /** Items held back: the first `nHeld` slots (later ones are spent). */
  const held: RecordedItem[] = [];
  let nHeld = 0;
  let windowStart: number | undefined;
  let min = Infinity;
  let offset: number | undefined;
  const stats = o.stats;
  const out = { times: [] as number[], items: [] as RecordedItem[] };
  /** Slots of `out`'s arrays filled for the batch being built. */
  let nOut = 0;
  /** Times the held items at this window's offset (the previous one when it had no depth or trade) into `out`. */
  function release(): void {
    const before = offset;
    if (min !== Infinity) offset = min;
    if (offset === undefined) return;
    // The previous window's items all map below its end at its offset: a larger offset here must
    // not place this window's first items before them. The bound depends on the grid and the
    // offsets alone, so items that are skipped unread cannot change another item's time.
    const lowest = before === undefined || windowStart === undefined ? -Infinity : Math.round(windowStart - before);
    if (stats) {
      stats.windows++;
      stats.firstOffsetMs ??= offset;
      stats.lastOffsetMs = offset;
    }
    const times = out.times;
    const items = out.items;
    for (let i = 0; i < nHeld; i++) {
      const it = held[i] as RecordedItem;
      const t = timeOf(it, offset);
      times[nOut] = t < lowest ? lowest : t;
      items[nOut++] = it;
    }
    nHeld = 0;
    min = Infinity;
  }
  /** `out` cut to the slots filled, ready to give out. */
  function cut(): { times: number[]; items: RecordedItem[] } {
    out.times.length = nOut;
    out.items.length = nOut;
    nOut = 0;
    return out;
  }
  const windowMs = o.windowMs;
  for await (const batch of batches) {
    for (const it of batch) {
      // Windows lie on a fixed grid of receive time, so which streams were read (or skipped
      // unread) cannot move their bounds and with them the offsets.
      const cell = Math.floor(it.recvTime / windowMs) * windowMs;
      windowStart ??= cell;
      if (cell > windowStart && (min !== Infinity || offset !== undefined)) {
        release();
        windowStart = cell;
      }
      held[nHeld++] = it;
      const E = eventTimeOf(it);
      if (E !== undefined && it.recvTime - E < min) min = it.recvTime - E;
    }
    if (nOut > 0) yield cut();
  }
  // A recording with no depth diff or trade at all has nothing to estimate from: receive times as they are.
  if (min === Infinity && offset === undefined) offset = 0;
  release();
  if (nOut > 0) yield cut();
}

/** {@link receiveTimeBatches} one item at a time. */
export async function* receiveTimes(batches: AsyncIterable<readonly RecordedItem[]>, o: FeedTimeOptions): AsyncGenerator<Timed<RecordedItem>> {
  for await (const b of receiveTimeBatches(batches, o)) for (let i = 0; i < b.items.length; i++) yield { t: b.times[i] as number, item: b.items[i] as RecordedItem };
}
