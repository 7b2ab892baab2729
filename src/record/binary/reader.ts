/**
 * Streaming reader of binary recordings (format.ts): reads the file in 128 KiB chunks (memory stays
 * flat), and yields the same items as the text reader would for the text the file was converted
 * from: depth diffs carry their sides as scaled integers ({@link flatDepthDiff}, so the replay
 * skips the parse), trades and book tickers are the text reader's lazy events over the same wire
 * strings, and lines kept as text go through the text reader's own conversion (record/items.ts).
 * A bad or truncated file throws a {@link BinaryRecordingError} naming the file and byte offset.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { RecordingError } from '../../core/errors.js';
import { open } from 'node:fs/promises';
import { lazyBookTicker } from '../book-ticker.js';
import { flatDepthDiff } from '../depth-diff.js';
import { parseRecordLine } from '../format.js';
import { lineStream } from '../skipStreams.js';
import { type ItemContext, MarketItem, type ReadStats, type RecordedItem, toItems } from '../items.js';
import { WIRE_FIELDS, WireField, wireTradeOfFields } from '../trade.js';
import { type BinaryHeader, KIND_BOOK_TICKER, KIND_DEPTH, KIND_LINE, KIND_STRING, KIND_TRADE, MAGIC, RECORD_HEAD, VERSION, scaledText } from './format.js';

/** A binary recording that cannot be read: names the file and the byte offset of the problem. */
export class BinaryRecordingError extends RecordingError {
  constructor(
    file: string,
    readonly offset: number,
    problem: string,
  ) {
    super(file, `offset ${offset}`, problem);
  }
}

/** True when the file starts with the binary recording magic. */
export async function isBinaryRecording(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(MAGIC.length);
    const { bytesRead } = await fh.read(buf, 0, MAGIC.length, 0);
    return bytesRead === MAGIC.length && buf.toString('latin1') === MAGIC;
  } finally {
    await fh.close();
  }
}

/**
 * Where the record being decoded is read from: the chunk, a moving position, and what an error
 * names (module state, not an object per record: a record is decoded synchronously, start to end).
 */
let rb: Buffer = Buffer.alloc(0);
/** A view of `rb`'s bytes: its reads compile to plain loads (Buffer's readUInt32LE is a call that checks and joins four bytes). */
let rv = new DataView(rb.buffer, rb.byteOffset, rb.byteLength);
let rp = 0;
let rFile = '';
let rOffset = 0;
let rKind = 0;

function fail(problem: string): never {
  throw new BinaryRecordingError(rFile, rOffset, `record kind ${rKind}: ${problem}`);
}
function u8(): number {
  return rb[rp++] as number;
}
function u32(): number {
  const v = rv.getUint32(rp, true);
  rp += 4;
  return v;
}
/** A non-negative safe integer (low word, high word). */
function u53(): number {
  const lo = rv.getUint32(rp, true);
  const hi = rv.getUint32(rp + 4, true);
  rp += 8;
  if (hi >= 0x200000) fail('integer beyond 2^53');
  return hi * 4294967296 + lo;
}
/** 2^53: the first integer a u53 refuses. */
const TWO_53 = 9007199254740992;

/** A receive time as the text reader computes it (record/format recvToMs). */
function recvTime(): number {
  const form = u8();
  const ms = u53();
  const sub = u32();
  return form === 1 ? ms + sub / 1e6 : ms;
}
function scale(): number {
  const s = u8();
  if (s > 22) fail(`scale ${s} beyond 22`);
  return s;
}

/** What one read keeps across records: the string table and the stream symbols derived from it. */
interface BinaryState {
  readonly strings: string[];
  /** Per string id: the symbol a stream name sets as the reader's last symbol (null: none). */
  readonly streamSymbols: (string | null)[];
  /** Per string id: true when the read drops that stream's records unread. */
  readonly skipped: boolean[];
  /** Per string id: the caller's spelling of it as a symbol (ctx.symbolOf), once asked for. */
  readonly symbols: (string | undefined)[];
  readonly skipStream: ((stream: string) => boolean) | undefined;
}

/** Reads the header of a binary recording (throws BinaryRecordingError when it is not one). */
export async function readBinaryHeader(file: string): Promise<BinaryHeader> {
  return (await headerAndDataStart(file)).header;
}

