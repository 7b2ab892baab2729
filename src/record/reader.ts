/**
 * Streaming reader of recordings: an async iterator over one or more files (gzip or plain), in
 * file order, with flat memory. Yields typed market events and depth snapshots; a malformed line
 * is reported through `onMalformed` (logged by default) and counted, never thrown.
 * The backtester and the sandbox replay read recordings through this module.
 */
import { pino } from 'pino';
import type { MarketEvent } from '../core/marketEvents.js';
import type { OrderBookSnapshot } from '../core/types.js';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { int, levels, obj } from '../exchange/stream/wire-fields.js';
import { lazyBookTicker } from './book-ticker.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { lazyDepthDiff, plainLevels } from './depth-diff.js';
import { lazyTradeOf } from './trade.js';
import { type RecordLine, SNAPSHOT_SUFFIX, parseRecordLine } from './format.js';
import { readLineBatches } from './line-reader.js';

/** A market event with where and when it was received. */
export interface RecordedMarket {
  readonly kind: 'market';
  readonly recvTime: number;
  readonly stream: string | undefined;
  readonly event: MarketEvent;
}

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
}

/** Options of a read. */
export interface ReadOptions {
  /** Maps wire symbols (`BTCUSDT`) to the caller's spelling. */
  readonly symbolOf?: (wire: string) => string;
  /** Symbol of bare snapshot lines (the `<ns> <json>` files); default: the symbol of the last stream seen. */
  readonly snapshotSymbol?: string;
  /** Called for each malformed line; default logs a warning. */
  readonly onMalformed?: (err: Error, file: string, lineNo: number) => void;
  /** Filled while reading. */
  readonly stats?: ReadStats;
}

const log = pino({ name: 'kancil.record.reader' });

/** Raw lines of the given files in order (comments and blank lines skipped). */
export async function* readRecordLines(paths: string | readonly string[], opts: Pick<ReadOptions, 'onMalformed' | 'stats'> = {}): AsyncGenerator<RecordLine & { readonly file: string; readonly lineNo: number }> {
  for await (const batch of readRecordLineBatches(paths, opts)) yield* batch;
}

/** Raw lines in batches (one per decompressed chunk): the cheapest way to stream a recording. */
export async function* readRecordLineBatches(paths: string | readonly string[], opts: Pick<ReadOptions, 'onMalformed' | 'stats'> = {}): AsyncGenerator<(RecordLine & { readonly file: string; readonly lineNo: number })[]> {
  const stats = opts.stats ?? { lines: 0, items: 0, malformed: 0 };
  const onMalformed = opts.onMalformed ?? ((err, file, lineNo) => log.warn({ file, lineNo, err: err.message }, 'malformed recording line skipped'));
  for (const file of typeof paths === 'string' ? [paths] : paths) {
    let lineNo = 0;
    for await (const lines of readLineBatches(file)) {
      const out: (RecordLine & { file: string; lineNo: number })[] = [];
      for (const line of lines) {
        lineNo++;
        stats.lines++;
        let rec: RecordLine | undefined;
        try {
          rec = parseRecordLine(line);
        } catch (err) {
          stats.malformed++;
          onMalformed(err as Error, file, lineNo);
          continue;
        }
        if (rec) out.push({ recvTime: rec.recvTime, recvRaw: rec.recvRaw, stream: rec.stream, data: rec.data, file, lineNo });
      }
      if (out.length > 0) yield out;
    }
  }
}

/** Typed items of the given files in order. */
export async function* readRecording(paths: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<RecordedItem> {
  for await (const batch of readRecordingBatches(paths, opts)) yield* batch;
}

/** Typed items in batches (one per decompressed chunk), for replays that want the least overhead. */
export async function* readRecordingBatches(paths: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<RecordedItem[]> {
  const stats = opts.stats ?? { lines: 0, items: 0, malformed: 0 };
  const onMalformed = opts.onMalformed ?? ((err, file, lineNo) => log.warn({ file, lineNo, err: err.message }, 'malformed recording line skipped'));
  const ctx: ItemContext = { symbolOf: opts.symbolOf, snapshotSymbol: opts.snapshotSymbol, lastSymbol: undefined, decimals: new DecimalTextCache() };
  for await (const batch of readRecordLineBatches(paths, { onMalformed, stats })) {
    const out: RecordedItem[] = [];
    for (const rec of batch) {
      try {
        toItems(rec, ctx, out);
      } catch (err) {
        stats.malformed++;
        onMalformed(err as Error, rec.file, rec.lineNo);
      }
    }
    stats.items += out.length;
    if (out.length > 0) yield out;
  }
}

/** Converts one line to items appended to `out`; throws on malformed content (nothing appended then). */
interface ItemContext {
  readonly symbolOf: ((wire: string) => string) | undefined;
  readonly snapshotSymbol: string | undefined;
  lastSymbol: string | undefined;
  readonly decimals: DecimalTextCache;
}

function toItems(rec: RecordLine, ctx: ItemContext, out: RecordedItem[]): void {
  const stream = rec.stream;
  if (stream === undefined || stream.endsWith(SNAPSHOT_SUFFIX)) {
    const d = obj('data', rec.data);
    if (!('lastUpdateId' in d)) throw new Error('line without stream envelope is not a depth snapshot');
    const wire = stream !== undefined ? stream.slice(0, -SNAPSHOT_SUFFIX.length).toUpperCase() : (ctx.snapshotSymbol ?? ctx.lastSymbol);
    if (wire === undefined) throw new Error('snapshot line before any stream line and no snapshotSymbol given');
    const snapshot: OrderBookSnapshot = { lastUpdateId: int('lastUpdateId', d.lastUpdateId), bids: levels('bids', d.bids), asks: levels('asks', d.asks) };
    out.push({ kind: 'snapshot', recvTime: rec.recvTime, symbol: ctx.symbolOf ? ctx.symbolOf(wire) : wire, snapshot });
    return;
  }
  const at = stream.indexOf('@');
  if (at > 0 && !stream.startsWith('!')) ctx.lastSymbol = stream.slice(0, at).toUpperCase();
  const lazy = lazyEventOf(rec.data, Math.floor(rec.recvTime), ctx);
  if (lazy !== undefined) {
    out.push({ kind: 'market', recvTime: rec.recvTime, stream, event: lazy });
    return;
  }
  const events = parseMarketPayload(rec.data, { stream, recvTime: Math.floor(rec.recvTime), symbolOf: ctx.symbolOf });
  for (const event of events) out.push({ kind: 'market', recvTime: rec.recvTime, stream, event });
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
