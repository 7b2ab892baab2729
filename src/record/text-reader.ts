/**
 * The text reader's items: a recording (gzip or plain) read as bytes, chunk by chunk, line by
 * line. A line of a stream the read skips is dropped on its stream name's bytes; depth diffs and
 * trades in the recorder's layout are read from their bytes (line-scan.ts); only the rest is
 * decoded to a string and parsed as JSON (format.ts, items.ts). Why: JSON.parse of every kept line
 * (and a string per line and per level) was the largest cost of a text replay after the replay's own.
 */
import { createReadStream } from 'node:fs';
import { parseRecordLine, recvToMs, SNAPSHOT_SUFFIX } from './format.js';
import { type ItemContext, MarketItem, type ReadStats, type RecordedItem, toItems } from './items.js';
import { addBytesRead, chunksOf, gunzipStream, isGzip, readFailure } from './line-reader.js';
import { type ScanContext, scanPayload } from './line-scan.js';
import { lineStream } from './skipStreams.js';

/** A stream name seen in the file, by its bytes. */
interface StreamEntry {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly skip: boolean;
  /** Its lines may be read from their bytes (a plain printable name, not a snapshot's). */
  readonly scan: boolean;
  /** The upper-case symbol it names (`BTCUSDT`), for snapshot lines without one. */
  readonly symbol: string | undefined;
}

/** More distinct stream names than a recording has; past it, lines are read as JSON. */
const MAX_STREAMS = 256;
const STREAM_KEY = Uint8Array.from('{"stream":"', (c) => c.charCodeAt(0));

/** Reads the lines of one file into items (one instance per file read). */
class LineItems {
  lineNo = 0;
  readonly #streams: StreamEntry[] = [];
  readonly #scan: ScanContext;

  constructor(
    readonly file: string,
    readonly ctx: ItemContext,
    readonly stats: ReadStats,
    readonly onMalformed: (err: Error, file: string, lineNo: number) => void,
    readonly skipStream: ((stream: string) => boolean) | undefined,
  ) {
    this.#scan = { symbolOf: ctx.symbolOf, decimals: ctx.decimals, depthScales: new Map() };
  }

  /** The line `b[s, e)` (without its `\n`) into `out`. */
  line(b: Buffer, s: number, e: number, out: RecordedItem[]): void {
    this.lineNo++;
    this.stats.lines++;
    if (e > s && b[e - 1] === 13) e--;
    // `<digits> {"stream":"<name>"…`: anything else is read as JSON.
    let sp = s;
    while (sp < e && (b[sp] as number) >= 48 && (b[sp] as number) <= 57) sp++;
    if (sp === s || b[sp] !== 32 || sp + 1 + STREAM_KEY.length > e) return this.#json(b, s, e, out);
    for (let k = 0; k < STREAM_KEY.length; k++) if (b[sp + 1 + k] !== STREAM_KEY[k]) return this.#json(b, s, e, out);
    const from = sp + 1 + STREAM_KEY.length;
    let q = from;
    while (q < e && b[q] !== 34) q++;
    if (q >= e) return this.#json(b, s, e, out);
    const stream = this.#stream(b, from, q);
    if (stream === undefined) return this.#json(b, s, e, out);
    if (stream.skip) return;
    if (!stream.scan) return this.#json(b, s, e, out);
    const event = scanPayload(b, q + 1, e, this.#scan);
    if (event === undefined) return this.#json(b, s, e, out);
    if (stream.symbol !== undefined) this.ctx.lastSymbol = stream.symbol;
    out.push(new MarketItem(recvTime(b, s, sp), stream.name, event));
  }

  /** The entry of the stream name `b[from, to)`, added when new; undefined past MAX_STREAMS names. */
  #stream(b: Buffer, from: number, to: number): StreamEntry | undefined {
    const n = to - from;
    const all = this.#streams;
    for (let i = 0; i < all.length; i++) {
      const x = all[i] as StreamEntry;
      const bytes = x.bytes;
      if (bytes.length !== n) continue;
      let k = 0;
      while (k < n && b[from + k] === bytes[k]) k++;
      if (k === n) return x;
    }
    if (all.length >= MAX_STREAMS) return undefined;
    const name = b.toString('utf8', from, to);
    let printable = n > 0;
    for (let k = from; k < to; k++) {
      const c = b[k] as number;
      if (c < 32 || c > 126 || c === 92) printable = false;
    }
    const at = name.indexOf('@');
    const entry: StreamEntry = {
      bytes: Uint8Array.from(b.subarray(from, to)),
      name,
      skip: this.skipStream !== undefined && this.skipStream(name),
      scan: printable && !name.endsWith(SNAPSHOT_SUFFIX),
      symbol: at > 0 && !name.startsWith('!') ? name.slice(0, at).toUpperCase() : undefined,
    };
    all.push(entry);
    return entry;
  }

