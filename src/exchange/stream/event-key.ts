/**
 * Per-stream ordering keys, used to drop duplicates when two connections overlap (proactive
 * rotation before the 24-hour limit) and to detect which messages a stream already delivered.
 */
import type { MarketEvent } from '../../core/marketEvents.js';
import { compareTradeIds, type TradeId } from '../../core/tradeId.js';

/** Identifies one logical stream: stream name when known, plus event type and symbol. */
export function streamKeyOf(stream: string | undefined, ev: MarketEvent): string {
  const extra = ev.type === 'kline' ? ev.interval : ev.type === 'partialDepth' ? String(ev.levels) : '';
  return `${stream ?? ''}|${ev.type}|${ev.symbol}|${extra}`;
}

/** A position in one stream: an update id or time, or a trade id (exact digits, see core/tradeId.ts). */
export type SequenceKey = number | TradeId;

/** Monotonic sequence key of an event within its stream (ids where the payload has them, else E). */
export function sequenceKeyOf(ev: MarketEvent): SequenceKey {
  switch (ev.type) {
    case 'trade':
      return ev.tradeId;
    case 'aggTrade':
      return ev.aggId;
    case 'depthDiff':
      return ev.finalUpdateId;
    case 'partialDepth':
      return ev.lastUpdateId;
    case 'bookTicker':
      return ev.updateId;
    case 'kline':
    case 'miniTicker':
      return ev.E;
    default: {
      const never: never = ev;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

/** True when `key` comes after `last` of the same stream (one stream always has one kind of key). */
export function keyAfter(key: SequenceKey, last: SequenceKey): boolean {
  if (typeof key === 'number' && typeof last === 'number') return key > last;
  if (typeof key === 'string' && typeof last === 'string') return compareTradeIds(key, last) > 0;
  return true;
}
