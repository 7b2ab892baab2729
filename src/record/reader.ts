/**
 * Streaming reader of recordings: an async iterator over one or more files (gzip or plain), in
 * file order, with flat memory. Yields typed market events and depth snapshots; a malformed line
 * is reported through `onMalformed` (logged by default) and counted, never thrown.
 * The backtester and the sandbox replay read recordings through this module.
 */
import { pino } from 'pino';
import type { MarketEvent } from '../core/marketEvents.js';
import { type RecordLine, parseRecordLine } from './format.js';
import { readLineBatches } from './line-reader.js';
import { isBinaryRecording, readBinaryBatches } from './binary/reader.js';
import { type ReadStats, type RecordedItem, itemContext } from './items.js';
import { readTextBatches } from './text-reader.js';
import { lineStream, streamSkipper } from './skipStreams.js';
import { scrubSecretText } from '../core/secretScrub.js';

export type { ReadStats, RecordedItem, RecordedMarket, RecordedSnapshot } from './items.js';

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
  /**
   * Event types to drop unread (of record/skipStreams' SKIPPABLE_EVENTS): their lines count in
   * `stats.lines` but are neither parsed nor yielded.
   */
  readonly skip?: ReadonlySet<MarketEvent['type']>;
}

/** Options of a raw-line read. */
export interface LineReadOptions extends Pick<ReadOptions, 'onMalformed' | 'stats'> {
  /** Drops, before parsing, the lines of the streams it returns true for. */
  readonly skipStream?: (stream: string) => boolean;
}

const log = pino({ hooks: { streamWrite: scrubSecretText }, name: 'kancil.record.reader' });

/** Raw lines of the given files in order (comments and blank lines skipped). */
export async function* readRecordLines(paths: string | readonly string[], opts: LineReadOptions = {}): AsyncGenerator<RecordLine & { readonly file: string; readonly lineNo: number }> {
  for await (const batch of readRecordLineBatches(paths, opts)) yield* batch;
}

/** Raw lines in batches (one per decompressed chunk): the cheapest way to stream a recording. */
export async function* readRecordLineBatches(paths: string | readonly string[], opts: LineReadOptions = {}): AsyncGenerator<(RecordLine & { readonly file: string; readonly lineNo: number })[]> {
  const stats = opts.stats ?? { lines: 0, items: 0, malformed: 0 };
  const onMalformed = opts.onMalformed ?? ((err, file, lineNo) => log.warn({ file, lineNo, err: err.message }, 'malformed recording line skipped'));
  const skipStream = opts.skipStream;
  for (const file of typeof paths === 'string' ? [paths] : paths) {
    let lineNo = 0;
    for await (const lines of readLineBatches(file)) {
      const out: (RecordLine & { file: string; lineNo: number })[] = [];
      for (const line of lines) {
        lineNo++;
        stats.lines++;
        if (skipStream !== undefined) {
          const stream = lineStream(line);
          if (stream !== undefined && skipStream(stream)) continue;
        }
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
  const ctx = itemContext(opts.symbolOf, opts.snapshotSymbol);
  const skipStream = opts.skip !== undefined && opts.skip.size > 0 ? streamSkipper(opts.skip) : undefined;
  for (const file of typeof paths === 'string' ? [paths] : paths) {
    // A binary recording (record/binary) yields the same items from its numbers.
    if (await isBinaryRecording(file)) {
      yield* readBinaryBatches(file, ctx, stats, onMalformed, skipStream);
      continue;
    }
    yield* readTextBatches(file, ctx, stats, onMalformed, skipStream);
  }
}

