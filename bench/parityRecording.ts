/**
 * The recording the parity suite replays, as its runs see it (bench/parityRuns.ts): the sandbox's
 * messages with their receive times, the span its replays cover, and the backtest's clock offset.
 */
import { receiveTimes, type FeedTimeStats } from '../src/backtest/feedTime.js';
import { readRecordingBatches } from '../src/record/reader.js';
import { loadRecording, type RecordedEvent } from '../src/sandbox/recording.js';

/** The recording's messages as the sandbox replays them, and its snapshot instant (the replays' start) and last instant, receive ms. */
export function recordingSpan(file: string): { events: RecordedEvent[]; startMs: number; endMs: number } {
  const events = loadRecording(file, 'BTCUSDT');
  const snap = events.find((e) => e.kind === 'snapshot');
  return { events, startMs: snap?.ms ?? 0, endMs: events.at(-1)?.ms ?? 0 };
}

/** The recording's smallest receive-minus-event time (the backtest's pure-shift clock offset). */
export async function recordingOffset(file: string): Promise<number> {
  const stats: FeedTimeStats = { windows: 0, firstOffsetMs: undefined, lastOffsetMs: undefined };
  for await (const x of receiveTimes(readRecordingBatches(file), { windowMs: Number.MAX_SAFE_INTEGER, stats })) void x;
  return stats.firstOffsetMs ?? 0;
}
