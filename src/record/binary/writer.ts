/**
 * Converts recording lines (the text format, or an importer's output) into a binary recording
 * (format.ts). Each line the text reader would turn into a lazy depth diff, trade or book ticker is
 * stored as exact scaled integers; every other line (snapshots, klines, lines whose numbers do not
 * fit, malformed lines) is stored as its text and read back by the text reader's code, so the
 * binary file yields the same items. Nothing is rounded: a value that does not fit is kept as text.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { DecimalTextCache } from '../../core/decimalText.js';
import { fractionDigitsOf, scaledDecimal } from '../../core/scaledLevels.js';
import { lazyBookTicker } from '../book-ticker.js';
import { plainLevels, type RawLevels } from '../depth-diff.js';
import { type RecordLine, SNAPSHOT_SUFFIX, parseRecordLine } from '../format.js';
import { lazyTradeOf, rawTrade } from '../trade.js';
import { type BinaryHeader, KIND_BOOK_TICKER, KIND_DEPTH, KIND_LINE, KIND_STRING, KIND_TRADE, MAGIC, MAX_SCALE, RECORD_HEAD, VERSION, exactScaled } from './format.js';

/** Counts of a conversion. */
export interface BinaryWriteStats {
  /** Data lines read. */
  lines: number;
  /** Lines stored as numbers (depth diffs, trades, book tickers). */
  numeric: number;
  /** Lines stored as text. */
  text: number;
  /** Bytes written. */
  bytes: number;
}

/** Where the data came from: written into the header. */
export interface BinaryHeaderInput {
  readonly source: string;
  readonly licence: string;
  readonly symbols?: readonly string[];
  readonly importedFrom?: readonly string[];
}

const FLUSH_AT = 1 << 20;

/** A growable output buffer flushed to the file in ~1 MiB writes. */
class Out {
  buf = Buffer.alloc(FLUSH_AT * 2);
  pos = 0;
  bytes = 0;
  constructor(readonly fh: FileHandle) {}
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(v: number): void {
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }
  /** A non-negative safe integer (checked by the caller) as low and high 32-bit words. */
  u53(v: number): void {
    const hi = Math.floor(v / 4294967296);
    this.buf.writeUInt32LE(v - hi * 4294967296, this.pos);
    this.buf.writeUInt32LE(hi, this.pos + 4);
    this.pos += 8;
  }
  text(s: string): void {
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }
  async flush(force: boolean): Promise<void> {
    if (this.pos === 0 || (!force && this.pos < FLUSH_AT)) return;
    await this.fh.write(this.buf, 0, this.pos);
    this.bytes += this.pos;
    this.pos = 0;
  }
}

const isU53 = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** A receive time as its form (0: ms, 1: ns) and parts, as record/format recvToMs reads it; undefined when a part is not a safe integer. */
function recvParts(raw: string): readonly [number, number, number] | undefined {
  if (raw.length >= 15) {
    const ms = Number(raw.slice(0, -6));
    return isU53(ms) ? [1, ms, Number(raw.slice(-6))] : undefined;
  }
  const ms = Number(raw);
  return isU53(ms) ? [0, ms, 0] : undefined;
}

/**
 * Writes `lines` (recording lines: comments and blank lines are skipped) to `out` as a binary
 * recording; resolves with the counts.
 */
export async function writeBinaryRecording(out: string, header: BinaryHeaderInput, lines: AsyncIterable<string> | Iterable<string>): Promise<BinaryWriteStats> {
  const fh = await open(out, 'w');
  const o = new Out(fh);
  const stats: BinaryWriteStats = { lines: 0, numeric: 0, text: 0, bytes: 0 };
  try {
    const h: BinaryHeader = { format: 'kancil-binary-recording', version: 1, createdAt: new Date().toISOString(), source: header.source, licence: header.licence, ...(header.symbols ? { symbols: header.symbols } : {}), ...(header.importedFrom ? { importedFrom: header.importedFrom } : {}) };
    const json = Buffer.from(JSON.stringify(h), 'utf8');
    o.ensure(MAGIC.length + 5 + json.length);
    o.text(MAGIC);
    o.u8(VERSION);
    o.u32(json.length);
    json.copy(o.buf, o.pos);
    o.pos += json.length;
    const enc = new Encoder(o);
    for await (const line of lines) {
      if (line.length === 0 || line.charCodeAt(0) === 35) continue;
      stats.lines++;
      if (enc.numeric(line)) stats.numeric++;
      else {
        enc.line(line);
        stats.text++;
      }
      await o.flush(false);
    }
    await o.flush(true);
  } finally {
    await fh.close();
  }
  stats.bytes = o.bytes;
  return stats;
}