  /** The line as a string, parsed as JSON (record/format), skipped, converted or reported as the line reader always did. */
  #json(b: Buffer, s: number, e: number, out: RecordedItem[]): void {
    const line = b.toString('utf8', s, e);
    if (this.skipStream !== undefined) {
      const stream = lineStream(line);
      if (stream !== undefined && this.skipStream(stream)) return;
    }
    try {
      const rec = parseRecordLine(line);
      if (rec !== undefined) toItems(rec, this.ctx, out);
    } catch (err) {
      this.stats.malformed++;
      this.onMalformed(err as Error, this.file, this.lineNo);
    }
  }
}

/** The receive time `b[s, sp)` (all digits) in ms, as record/format's recvToMs reads it. */
function recvTime(b: Buffer, s: number, sp: number): number {
  const n = sp - s;
  // Nanoseconds (15+ digits): whole ms plus the sub-ms part; at most 21 digits keep both exact.
  const msEnd = n >= 15 ? sp - 6 : sp;
  if (msEnd - s > 15) return recvToMs(b.toString('latin1', s, sp));
  let ms = 0;
  for (let i = s; i < msEnd; i++) ms = ms * 10 + (b[i] as number) - 48;
  if (msEnd === sp) return ms;
  let sub = 0;
  for (let i = msEnd; i < sp; i++) sub = sub * 10 + (b[i] as number) - 48;
  return ms + sub / 1e6;
}

/**
 * Items of the text recording `file` in batches, one per read chunk (256 KiB of the file, of the
 * decompressed text for gzip), as record/reader's readRecordingBatches yields them. `stats.bytes`
 * follows the file's bytes read (compressed ones for gzip).
 */
export async function* readTextBatches(
  file: string,
  ctx: ItemContext,
  stats: ReadStats,
  onMalformed: (err: Error, file: string, lineNo: number) => void,
  skipStream: ((stream: string) => boolean) | undefined,
): AsyncGenerator<RecordedItem[]> {
  const raw = createReadStream(file, { highWaterMark: 256 * 1024 });
  // Decompressed in 256 KiB pieces (zlib's default is 16 KiB: sixteen times the async steps and batches).
  // Smaller pieces collect no cheaper: one holds about as many kept items as a binary read of 128 KiB.
  const gzip = await isGzip(file);
  const source = gzip ? raw.pipe(gunzipStream()) : raw;
  const lines = new LineItems(file, ctx, stats, onMalformed, skipStream);
  let counted = 0;
  // The unfinished last line of the previous chunk, copied (a chunk is not ours to keep).
  let carry: Buffer | undefined;
  try {
    for await (const chunk of chunksOf(source, (err) => readFailure(file, err, lines.lineNo + 1, raw.bytesRead, gzip))) {
      const out: RecordedItem[] = [];
      let from = 0;
      if (carry !== undefined) {
        const nl = chunk.indexOf(10);
        if (nl < 0) {
          carry = Buffer.concat([carry, chunk]);
          continue;
        }
        const line = Buffer.concat([carry, chunk.subarray(0, nl)]);
        carry = undefined;
        lines.line(line, 0, line.length, out);
        from = nl + 1;
      }
      for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
        lines.line(chunk, from, nl, out);
        from = nl + 1;
      }
      if (from < chunk.length) carry = Buffer.from(chunk.subarray(from));
      counted = addBytesRead(stats, raw, counted);
      stats.items += out.length;
      if (out.length > 0) yield out;
    }
    const out: RecordedItem[] = [];
    if (carry !== undefined) lines.line(carry, 0, carry.length, out);
    counted = addBytesRead(stats, raw, counted);
    stats.items += out.length;
    if (out.length > 0) yield out;
  } finally {
    raw.destroy();
    if (source !== raw) source.destroy();
  }
}