/** The header, checked, and the offset of the first record after it. */
async function headerAndDataStart(file: string): Promise<{ header: BinaryHeader; dataStart: number }> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(MAGIC.length + 5);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const len = headerLength(file, head.subarray(0, bytesRead));
    if (len === undefined) throw new BinaryRecordingError(file, bytesRead, 'truncated header');
    const body = Buffer.alloc(len);
    const r = await fh.read(body, 0, len, head.length);
    if (r.bytesRead < len) throw new BinaryRecordingError(file, head.length + r.bytesRead, 'truncated header');
    return { header: parseHeader(file, body), dataStart: head.length + len };
  } finally {
    await fh.close();
  }
}

/** The header's JSON length after checking magic and version; undefined when the bytes end before it. */
function headerLength(file: string, buf: Buffer): number | undefined {
  const m = Math.min(buf.length, MAGIC.length);
  if (buf.subarray(0, m).toString('latin1') !== MAGIC.slice(0, m)) throw new BinaryRecordingError(file, 0, `not a binary recording (magic ${MAGIC} expected)`);
  if (buf.length < MAGIC.length + 5) return undefined;
  const version = buf[MAGIC.length] as number;
  if (version !== VERSION) throw new BinaryRecordingError(file, MAGIC.length, `unsupported version ${version} (this reader reads ${VERSION})`);
  return buf.readUInt32LE(MAGIC.length + 1);
}

function parseHeader(file: string, body: Buffer): BinaryHeader {
  let h: unknown;
  try {
    h = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new BinaryRecordingError(file, MAGIC.length + 5, `header is not JSON: ${(err as Error).message}`);
  }
  if (typeof h !== 'object' || h === null || (h as { format?: unknown }).format !== 'kancil-binary-recording') throw new BinaryRecordingError(file, MAGIC.length + 5, 'header is not a kancil-binary-recording header');
  return h as BinaryHeader;
}

/**
 * Items of one binary file in batches (one per chunk read), continuing the text reader's context
 * `ctx` (symbol mapping, last stream symbol, Decimal cache). Each data record counts as a line in
 * `stats`; a text record that does not parse is reported through `onMalformed` with the record's
 * byte offset in place of a line number, and skipped, as the text reader skips a bad line.
 */
