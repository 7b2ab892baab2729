/**
 * Trade ids are the exchange's LONGs of up to 20 digits (spec: `fromId (LONG, 20)`), beyond the
 * 2^53 a double holds exactly. They are kept as strings of their exact decimal digits, like order
 * ids, everywhere past the wire parsers: one spelling per id, so a fill reported by the user
 * stream and the same fill read back from REST reconciliation compare equal.
 */
import { ParseError } from './errors.js';

/**
 * A trade id (also an aggregate trade id, and the order ids a public trade names): the exact
 * decimal digits, canonical (no sign, no leading zeros), at most 20 digits. Compare with
 * {@link compareTradeIds}, never with `<` on the strings ('9' > '10').
 */
export type TradeId = string;

const DIGITS = /^\d{1,20}$/;

/**
 * Reads a trade id from a parsed payload: a non-negative safe integer, or a digit string (what
 * the transports make of integer literals beyond 2^53, and what some responses send). Anything
 * else (negative, fractional, non-numeric, an unsafe number whose digits are already lost) is a
 * ParseError naming the field and the value.
 */
export function parseTradeId(field: string, v: unknown): TradeId {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v) && v >= 0) return String(v);
    const why = Number.isInteger(v) && v > 0 ? 'a non-negative integer id (beyond 2^53 it must reach the parser as text, or digits are lost)' : 'a non-negative integer id';
    throw new ParseError(field, v, `expected ${why}`);
  }
  if (typeof v === 'string' && DIGITS.test(v)) return v.length > 1 && v.charCodeAt(0) === 48 ? v.replace(/^0+(?=\d)/, '') : v;
  throw new ParseError(field, v, 'expected a non-negative integer id of at most 20 digits');
}

/**
 * An optional trade id: undefined, null and the wire's -1 ("no trade", as in an executionReport
 * that is not a fill or a kline without trades) give undefined.
 */
export function parseOptionalTradeId(field: string, v: unknown): TradeId | undefined {
  return v === undefined || v === null || v === -1 || v === '-1' ? undefined : parseTradeId(field, v);
}

/** Numeric order of two canonical trade ids: negative, zero or positive like a sort comparator. */
export function compareTradeIds(a: TradeId, b: TradeId): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The id after `id` (a `fromId` that continues a page), exact at any size. */
export function nextTradeId(id: TradeId): TradeId {
  return (BigInt(id) + 1n).toString();
}
