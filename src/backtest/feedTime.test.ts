import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecordingBatches, type RecordedItem } from '../record/reader.js';
import { PROJECT_ROOT } from '../strategy/loader.js';
import { receiveTimeBatches, receiveTimes, type FeedTimeStats } from './feedTime.js';

const SAMPLE = path.join(PROJECT_ROOT, 'backtest-data/btcusdt-sample.ndjson.gz');

/** A depth diff or trade item received at `recv` (recorder clock) with event time `E`. */
const item = (recv: number, E: number, type: 'depthDiff' | 'trade' | 'bookTicker' = 'depthDiff'): RecordedItem => ({ kind: 'market', recvTime: recv, stream: undefined, event: { type, E } }) as unknown as RecordedItem;

async function* batches(xs: RecordedItem[]): AsyncGenerator<RecordedItem[]> {
  yield xs;
}

async function timed(xs: RecordedItem[], windowMs: number, offsetMs?: number, stats?: FeedTimeStats): Promise<number[]> {
  const out: number[] = [];
  for await (const x of receiveTimes(batches(xs), { windowMs, offsetMs, stats })) out.push(x.t);
  return out;
}

describe('receive times on the exchange clock', () => {
  it("takes each window's fastest depth diff or trade as the clock offset and keeps the varying part", async () => {
    // Recorder clock 1,000 ms behind; latencies 2, 5, 1, 9 ms; a book ticker does not estimate.
    const xs = [item(10_002 - 1000, 10_000), item(10_105 - 1000, 10_100, 'trade'), item(10_201 - 1000, 10_200), item(10_300 - 1000, 10_400, 'bookTicker'), item(10_309 - 1000, 10_300)];
    const stats: FeedTimeStats = { windows: 0, firstOffsetMs: undefined, lastOffsetMs: undefined };
    expect(await timed(xs, 60_000, undefined, stats)).toEqual([10_001, 10_104, 10_200, 10_400, 10_308]);
    expect(stats).toEqual({ windows: 1, firstOffsetMs: -999, lastOffsetMs: -999 });
    // Never before its own event time (the book ticker above); a known offset is used as given.
    expect(await timed(xs, 60_000, -1000)).toEqual([10_002, 10_105, 10_201, 10_400, 10_309]);
  });

  it('follows a drifting recorder clock window by window', async () => {
    // The recorder's clock is 1 s ahead and loses 0.1 ms a second; each message has 3 ms of latency.
    const xs: RecordedItem[] = [];
    for (let E = 0; E < 60_000; E += 100) xs.push(item(E + 3 + 1000 - E / 10_000, E));
    const lateness = (ts: number[]): number[] => ts.map((t, i) => t - (xs[i] as unknown as { event: { E: number } }).event.E);
    // Windows of 10 s: the drift inside one is under 1 ms, so each message keeps 0 to 1 ms of it.
    const windowed = lateness(await timed(xs, 10_000));
    expect(Math.max(...windowed)).toBeLessThanOrEqual(1);
    // One offset for the whole minute (its fastest message is the last) would count the drift as latency: 6 ms at the start.
    expect(lateness(await timed(xs, 120_000))[0]).toBe(6);
  });

  it('on the bundled recording: every item at or after its event time, in file order, depth ~2.6 ms at the median', async () => {
    const stats: FeedTimeStats = { windows: 0, firstOffsetMs: undefined, lastOffsetMs: undefined };
    const depth: number[] = [];
    let prev = -Infinity;
    let back = 0;
    let n = 0;
    for await (const { t, item: it } of receiveTimes(readRecordingBatches(SAMPLE), { windowMs: 30_000, stats })) {
      n++;
      if (t < prev) back++;
      prev = t;
      if (it.kind !== 'market') continue;
      expect(t).toBeGreaterThanOrEqual(it.event.E);
      if (it.event.type === 'depthDiff') depth.push(t - it.event.E);
    }
    expect(n).toBeGreaterThan(3000);
    // Windows change the offset by a fraction of a ms: a rare step back, clamped later by the merge.
    expect(back).toBeLessThan(5);
    // About two minutes of data over 30 s windows on a fixed grid of receive time.
    expect(stats.windows).toBe(5);
    expect(stats.firstOffsetMs).toBeGreaterThan(-1274);
    expect(stats.firstOffsetMs).toBeLessThan(-1273);
    depth.sort((a, b) => a - b);
    expect(depth[Math.floor(depth.length / 2)]).toBeGreaterThanOrEqual(2);
    expect(depth[Math.floor(depth.length / 2)]).toBeLessThanOrEqual(4);
  });

  it('in batches: the same items and times however the reader cut the input, window bounds inside a batch or between', async () => {
    const xs: RecordedItem[] = [];
    for (let E = 0; E < 100_000; E += 700) xs.push(item(E + 1000 + ((E / 700) % 5), E, E % 2100 === 0 ? 'trade' : 'depthDiff'));
    const whole = await timed(xs, 10_000);
    async function* cut(size: number): AsyncGenerator<RecordedItem[]> {
      for (let i = 0; i < xs.length; i += size) yield xs.slice(i, i + size);
    }
    for (const size of [1, 7, 13, 1000]) {
      for (const offsetMs of [undefined, 1000]) {
        const times: number[] = [];
        const items: RecordedItem[] = [];
        for await (const b of receiveTimeBatches(cut(size), { windowMs: 10_000, offsetMs })) {
          expect(b.times.length).toBe(b.items.length);
          times.push(...b.times);
          items.push(...b.items);
        }
        expect(items).toEqual(xs);
        expect(times).toEqual(offsetMs === undefined ? whole : await timed(xs, 10_000, offsetMs));
      }
    }
  });
});
