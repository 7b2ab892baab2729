/**
 * Generic field readers for wire payloads: each names the field path on failure so a bad
 * payload says exactly what was wrong. Shared by the REST parsers and the stream side.
 */
import { Decimal } from '../../core/decimal.js';
import { DecimalTextCache } from '../../core/decimalText.js';
import { ParseError } from '../../core/errors.js';

/** A JSON object from the wire. */
export type WireObject = Readonly<Record<string, unknown>>;

/** Asserts `v` is a JSON object. */
export function asObject(where: string, v: unknown): WireObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ParseError(where, v, 'expected an object');
  return v as WireObject;
}

/** Asserts `v` is an array. */
export function asArray(where: string, v: unknown): readonly unknown[] {
  if (!Array.isArray(v)) throw new ParseError(where, v, 'expected an array');
  return v;
}

/** A list payload: either the array itself or an object with a `list` array (both occur). */
export function listOf(where: string, data: unknown): readonly unknown[] {
  if (Array.isArray(data)) return data;
  if (typeof data === 'object' && data !== null && 'list' in data) return asArray(`${where}.list`, (data as { list: unknown }).list);
  throw new ParseError(where, data, 'expected an array or an object with a list array');
}

/** A required string field (empty allowed when `allowEmpty`). */
export function str(o: WireObject, key: string, where: string, allowEmpty = true): string {
  const v = o[key];
  if (typeof v !== 'string' || (!allowEmpty && v === '')) throw new ParseError(`${where}.${key}`, v, allowEmpty ? 'expected a string' : 'expected a non-empty string');
  return v;
}

/** An optional string field: absent or null gives undefined. */
export function optStr(o: WireObject, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ParseError(`${where}.${key}`, v, 'expected a string');
  return v;
}

/** An integer that may arrive as a number or a numeric string (e.g. times as strings). */
export function int(o: WireObject, key: string, where: string): number {
  return intValue(`${where}.${key}`, o[key]);
}

/** Like {@link int} for a bare value. */
export function intValue(field: string, v: unknown): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new ParseError(field, v, 'expected an integer');
  return n;
}

/** An optional integer: absent or null gives undefined. */
export function optInt(o: WireObject, key: string, where: string): number | undefined {
  const v = o[key];
  return v === undefined || v === null ? undefined : intValue(`${where}.${key}`, v);
}

/**
 * An identifier that is a number in some responses and a string in others (orderId; tradeIds have parseTradeId in core/tradeId.ts).
 * Kept as a decimal string so 64-bit ids never lose digits.
 */
export function id(o: WireObject, key: string, where: string): string {
  const v = optId(o, key, where);
  if (v === undefined) throw new ParseError(`${where}.${key}`, o[key], 'expected an id (string or integer)');
  return v;
}

/** An optional identifier (see {@link id}). */
export function optId(o: WireObject, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  throw new ParseError(`${where}.${key}`, v, 'expected an id (string or integer)');
}

/** A flag sent as a boolean or as integer 1/0. */
export function flag(o: WireObject, key: string, where: string): boolean {
  const v = o[key];
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === '1') return true;
  if (v === 0 || v === '0') return false;
  throw new ParseError(`${where}.${key}`, v, 'expected a boolean or 1/0');
}

/** An optional flag (see {@link flag}). */
export function optFlag(o: WireObject, key: string, where: string): boolean | undefined {
  const v = o[key];
  return v === undefined || v === null ? undefined : flag(o, key, where);
}

/**
 * An enumeration value sent as its code (open API REST) or its name (streams, symbol lists).
 * `codes` is a name -> code map from core/enums.
 */
export function enumName<N extends string>(codes: Readonly<Record<N, number | string>>, field: string, v: unknown): N {
  if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(codes, v)) return v as N;
  const name = namesByCode(codes).get(v);
  if (name !== undefined) return name as N;
  throw new ParseError(field, v, `expected one of ${Object.entries(codes).map(([n, c]) => `${String(c)}/${n}`).join(', ')}`);
}

/**
 * Each code map's names by code, and by the code's text (a code may come quoted), the first name
 * winning as a scan in key order would: built once, as every order response reads four enums.
 */
const byCode = new WeakMap<object, ReadonlyMap<unknown, string>>();

function namesByCode(codes: Readonly<Record<string, number | string>>): ReadonlyMap<unknown, string> {
  let names = byCode.get(codes);
  if (names === undefined) {
    const m = new Map<unknown, string>();
    for (const [name, code] of Object.entries(codes)) {
      if (!m.has(code)) m.set(code, name);
      if (!m.has(String(code))) m.set(String(code), name);
    }
    byCode.set(codes, m);
    names = m;
  }
  return names;
}

/** Parses an ISO 8601 timestamp into epoch ms. */
export function isoTime(o: WireObject, key: string, where: string): number {
  const v = o[key];
  const t = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw new ParseError(`${where}.${key}`, v, 'expected an ISO 8601 timestamp');
  return t;
}

/** True for a plain JSON object (non-throwing {@link asObject}). */
export function isObjectLike(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Plain non-negative decimal: no sign, no exponent, below 1e18, at most 18 decimals. */
const AMOUNT_RE = /^\d{1,18}(?:\.\d{1,18})?$/;

/** True for a string {@link amountValue} accepts as it is. */
export function isAmountText(s: string): boolean {
  return AMOUNT_RE.test(s);
}

/**
 * An exchange amount (price, quantity, fee, balance) validated at the edge: non-negative, written
 * plainly (a JSON number is read through its shortest text, so 1e-7 or 1e+21 are refused), below
 * 1e18 and with at most 18 decimals. A fill at price 1e29 or a trade at 1e-400 once passed the
 * plain decimal reader and was stored; it now fails here, naming the field and the value.
 */
export function amountValue(field: string, v: unknown): Decimal {
  return new Decimal(amountText(field, v));
}

/** The text of a valid amount (see {@link amountValue}); a number as its shortest round-trip text. */
function amountText(field: string, v: unknown): string {
  const s = typeof v === 'number' && Number.isFinite(v) ? v.toString() : v;
  if (typeof s !== 'string' || !AMOUNT_RE.test(s)) throw new ParseError(field, v, 'expected a non-negative plain decimal below 1e18 with at most 18 decimals');
  return s;
}

/**
 * Amounts of the bot's own orders by text, each built once: an order's reports and snapshots
 * repeat its price and quantity, zeros and its fills' sizes (~30 amounts per live order, ~4 KB of
 * garbage). Market data is left out: trade sizes rarely repeat, and a cache of them would keep
 * until it is cleared what would otherwise die young.
 */
const ORDER_AMOUNTS = new DecimalTextCache(1 << 12);

/** Like {@link amountValue}, for the amounts of order reports and snapshots (built once per text; a Decimal never changes). */
export function orderAmountValue(field: string, v: unknown): Decimal {
  return ORDER_AMOUNTS.get(amountText(field, v));
}

/** A required amount field (see {@link amountValue}). */
export function amount(o: WireObject, key: string, where: string): Decimal {
  return amountValue(`${where}.${key}`, o[key]);
}

/** An optional amount field: absent, null or "" give undefined; `read` is {@link orderAmountValue} for an order's amounts. */
export function optAmount(o: WireObject, key: string, where: string, read: (field: string, v: unknown) => Decimal = amountValue): Decimal | undefined {
  const v = o[key];
  return v === undefined || v === null || v === '' ? undefined : read(`${where}.${key}`, v);
}