/** Encodes lines into records, keeping the string table. */
class Encoder {
  readonly #ids = new Map<string, number>();
  readonly #cache = new DecimalTextCache();
  /** Per wire symbol: the largest price and qty scales its depth records were written at. */
  readonly #depthScales = new Map<string, readonly [number, number]>();
  constructor(readonly o: Out) {}

  /** A line as text (read back by the text reader's code). */
  line(line: string): void {
    const n = Buffer.byteLength(line, 'utf8');
    this.o.ensure(RECORD_HEAD + n);
    this.o.u8(KIND_LINE);
    this.o.u32(n);
    this.o.text(line);
  }

  /** Writes the line as numbers when it is a depth diff, trade or book ticker that fits exactly; false otherwise (nothing written). */
  numeric(line: string): boolean {
    let rec: RecordLine | undefined;
    try {
      rec = parseRecordLine(line);
    } catch {
      return false;
    }
    if (rec === undefined || rec.stream === undefined || rec.stream.endsWith(SNAPSHOT_SUFFIX)) return false;
    const d = rec.data;
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return false;
    const t = recvParts(rec.recvRaw);
    if (t === undefined) return false;
    const p = d as Record<string, unknown>;
    if (p.e === 'depthUpdate') return this.#depth(rec.stream, t, p);
    if (p.e === 'trade') return this.#trade(rec.stream, t, p);
    if (p.e === undefined) return this.#ticker(rec.stream, t, p, Math.floor(rec.recvTime));
    return false;
  }