export async function* readBinaryBatches(file: string, ctx: ItemContext, stats: ReadStats, onMalformed: (err: Error, file: string, lineNo: number) => void, skipStream?: (stream: string) => boolean): AsyncGenerator<RecordedItem[]> {
  const fd = openSync(file, 'r');
  const st: BinaryState = { strings: [], streamSymbols: [], skipped: [], symbols: [], skipStream };
  // One buffer, refilled behind the record cut off at its end (moved to the front): no buffer
  // allocated per read and no copy of the whole of it to join the pieces of a split record.
  // Nothing decoded keeps a view of it (texts are copied out, levels go to their pool).
  let buf = Buffer.allocUnsafe(READ_BYTES);
  let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  /** Bytes of `buf` filled, and the file offset of its first byte. */
  let filled = 0;
  let base = 0;
  let headerDone = false;
  let reads = 0;
  try {
    for (;;) {
      // Read synchronously (see YIELD_READS): an async read is a trip through the thread pool and
      // a promise per 128 KiB, ~2.5 times the CPU of the read itself.
      if (++reads % YIELD_READS === 0) await turn();
      const bytesRead = readSync(fd, buf, filled, buf.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      stats.bytes = (stats.bytes ?? 0) + bytesRead;
      let pos = 0;
      let need = 0;
      if (!headerDone) {
        const len = headerLength(file, buf.subarray(0, filled));
        need = len === undefined ? MAGIC.length + 5 : MAGIC.length + 5 + len;
        if (need > filled && need > fstatSync(fd).size) throw new BinaryRecordingError(file, MAGIC.length + 1, `truncated header (its length says ${len} bytes, past the end of the file)`);
        if (len !== undefined && filled >= need) {
          parseHeader(file, buf.subarray(MAGIC.length + 5, need));
          pos = need;
          need = 0;
          headerDone = true;
        }
      }
      const out: RecordedItem[] = [];
      if (headerDone) {
        while (pos + RECORD_HEAD <= filled) {
          const end = pos + RECORD_HEAD + view.getUint32(pos + 1, true);
          if (end > filled) {
            // A corrupt length must not become a buffer of gigabytes: past the end it is an error.
            const size = fstatSync(fd).size;
            if (base + end > size) throw new BinaryRecordingError(file, base + pos, `truncated record (its length says ${end - pos} bytes, ${size - base - pos} left at the end of the file)`);
            need = end - pos;
            break;
          }
          readRecord(file, base + pos, buf, pos, end, st, ctx, stats, onMalformed, out);
          pos = end;
        }
      }
      buf.copy(buf, 0, pos, filled);
      base += pos;
      filled -= pos;
      // A record (or header) longer than the buffer: a buffer it fits.
      if (need > buf.length) {
        const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buf.length));
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
        view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      }
      stats.items += out.length;
      if (out.length > 0) yield out;
    }
    if (!headerDone) throw new BinaryRecordingError(file, base + filled, 'truncated header');
    if (filled > 0) throw new BinaryRecordingError(file, base, `truncated record (${filled} bytes left at the end of the file)`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads between two turns of the event loop (2 MiB, a few ms of replay): the reads are synchronous,
 * and timers, I/O callbacks and signal handlers of the process (progress, a console, Ctrl-C) still
 * run while a long recording is read.
 */
const YIELD_READS = 16;

/** Resolves on the event loop's next turn (after its I/O and timers). */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Bytes read at a time, and so the size of a batch. A batch's items live until the replay has taken
 * them, and a young collection copies (and, the second time, promotes) whatever is still alive, so
 * a smaller batch is cheaper to collect (the commit that chose 128 KiB has the figures).
 */
const READ_BYTES = 1 << 17;

/** Decodes the record at `pos` (body up to `end`), appending its items to `out`. */
function readRecord(file: string, offset: number, buf: Buffer, pos: number, end: number, st: BinaryState, ctx: ItemContext, stats: ReadStats, onMalformed: (err: Error, file: string, lineNo: number) => void, out: RecordedItem[]): void {
  const kind = buf[pos] as number;
  if (rb !== buf) {
    rb = buf;
    rv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  rp = pos + RECORD_HEAD;
  rFile = file;
  rOffset = offset;
  rKind = kind;
  if (kind === KIND_STRING) {
    const text = buf.toString('utf8', rp, end);
    st.strings.push(text);
    const at = text.indexOf('@');
    st.streamSymbols.push(at > 0 && !text.startsWith('!') ? text.slice(0, at).toUpperCase() : null);
    st.skipped.push(st.skipStream?.(text) === true);
    return;
  }
  stats.lines++;
  if (kind === KIND_LINE) {
    if (st.skipStream !== undefined) {
      const name = lineStream(buf.toString('utf8', rp, Math.min(end, rp + 200)));
      if (name !== undefined && st.skipStream(name)) return;
    }
    try {
      const rec = parseRecordLine(buf.toString('utf8', rp, end));
      if (rec !== undefined) toItems(rec, ctx, out);
    } catch (err) {
      stats.malformed++;
      onMalformed(err as Error, file, offset);
    }
    return;
  }
  if (kind !== KIND_DEPTH && kind !== KIND_TRADE && kind !== KIND_BOOK_TICKER) throw new BinaryRecordingError(file, offset, `unknown record kind ${kind}`);
  if (st.skipStream !== undefined && st.skipped[rv.getUint32(pos + RECORD_HEAD + 13, true)] === true) return;
  const recv = recvTime();
  const streamId = u32();
  const symbolId = u32();
  const stream = st.strings[streamId];
  const wire = st.strings[symbolId];
  if (stream === undefined || wire === undefined) fail(`string id ${stream === undefined ? streamId : symbolId} not defined before`);
  const streamSymbol = st.streamSymbols[streamId];
  if (streamSymbol !== null && streamSymbol !== undefined) ctx.lastSymbol = streamSymbol;
  // One mapping per symbol id, not one (an upper-casing and a map lookup) per record.
  let symbol = st.symbols[symbolId];
  if (symbol === undefined) st.symbols[symbolId] = symbol = ctx.symbolOf ? ctx.symbolOf(wire) : wire;
  if (kind === KIND_DEPTH) {
    const E = u53();
    const U = u53();
    const u = u53();
    const priceScale = scale();
    const qtyScale = scale();
    const nb = u32();
    const na = u32();
    if (rp + (nb + na) * 16 !== end) fail(`length does not match ${nb} + ${na} levels`);
    // Both sides from one pool, so the diff's levels lie in one buffer (see FlatDepthLevels).
    reservePool(2 * (nb + na));
    const buf = pool;
    const at = poolUsed;
    poolUsed += 2 * (nb + na);
    levelsInto(buf, at, nb);
    levelsInto(buf, at + 2 * nb, na);
    out.push(new MarketItem(recv, stream, flatDepthDiff(E, symbol, U, u, buf, at, nb, na, priceScale, qtyScale, ctx.decimals)));
  } else if (kind === KIND_TRADE) {
    // Read in place rather than through u53 (the bulk of a recording's records): the calls ate
    // TurboFan's inlining budget for this function, and one not inlined boxed its number.
    const v = rv;
    const o = rp;
    const E = v.getUint32(o + 4, true) * 4294967296 + v.getUint32(o, true);
    const t = v.getUint32(o + 12, true) * 4294967296 + v.getUint32(o + 8, true);
    const T = v.getUint32(o + 20, true) * 4294967296 + v.getUint32(o + 16, true);
    const flags = rb[o + 24] as number;
    const b = v.getUint32(o + 29, true) * 4294967296 + v.getUint32(o + 25, true);
    const a = v.getUint32(o + 37, true) * 4294967296 + v.getUint32(o + 33, true);
    const ps = rb[o + 41] as number;
    const p = v.getUint32(o + 46, true) * 4294967296 + v.getUint32(o + 42, true);
    const qs = rb[o + 50] as number;
    const q = v.getUint32(o + 55, true) * 4294967296 + v.getUint32(o + 51, true);
    rp = o + 59;
    // As u53 and scale check them, in the same order (a high word from 2^21 on makes the value at least 2^53).
    if (E >= TWO_53 || t >= TWO_53 || T >= TWO_53 || b >= TWO_53 || a >= TWO_53) fail('integer beyond 2^53');
    if (ps > 22) fail(`scale ${ps} beyond 22`);
    if (p >= TWO_53) fail('integer beyond 2^53');
    if (qs > 22) fail(`scale ${qs} beyond 22`);
    if (q >= TWO_53) fail('integer beyond 2^53');
    const f = WIRE_FIELDS;
    f[WireField.E] = E;
    f[WireField.tradeId] = t;
    f[WireField.tradeTime] = T;
    f[WireField.price] = p;
    f[WireField.priceScale] = ps;
    f[WireField.qty] = q;
    f[WireField.qtyScale] = qs;
    out.push(new MarketItem(recv, stream, wireTradeOfFields(symbol, (flags & 1) !== 0, (flags & 2) !== 0 ? String(b) : undefined, (flags & 4) !== 0 ? String(a) : undefined, ctx.decimals)));
  } else {
    const E = u53();
    const u = u53();
    const d = { E, u, s: wire, b: scaledPair(), B: scaledPair(), a: scaledPair(), A: scaledPair() };
    // The text reader's own constructor: the same fields, key order and getters.
    const ev = lazyBookTicker(d, E, ctx.symbolOf, ctx.decimals);
    if (ev === undefined) fail('book ticker fields not well formed');
    out.push(new MarketItem(recv, stream, ev));
  }
  if (rp !== end) fail(`length ${end - pos - RECORD_HEAD} does not match its fields`);
}

/** A decimal stored as scale then value, spelled as its text. */
function scaledPair(): string {
  const sc = scale();
  return scaledText(u53(), sc);
}

/**
 * Levels are cut from shared pools in reading order (views, not a typed array with its own
 * backing store each): a diff's four arrays and consecutive diffs lie next to each other in
 * memory, so a replay reads them as one forward stream that the cache prefetches, and reading
 * allocates no backing store per array. A pool is kept alive by any of its diffs (a few hundred).
 */
const POOL = 1 << 15;
let pool = new Float64Array(POOL);
let poolUsed = 0;

/** Makes room for `n` entries in the current pool (a new pool when it has not). */
function reservePool(n: number): void {
  if (poolUsed + n > pool.length) {
    pool = new Float64Array(Math.max(POOL, n));
    poolUsed = 0;
  }
}

/**
 * The next `n` levels of the record (price u53, qty u53 each) into `buf` from `at`: the prices,
 * then the quantities. Read through the DataView as plain loads (the bulk of a binary recording),
 * with no copy of the record's bytes.
 */
function levelsInto(buf: Float64Array, at: number, n: number): void {
  const v = rv;
  const q0 = at + n;
  let o = rp;
  for (let i = 0; i < n; i++, o += 16) {
    const ph = v.getUint32(o + 4, true);
    const qh = v.getUint32(o + 12, true);
    if (ph >= 0x200000 || qh >= 0x200000) fail('integer beyond 2^53');
    buf[at + i] = ph * 4294967296 + v.getUint32(o, true);
    buf[q0 + i] = qh * 4294967296 + v.getUint32(o + 8, true);
  }
  rp = o;
}
