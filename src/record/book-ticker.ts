/**
 * Book tickers read from recordings with their four decimals kept as wire strings.
 *
 * Recordings hold about three bookTicker lines per depth diff (73k of the 99k lines of the BTCUSDT
 * recording), and a tick replay never reads them (the local book comes from diffs), yet the eager
 * parser built four Decimals per line. Here the Decimals are built on first access of each field,
 * through the reader's {@link DecimalTextCache}, so a strategy that reads tickers sees exactly the
 * eager parser's values and a replay that ignores them pays only the JSON parse. The fields are
 * own enumerable getters: JSON, spread and deep equality see ordinary Decimal fields.
 */
import type { Decimal } from '../core/decimal.js';
import type { BookTickerEvent } from '../core/marketEvents.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import { isPlainDecimal } from './depth-diff.js';

function plain(v: unknown): v is string {
  return typeof v === 'string' && isPlainDecimal(v);
}

/** What a lazy ticker keeps besides its plain fields: bid price, bid qty, ask price, ask qty as wire strings and as Decimals once built. */
interface LazyTickerState {
  readonly raw: readonly [string, string, string, string];
  readonly cache: DecimalTextCache;
  readonly values: (Decimal | undefined)[];
}

/** Key of a lazy ticker's state: non-enumerable, so JSON, spread, keys and deep equality never see it. */
const STATE = Symbol('kancil.lazyBookTicker');

type LazyTicker = BookTickerEvent & { readonly [STATE]: LazyTickerState };

/** The getter of field `i` of {@link LazyTickerState}: built on first access, then shared. */
function decimalGetter(i: number): PropertyDescriptor {
  return {
    get(this: LazyTicker): Decimal {
      const st = this[STATE];
      return (st.values[i] ??= st.cache.get(st.raw[i] as string));
    },
    enumerable: true,
    configurable: true,
  };
}

/**
 * One set of getters shared by every lazy ticker: per-object getter closures put each event in V8's
 * dictionary mode (see record/depth-diff.ts); one shared set keeps them on one fast hidden class.
 */
const DECIMAL_GETTERS: PropertyDescriptorMap = { bidPrice: decimalGetter(0), bidQty: decimalGetter(1), askPrice: decimalGetter(2), askQty: decimalGetter(3) };

/**
 * A lazily parsed bookTicker for a payload the eager parser would read as one (no event type, no
 * lastUpdateId, has u, B and A), when every field is well formed; undefined otherwise, so the
 * eager parser accepts or reports it exactly as before. `recvTime` is the E of payloads without one.
 */
export function lazyBookTicker(d: Record<string, unknown>, recvTime: number, symbolOf: ((wire: string) => string) | undefined, cache: DecimalTextCache): BookTickerEvent | undefined {
  if (d.e !== undefined || 'lastUpdateId' in d || !('u' in d && 'B' in d && 'A' in d)) return undefined;
  const { u, s, b, B, a, A } = d;
  const E = d.E === undefined ? recvTime : d.E;
  if (!Number.isSafeInteger(E) || !Number.isSafeInteger(u) || typeof s !== 'string' || !plain(b) || !plain(B) || !plain(a) || !plain(A)) return undefined;
  const ev = { type: 'bookTicker', E: E as number, symbol: symbolOf ? symbolOf(s) : s, updateId: u as number };
  Object.defineProperties(ev, DECIMAL_GETTERS);
  const state: LazyTickerState = { raw: [b, B, a, A], cache, values: [undefined, undefined, undefined, undefined] };
  Object.defineProperty(ev, STATE, { value: state });
  return ev as LazyTicker;
}