  #id(s: string): number {
    let id = this.#ids.get(s);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(s, id);
      const n = Buffer.byteLength(s, 'utf8');
      this.o.ensure(RECORD_HEAD + n);
      this.o.u8(KIND_STRING);
      this.o.u32(n);
      this.o.text(s);
    }
    return id;
  }

  /** Kind, body length and the fields every typed record starts with. */
  #head(kind: number, body: number, stream: string, symbol: string, t: readonly [number, number, number]): void {
    const streamId = this.#id(stream);
    const symbolId = this.#id(symbol);
    this.o.ensure(RECORD_HEAD + body);
    this.o.u8(kind);
    this.o.u32(body);
    this.o.u8(t[0]);
    this.o.u53(t[1]);
    this.o.u32(t[2]);
    this.o.u32(streamId);
    this.o.u32(symbolId);
  }

  /** The text reader's lazy-diff conditions (record/items.ts), plus non-negative ids and levels that fit at the record's scales. */
  #depth(stream: string, t: readonly [number, number, number], d: Record<string, unknown>): boolean {
    const { U, u, E, s } = d;
    if (!isU53(U) || !isU53(u) || !isU53(E) || typeof s !== 'string' || u < U) return false;
    const bids = plainLevels(d.b);
    const asks = bids && plainLevels(d.a);
    if (bids === undefined || asks === undefined) return false;
    // Scales that hold every level exactly: the significant fraction digits of this record, raised
    // to the largest this symbol's diffs reached before. A replay's local book keeps the largest
    // scales its levels needed so far (core/scaledLevels), so a record already at them is applied
    // as it is, with no rescaling copy per diff (Replay's scaled path). A record whose values would
    // not fit at the raised scales keeps its own.
    let ownPs = 0;
    let ownQs = 0;
    for (const side of [bids, asks]) {
      for (const lv of side) {
        ownPs = Math.max(ownPs, fractionDigitsOf(lv[0]));
        ownQs = Math.max(ownQs, fractionDigitsOf(lv[1]));
      }
    }
    if (ownPs > MAX_SCALE || ownQs > MAX_SCALE) return false;
    const prev = this.#depthScales.get(s);
    let ps = Math.max(ownPs, prev?.[0] ?? 0);
    let qs = Math.max(ownQs, prev?.[1] ?? 0);
    const values = new Float64Array((bids.length + asks.length) * 2);
    if (!scaleSide(bids, ps, qs, values, 0) || !scaleSide(asks, ps, qs, values, bids.length * 2)) {
      ps = ownPs;
      qs = ownQs;
      if (!scaleSide(bids, ps, qs, values, 0) || !scaleSide(asks, ps, qs, values, bids.length * 2)) return false;
    } else this.#depthScales.set(s, [ps, qs]);
    this.#head(KIND_DEPTH, 13 + 8 + 24 + 2 + 8 + values.length * 8, stream, s, t);
    const o = this.o;
    o.u53(E);
    o.u53(U);
    o.u53(u);
    o.u8(ps);
    o.u8(qs);
    o.u32(bids.length);
    o.u32(asks.length);
    for (let i = 0; i < values.length; i++) o.u53(values[i] as number);
    return true;
  }

  /** The text reader's lazy-trade conditions (record/trade.ts lazyTradeOf), plus non-negative times and decimals that spell back exactly. */
  #trade(stream: string, t: readonly [number, number, number], d: Record<string, unknown>): boolean {
    const ev = lazyTradeOf(d, undefined, this.#cache);
    const raw = ev && rawTrade(ev);
    if (ev === undefined || raw === undefined || !isU53(ev.E) || !isU53(ev.tradeTime)) return false;
    const price = exactScaled(raw.price);
    const qty = exactScaled(raw.qty);
    if (price === undefined || qty === undefined) return false;
    const b = d.b as number | undefined;
    const a = d.a as number | undefined;
    this.#head(KIND_TRADE, 13 + 8 + 24 + 1 + 16 + 18, stream, ev.symbol, t);
    const o = this.o;
    o.u53(ev.E);
    o.u53(d.t as number);
    o.u53(ev.tradeTime);
    o.u8((ev.isBuyerMaker ? 1 : 0) | (b !== undefined ? 2 : 0) | (a !== undefined ? 4 : 0));
    o.u53(b ?? 0);
    o.u53(a ?? 0);
    o.u8(price[1]);
    o.u53(price[0]);
    o.u8(qty[1]);
    o.u53(qty[0]);
    return true;
  }

  /** The text reader's lazy-ticker conditions (record/book-ticker.ts), with E resolved as it resolves it, and decimals that spell back exactly. */
  #ticker(stream: string, t: readonly [number, number, number], d: Record<string, unknown>, recvTime: number): boolean {
    const ev = lazyBookTicker(d, recvTime, undefined, this.#cache);
    if (ev === undefined || !isU53(ev.E) || !isU53(ev.updateId)) return false;
    const parts = [d.b, d.B, d.a, d.A].map((v) => exactScaled(v as string));
    if (parts.some((x) => x === undefined)) return false;
    this.#head(KIND_BOOK_TICKER, 13 + 8 + 16 + 36, stream, ev.symbol, t);
    const o = this.o;
    o.u53(ev.E);
    o.u53(ev.updateId);
    for (const x of parts as (readonly [number, number])[]) {
      o.u8(x[1]);
      o.u53(x[0]);
    }
    return true;
  }
}

/** Scales one side's levels into `out` from `at` (price, qty pairs); false when one does not fit a safe integer. */
function scaleSide(levels: RawLevels, ps: number, qs: number, out: Float64Array, at: number): boolean {
  for (let i = 0; i < levels.length; i++) {
    const lv = levels[i] as readonly [string, string];
    const p = scaledDecimal(lv[0], ps);
    const q = scaledDecimal(lv[1], qs);
    if (p < 0 || q < 0) return false;
    out[at + 2 * i] = p;
    out[at + 2 * i + 1] = q;
  }
  return true;
}
