/**
 * The binary recording format (backtest-data/README.md says how to make and use one): a recording
 * converted once, with the bulk of its events (depth diffs, trades, book tickers) stored as exact
 * scaled integers, so a replay reads numbers instead of parsing JSON and decimal text every run.
 *
 * Layout, all integers little-endian:
 *  - magic `KANCILRB` (8 bytes), u8 version (1), u32 header length, header JSON (UTF-8): format,
 *    version, symbols, source, licence, createdAt, importedFrom.
 *  - records: u8 kind, u32 body length, body. The length lets a reader find record boundaries in
 *    a chunk and report a truncated file at the offset where its last record starts.
 * Integer fields are "u53": a non-negative safe integer as u32 low word then u32 high word, read
 * as high * 2^32 + low (exact integer arithmetic). Nothing is rounded: a line whose values do not
 * fit (past a safe integer at its scale, an id past 2^53, a negative time or id, a decimal written
 * `.5` or `5.`) is stored as its text ({@link KIND_LINE}) and read back by the text reader's code.
 *
 * A record's time (the receive time) is u8 form, u53, u32: form 1 is nanoseconds as a ms part and
 * a sub-millisecond part (read as ms + sub / 1e6, the text reader's own computation), form 0 whole
 * ms. A value is an integer count of 10^-scale units. A depth diff's levels share one price and one
 * qty scale: their significant fraction digits, raised to the largest scales the symbol's earlier
 * diffs were written at (so a replay's local book, which keeps its largest scales, takes them
 * without a copy); readers take any scale. A trade's or ticker's decimal keeps the scale of its
 * text, trailing zeros included, so the text is spelled back byte for byte.
 */

/** First 8 bytes of every binary recording. */
export const MAGIC = 'KANCILRB';
/** Format version written after the magic. */
export const VERSION = 1;
/** Conventional file name ending of a binary recording. */
export const BINARY_EXTENSION = '.krb';

/** Defines the next string id (0, 1, …) as the body's UTF-8 text: stream names and symbols. */
export const KIND_STRING = 1;
/** A recorded line kept as text (snapshots, klines, anything not stored as numbers). */
export const KIND_LINE = 2;
/**
 * A depth diff with both sides as scaled integers: time, stream id u32, symbol id u32, E u53, U u53,
 * u u53, price scale u8, qty scale u8, bid count u32, ask count u32, then per level price u53 and
 * qty u53 (bids, then asks).
 */
export const KIND_DEPTH = 3;
/**
 * A trade with price and quantity as scaled integers that spell the wire text exactly: time, stream
 * id, symbol id, E u53, trade id u53, trade time u53, flags u8 (1 buyer is maker, 2 buyer order id
 * present, 4 seller order id present), buyer order id u53, seller order id u53, price scale u8,
 * price u53, qty scale u8, qty u53.
 */
export const KIND_TRADE = 4;
/**
 * A book ticker with its four decimals as scaled integers that spell the wire text exactly: time,
 * stream id, symbol id, E u53 (the receive time's ms when the payload has none, as the text reader
 * takes it), update id u53, then bid price, bid qty, ask price, ask qty, each scale u8 and value u53.
 */
export const KIND_BOOK_TICKER = 5;

/** Bytes before a record's body: kind and body length. */
export const RECORD_HEAD = 5;

/** Header of a binary recording (the JSON after the magic). */
export interface BinaryHeader {
  readonly format: 'kancil-binary-recording';
  readonly version: 1;
  readonly source: string;
  readonly licence: string;
  readonly createdAt?: string;
  readonly symbols?: readonly string[];
  readonly importedFrom?: readonly string[];
}

/** Fraction digits a scale may have: POW10 (core/pow10) covers 10^0..10^22. */
export const MAX_SCALE = 22;

const ZEROS = '0000000000000000000000';

/**
 * The decimal text of `v` * 10^-scale with exactly `scale` fraction digits (`61837.63000000` for
 * 6183763000000 at scale 8): how a wire string is spelled again from its scaled integer.
 */
export function scaledText(v: number, scale: number): string {
  const s = String(v);
  if (scale === 0) return s;
  if (s.length > scale) return `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return `0.${ZEROS.slice(0, scale - s.length)}${s}`;
}

/**
 * A wire decimal as [integer, scale] such that {@link scaledText} spells it back exactly (the
 * scale is its count of fraction digits, trailing zeros included); undefined for a string that
 * would not come back the same (`.5`, `5.`, leading zeros) or does not fit a safe integer.
 */
export function exactScaled(s: string): readonly [number, number] | undefined {
  const dot = s.indexOf('.');
  const scale = dot < 0 ? 0 : s.length - dot - 1;
  if (scale > MAX_SCALE) return undefined;
  const digits = dot < 0 ? s : s.slice(0, dot) + s.slice(dot + 1);
  if (!/^\d+$/.test(digits) || digits.length > 15) return undefined;
  const v = Number(digits);
  return scaledText(v, scale) === s ? [v, scale] : undefined;
}
