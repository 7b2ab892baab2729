/**
 * The sandbox's market activity: replays' recordings opened (and checked) before the sandbox
 * answers, then the feeds started at once or when the caller says (`holdMarket`).
 */
import type { Clock } from '../core/index.js';
import type { MarketActivity } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import { type MarketFeed, startFeed } from './market-feed.js';
import { RecordingStream } from './recording-stream.js';
import type { StreamServer } from './stream-server.js';

/** Starting the market activity, and knowing when it has ended. */
export interface MarketControl {
  /** Starts the feeds (once; nothing after the sandbox stopped). */
  startMarket(): void;
  /** Settles when every feed has ended; undefined when some feed never ends or none runs. */
  readonly marketEnded: Promise<void> | undefined;
}

/**
 * Opens the replays' recordings into `recordings` and returns the control that starts `activity`
 * into `feeds` (both owned by the caller, which stops and closes them).
 */
export async function prepareMarket(
  activity: readonly MarketActivity[],
  state: ExchangeState,
  clock: Clock,
  streams: StreamServer,
  feeds: MarketFeed[],
  recordings: Map<MarketActivity, RecordingStream>,
  isStopped: () => boolean,
): Promise<MarketControl> {
  for (const m of activity) if (m.kind === 'replay') recordings.set(m, await RecordingStream.open(m.file, m.sourceSymbol));
  // Known before the feeds start: a replay played once ends, a looped one or a synthetic flow never.
  const ends = activity.length > 0 && activity.every((m) => m.kind === 'replay' && !m.loop);
  let ended: () => void = () => undefined;
  const marketEnded = ends ? new Promise<void>((resolve) => (ended = resolve)) : undefined;
  let started = false;
  const startMarket = (): void => {
    if (started || isStopped()) return;
    started = true;
    for (const m of activity) feeds.push(startFeed(state, m, clock, recordings.get(m), () => streams.flushFastDepth(), (err) => streams.failures.report(`the replay of ${m.symbol}`, err, 'unreadable recording')));
    if (ends) void Promise.all(feeds.map((f) => f.ended)).then(() => ended());
  };
  return { startMarket, marketEnded };
}
