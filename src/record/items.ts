/**
 * A recording's items (the types both readers yield) and the text reader's conversion of one
 * parsed line into them, shared with the binary reader (record/binary/reader.ts), which stores lines it cannot hold as
 * numbers as their text and reads them back through here.
 */
import type { MarketEvent } from '../core/marketEvents.js';
import type { OrderBookSnapshot } from '../core/types.js';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { int, levels, obj } from '../exchange/stream/wire-fields.js';
import { lazyBookTicker } from './book-ticker.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { lazyDepthDiff, plainLevels } from './depth-diff.js';
import { lazyTradeOf } from './trade.js';
import { lazySnapshot } from './snapshot.js';
import { type RecordLine, SNAPSHOT_SUFFIX } from './format.js';
import { plainConstructor } from '../core/plainObject.js';

/** A market event with where and when it was received. */
export interface RecordedMarket {
  readonly kind: 'market';
  readonly recvTime: number;
  readonly stream: string | undefined;
  readonly event: MarketEvent;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A {@link RecordedMarket} as the readers make one: a plain object, made by a constructor so that
 * V8 never pretenures the millions a replay makes (core/plainObject.ts).
 */
export const MarketItem = plainConstructor(function (this: Writable<RecordedMarket>, recvTime: number, stream: string | undefined, event: MarketEvent) {
  this.kind = 'market';
  this.recvTime = recvTime;
  this.stream = stream;
  this.event = event;
});

/** A REST depth snapshot that was recorded in the stream of lines. */
export interface RecordedSnapshot {
  readonly kind: 'snapshot';
  readonly recvTime: number;
  readonly symbol: string;
  readonly snapshot: OrderBookSnapshot;
}

/** One item of a recording. */
export type RecordedItem = RecordedMarket | RecordedSnapshot;

/** Counters of a read. */
export interface ReadStats {
  lines: number;
  items: number;
  malformed: number;
  /** Bytes of the files read so far, as stored (compressed for gzip): progress against their sizes. */
  bytes?: number;
}

/** State of one read across its lines and files: symbol mapping, the last stream symbol, the Decimal cache. */
export interface ItemContext {
  readonly symbolOf: ((wire: string) => string) | undefined;
  readonly snapshotSymbol: string | undefined;
  lastSymbol: string | undefined;
  readonly decimals: DecimalTextCache;
}

/** A fresh context for one read. */
export function itemContext(symbolOf: ((wire: string) => string) | undefined, snapshotSymbol: string | undefined): ItemContext {
  return { symbolOf, snapshotSymbol, lastSymbol: undefined, decimals: new DecimalTextCache() };
}

/** Converts one line to items appended to `out`; throws on malformed content (nothing appended then). */
export function toItems(rec: RecordLine, ctx: ItemContext, out: RecordedItem[]): void {
  const stream = rec.stream;
  if (stream === undefined || stream.endsWith(SNAPSHOT_SUFFIX)) {
    const d = obj('data', rec.data);
    if (!('lastUpdateId' in d)) throw new Error('line without stream envelope is not a depth snapshot');
    const wire = stream !== undefined ? stream.slice(0, -SNAPSHOT_SUFFIX.length).toUpperCase() : (ctx.snapshotSymbol ?? ctx.lastSymbol);
    if (wire === undefined) throw new Error('snapshot line before any stream line and no snapshotSymbol given');
    const lastUpdateId = int('lastUpdateId', d.lastUpdateId);
    const snapshot: OrderBookSnapshot = lazySnapshot(lastUpdateId, d.bids, d.asks) ?? { lastUpdateId, bids: levels('bids', d.bids), asks: levels('asks', d.asks) };
    out.push({ kind: 'snapshot', recvTime: rec.recvTime, symbol: ctx.symbolOf ? ctx.symbolOf(wire) : wire, snapshot });
    return;
  }
  const at = stream.indexOf('@');
  if (at > 0 && !stream.startsWith('!')) ctx.lastSymbol = stream.slice(0, at).toUpperCase();
  const lazy = lazyEventOf(rec.data, Math.floor(rec.recvTime), ctx);
  if (lazy !== undefined) {
    out.push(new MarketItem(rec.recvTime, stream, lazy));
    return;
  }
  const events = parseMarketPayload(rec.data, { stream, recvTime: Math.floor(rec.recvTime), symbolOf: ctx.symbolOf });
  for (const event of events) out.push(new MarketItem(rec.recvTime, stream, event));
}

/**
 * The fast path for the bulk of a recording: well-formed depth diffs, trades and book tickers
 * whose decimals are all plain strings become lazily parsed events (depth-diff.ts, trade.ts,
 * book-ticker.ts).
 * Anything else returns undefined and takes the eager parser, which accepts or reports it exactly
 * as before.
 */
function lazyEventOf(data: unknown, recvTime: number, ctx: ItemContext): MarketEvent | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const d = data as Record<string, unknown>;
  if (d.e === undefined) return lazyBookTicker(d, recvTime, ctx.symbolOf, ctx.decimals);
  if (d.e === 'trade') return lazyTradeOf(d, ctx.symbolOf, ctx.decimals);
  if (d.e !== 'depthUpdate') return undefined;
  const { U, u, E, s } = d;
  if (!Number.isSafeInteger(U) || !Number.isSafeInteger(u) || !Number.isSafeInteger(E) || typeof s !== 'string' || (u as number) < (U as number)) return undefined;
  const bids = plainLevels(d.b);
  const asks = bids && plainLevels(d.a);
  if (bids === undefined || asks === undefined) return undefined;
  return lazyDepthDiff(E as number, ctx.symbolOf ? ctx.symbolOf(s) : s, U as number, u as number, bids, asks, ctx.decimals);
}
