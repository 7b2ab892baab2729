/**
 * Per-stream ordering keys, used to drop duplicates when two connections overlap (proactive
 * rotation before the 24-hour limit) and to detect which messages a stream already delivered.
 */
import type { MarketEvent } from '../../core/marketEvents.js';

/** Identifies one logical stream: stream name when known, plus event type and symbol. */
export function streamKeyOf(stream: string | undefined, ev: MarketEvent): string {
  const extra = ev.type === 'kline' ? ev.interval : ev.type === 'partialDepth' ? String(ev.levels) : '';
  return `${stream ?? ''}|${ev.type}|${ev.symbol}|${extra}`;
}

/** Monotonic sequence key of an event within its stream (ids where the payload has them, else E). */
export function sequenceKeyOf(ev: MarketEvent): number {
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
