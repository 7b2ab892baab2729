/**
 * Which recorded lines a read may drop unread: a replay whose strategies name the market events
 * they read (StrategyPlugin.marketEvents) needs no book ticker, mini ticker or partial depth, and
 * those are most of a recording's lines (book tickers: 73% of the shared BTCUSDT recording). The
 * stream name tells the event type, so such a line is dropped before its JSON is parsed.
 */
import type { MarketEvent } from '../core/marketEvents.js';

/** Event types a replay can do without (it reads none of them itself). */
export const SKIPPABLE_EVENTS: readonly MarketEvent['type'][] = ['bookTicker', 'miniTicker', 'partialDepth'];

/** The event type of a stream by its name (`btcusdt@bookTicker`), for the types a read may skip. */
export function skippableTypeOf(stream: string): MarketEvent['type'] | undefined {
  const at = stream.lastIndexOf('@');
  const kind = at < 0 ? stream : stream.slice(at + 1);
  if (kind === 'bookTicker') return 'bookTicker';
  if (kind === 'miniTicker' || stream.startsWith('!miniTicker@')) return 'miniTicker';
  if (/^depth(5|10|20)(@\d+ms)?$/.test(stream.slice(stream.indexOf('@') + 1))) return 'partialDepth';
  return undefined;
}

/** A cached test of stream names against the skipped types (a recording has a few distinct names). */
export function streamSkipper(skip: ReadonlySet<MarketEvent['type']>): (stream: string) => boolean {
  const known = new Map<string, boolean>();
  return (stream) => {
    let v = known.get(stream);
    if (v === undefined) {
      const t = skippableTypeOf(stream);
      known.set(stream, (v = t !== undefined && skip.has(t)));
    }
    return v;
  };
}

const PREFIX = '{"stream":"';

/**
 * The stream name of a text recording line (`<time> {"stream":"…",…}`) read without parsing the
 * JSON; undefined when the line does not start that way (a comment, a bare snapshot, odd spacing:
 * such a line is parsed as usual).
 */
export function lineStream(line: string): string | undefined {
  const sp = line.indexOf(' ');
  if (sp <= 0 || !line.startsWith(PREFIX, sp + 1)) return undefined;
  const from = sp + 1 + PREFIX.length;
  const end = line.indexOf('"', from);
  return end < 0 ? undefined : line.slice(from, end);
}
