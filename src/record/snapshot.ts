/**
 * Depth snapshots read from text recordings with their levels kept as the wire's strings. A
 * recorded snapshot holds ~1,000 levels a side; the replay's local book takes the strings (as
 * scaled integers) and no strategy reads a snapshot, so building two Decimals a level was ~10 ms
 * at the start of every run (in code not compiled yet). The levels are checked as strictly as
 * the eager parser checks them; the snapshot's `bids`/`asks` build their Decimal levels with that
 * parser on first access. The raw strings are reachable only through {@link rawSnapshotLevels}.
 */
import type { BookLevel, OrderBookSnapshot } from '../core/types.js';
import type { SnapshotInput } from '../exchange/book/book-sync.js';
import { isAmountText } from '../exchange/parse/fields.js';
import { levels } from '../exchange/stream/wire-fields.js';
import { plainLevels, type RawDepthLevels } from './depth-diff.js';

/** Key of a lazy snapshot's state: non-enumerable, so JSON, spread and deep equality never see it. */
const STATE = Symbol('kancil.lazySnapshot');

interface SnapshotState {
  readonly raw: RawDepthLevels;
  bids: BookLevel[] | undefined;
  asks: BookLevel[] | undefined;
}

type LazySnapshot = OrderBookSnapshot & { readonly [STATE]: SnapshotState };

const GETTERS: PropertyDescriptorMap = {
  bids: {
    get(this: LazySnapshot): BookLevel[] {
      const s = this[STATE];
      return (s.bids ??= levels('bids', s.raw.bids));
    },
    enumerable: true,
  },
  asks: {
    get(this: LazySnapshot): BookLevel[] {
      const s = this[STATE];
      return (s.asks ??= levels('asks', s.raw.asks));
    },
    enumerable: true,
  },
};

/**
 * A snapshot whose Decimal levels are built on first access, when every level of `bids` and `asks`
 * is a pair of valid amount strings; undefined otherwise (the caller parses eagerly, which reports
 * what is wrong).
 */
export function lazySnapshot(lastUpdateId: number, bids: unknown, asks: unknown): OrderBookSnapshot | undefined {
  const rawBids = plainLevels(bids, isAmountText);
  const rawAsks = rawBids && plainLevels(asks, isAmountText);
  if (rawBids === undefined || rawAsks === undefined) return undefined;
  const snapshot = { lastUpdateId };
  Object.defineProperties(snapshot, GETTERS);
  Object.defineProperty(snapshot, STATE, { value: { raw: { bids: rawBids, asks: rawAsks }, bids: undefined, asks: undefined } satisfies SnapshotState });
  return snapshot as LazySnapshot;
}

/** The wire strings of a snapshot made by {@link lazySnapshot} (undefined for any other). */
export function rawSnapshotLevels(s: OrderBookSnapshot): RawDepthLevels | undefined {
  return (s as Partial<LazySnapshot>)[STATE]?.raw;
}

/** What a local book loads from a snapshot: the wire strings of a lazy one (no Decimal built), else its levels. */
export function snapshotInput(s: OrderBookSnapshot): SnapshotInput {
  const raw = rawSnapshotLevels(s);
  return raw === undefined ? s : { lastUpdateId: s.lastUpdateId, bids: raw.bids, asks: raw.asks };
}
