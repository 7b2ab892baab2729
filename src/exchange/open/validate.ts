/**
 * Parameter checks run before anything is sent; each failure is a ValidationError naming the
 * field. Lengths are the spec's "length" column.
 */
import { Decimal, Direct, ParseError, ValidationError, parseDecimal, toWire, type DecimalInput, type DirectValue } from '../../core/index.js';

export type { DecimalInput };

/** An id sent as LONG: a safe integer, a bigint, or a string of digits (keeps 64-bit ids exact). */
export type IdInput = string | number | bigint;

/** A string of at most `max` characters; required unless `optional`. */
export function text(field: string, v: string | undefined, max: number, optional = false): string | undefined {
  if (v === undefined) {
    if (optional) return undefined;
    throw new ValidationError(field, v, 'is required');
  }
  if (typeof v !== 'string' || v === '') throw new ValidationError(field, v, 'must be a non-empty string');
  if (v.length > max) throw new ValidationError(field, v, `must be at most ${max} characters`);
  return v;
}

/** Like {@link text} but never undefined. */
export function requiredText(field: string, v: string | undefined, max: number): string {
  return text(field, v, max) as string;
}

/** A decimal > 0, returned in wire form (no exponent). */
export function positive(field: string, v: DecimalInput | undefined): string {
  if (v === undefined) throw new ValidationError(field, v, 'is required');
  let d: Decimal;
  try {
    d = v instanceof Decimal ? v : parseDecimal(field, v);
  } catch (e) {
    if (e instanceof ParseError) throw new ValidationError(field, v, 'must be a decimal number');
    throw e;
  }
  if (!d.isFinite() || d.lte(0)) throw new ValidationError(field, v instanceof Decimal ? d.toFixed() : v, 'must be greater than zero');
  return toWire(d);
}

/** Optional {@link positive}. */
export function optPositive(field: string, v: DecimalInput | undefined): string | undefined {
  return v === undefined ? undefined : positive(field, v);
}

/** An optional non-negative integer (times, ids) of at most `maxDigits` digits. */
export function optLong(field: string, v: number | undefined, maxDigits = 20): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || v < 0) throw new ValidationError(field, v, 'must be a non-negative integer');
  if (String(v).length > maxDigits) throw new ValidationError(field, v, `must have at most ${maxDigits} digits`);
  return v;
}

/** An id as a digit string. */
export function idText(field: string, v: IdInput | undefined, optional = false): string | undefined {
  if (v === undefined) {
    if (optional) return undefined;
    throw new ValidationError(field, v, 'is required');
  }
  const s = typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : v;
  if (!/^\d{1,20}$/.test(s)) throw new ValidationError(field, typeof v === 'bigint' ? s : v, 'must be a non-negative integer id of at most 20 digits');
  return s;
}

/** An optional page size in 1..max. */
export function optLimit(field: string, v: number | undefined, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 1 || v > max) throw new ValidationError(field, v, `must be an integer in 1..${max}`);
  return v;
}

/** startTime must not be after endTime when both are given. */
export function timeRange(startTime: number | undefined, endTime: number | undefined): void {
  optLong('startTime', startTime);
  optLong('endTime', endTime);
  if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw new ValidationError('startTime', startTime, `must not be after endTime ${endTime}`);
}

/** Paging by id: `direct` is required when fromId is sent, and must be prev or next. */
export function pagingDirect(fromId: string | number | undefined, direct: DirectValue | undefined): void {
  if (fromId !== undefined && direct === undefined) throw new ValidationError('direct', undefined, 'is required when fromId is sent');
  if (direct !== undefined && !Object.values(Direct).includes(direct)) throw new ValidationError('direct', direct, 'must be prev or next');
}
