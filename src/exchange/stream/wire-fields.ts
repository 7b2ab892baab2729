/**
 * Field readers for stream payloads: each names the field on failure (ParseError), so a malformed
 * payload is reported precisely and counted by the caller instead of crashing it.
 */
import type { Decimal } from '../../core/decimal.js';
import { ParseError } from '../../core/errors.js';
import type { BookLevel } from '../../core/types.js';
import { amountValue } from '../parse/fields.js';

/** A JSON object payload. */
export type Obj = Readonly<Record<string, unknown>>;

/** Narrows to a JSON object. */
export function obj(field: string, v: unknown): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ParseError(field, v, 'expected an object');
  return v as Obj;
}

/** A safe integer (numbers, or digit strings where exchanges send ids as strings). */
export function int(field: string, v: unknown): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new ParseError(field, v, 'expected an integer');
  return n;
}

/** A string. */
export function str(field: string, v: unknown): string {
  if (typeof v !== 'string') throw new ParseError(field, v, 'expected a string');
  return v;
}

/** A boolean. */
export function bool(field: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ParseError(field, v, 'expected a boolean');
  return v;
}

/**
 * An exchange amount (price, quantity, volume, fee, balance), held to the REST side's strict rule
 * (see amountValue): a sign, an exponent, 1e18 or more, or more than 18 decimals are refused by a
 * regex before any Decimal is built, so a trade at 1e-400 never reaches a strategy or a book.
 */
export function dec(field: string, v: unknown): Decimal {
  return amountValue(field, v);
}

/** An array of `[price, qty]` string pairs parsed to exact levels (amounts as strict as {@link dec}). */
export function levels(field: string, v: unknown): BookLevel[] {
  if (!Array.isArray(v)) throw new ParseError(field, v, 'expected an array of [price, qty]');
  const out: BookLevel[] = new Array<BookLevel>(v.length);
  for (let i = 0; i < v.length; i++) {
    const lv: unknown = v[i];
    if (!Array.isArray(lv) || lv.length < 2) throw new ParseError(`${field}[${i}]`, lv, 'expected [price, qty]');
    out[i] = { price: amountValue(`${field}[${i}][0]`, lv[0]), qty: amountValue(`${field}[${i}][1]`, lv[1]) };
  }
  return out;
}
