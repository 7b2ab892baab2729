/**
 * Book tickers read from recordings with their four decimals kept as wire strings.
 *
 * Recordings hold about three bookTicker lines per depth diff (73k of the 99k lines of the BTCUSDT
 * recording), and a tick replay never reads them (the local book comes from diffs), yet the eager
 * parser built four Decimals per line. Here the Decimals are built on first access of each field,
 * through the reader's {@link DecimalCache}, so a strategy that reads tickers sees exactly the
 * eager parser's values and a replay that ignores them pays only the JSON parse. The fields are
 * own enumerable getters: JSON, spread and deep equality see ordinary Decimal fields.
 */
import type { Decimal } from '../core/decimal.js';
import type { BookTickerEvent } from '../core/marketEvents.js';
import { type DecimalCache, isPlainDecimal } from './depth-diff.js';

function plain(v: unknown): v is string {
  return typeof v === 'string' && isPlainDecimal(v);
}

/**
 * A lazily parsed bookTicker for a payload the eager parser would read as one (no event type, no
 * lastUpdateId, has u, B and A), when every field is well formed; undefined otherwise, so the
 * eager parser accepts or reports it exactly as before. `recvTime` is the E of payloads without one.
 */
export function lazyBookTicker(d: Record<string, unknown>, recvTime: number, symbolOf: ((wire: string) => string) | undefined, cache: DecimalCache): BookTickerEvent | undefined {
  if (d.e !== undefined || 'lastUpdateId' in d || !('u' in d && 'B' in d && 'A' in d)) return undefined;
  const { u, s, b, B, a, A } = d;
  const E = d.E === undefined ? recvTime : d.E;
  if (!Number.isSafeInteger(E) || !Number.isSafeInteger(u) || typeof s !== 'string' || !plain(b) || !plain(B) || !plain(a) || !plain(A)) return undefined;
  let bidPrice: Decimal | undefined;
  let bidQty: Decimal | undefined;
  let askPrice: Decimal | undefined;
  let askQty: Decimal | undefined;
  return {
    type: 'bookTicker',
    E: E as number,
    symbol: symbolOf ? symbolOf(s) : s,
    updateId: u as number,
    get bidPrice(): Decimal {
      return (bidPrice ??= cache.get(b));
    },
    get bidQty(): Decimal {
      return (bidQty ??= cache.get(B));
    },
    get askPrice(): Decimal {
      return (askPrice ??= cache.get(a));
    },
    get askQty(): Decimal {
      return (askQty ??= cache.get(A));
    },
  };
}
