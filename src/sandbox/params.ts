/**
 * Request parameter readers for the open API. Each failure is an ExchangeError with HTTP 400
 * and the code a careful client expects (numeric codes are "not shown" in the spec; the sandbox
 * uses the conventional ones: -1102 missing/empty, -1100 malformed, -1130 invalid value).
 */
import { type Decimal, ExchangeError, parseDecimal } from '../core/index.js';
import type { RequestContext } from './http-host.js';

/** Error codes the sandbox answers with (the spec leaves numeric codes unshown). */
export const ApiCode = {
  UNKNOWN: -1000,
  DISCONNECTED: -1001,
  TOO_MANY_REQUESTS: -1003,
  TOO_MANY_ORDERS: -1015,
  SERVICE_UNAVAILABLE: -1016,
  INVALID_TIMESTAMP: -1021,
  INVALID_SIGNATURE: -1022,
  ILLEGAL_CHARS: -1100,
  MANDATORY_PARAM: -1102,
  BAD_SYMBOL: -1121,
  INVALID_PARAMETER: -1130,
  BAD_RECV_WINDOW: -1131,
  NEW_ORDER_REJECTED: -2010,
  CANCEL_REJECTED: -2011,
  NO_SUCH_ORDER: -2013,
  BAD_API_KEY_FMT: -2014,
  REJECTED_API_KEY: -2015,
  INVALID_LISTEN_KEY: -1125,
  NOT_FOUND: -1,
} as const;

/** Throws a 400 for a parameter. */
export function badParam(ctx: RequestContext, code: number, msg: string): never {
  throw new ExchangeError(400, code, msg, ctx.path);
}

/** A mandatory string parameter (empty counts as missing), with a maximum length. */
export function reqString(ctx: RequestContext, name: string, maxLen = 50): string {
  const v = ctx.params.get(name);
  if (v === undefined || v === '') badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
  if (v.length > maxLen) badParam(ctx, ApiCode.ILLEGAL_CHARS, `Parameter '${name}' is longer than ${maxLen} characters.`);
  return v;
}

/** An optional string parameter. */
export function optString(ctx: RequestContext, name: string, maxLen = 50): string | undefined {
  const v = ctx.params.get(name);
  if (v === undefined || v === '') return undefined;
  if (v.length > maxLen) badParam(ctx, ApiCode.ILLEGAL_CHARS, `Parameter '${name}' is longer than ${maxLen} characters.`);
  return v;
}

/**
 * Lengths of integer parameters from the spec's length table (limit 4; the wallet histories'
 * status 2); every other integer (fromId, startTime, endTime, ids) has the LONG length 20.
 */
const INT_LENGTHS: Readonly<Record<string, number>> = { limit: 4, status: 2 };

/** An optional integer parameter within [min, max], no longer than its length in the spec's table. */
export function optInt(ctx: RequestContext, name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = optString(ctx, name, INT_LENGTHS[name] ?? 20);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) badParam(ctx, ApiCode.ILLEGAL_CHARS, `Illegal characters found in parameter '${name}'; legal range is '^-?[0-9]{1,20}$'.`);
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${v} for parameter '${name}'; allowed range is ${min}..${max}.`);
  return n;
}

/** A mandatory integer parameter. */
export function reqInt(ctx: RequestContext, name: string, min?: number, max?: number): number {
  if (!ctx.params.get(name)) badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
  return optInt(ctx, name, min, max) as number;
}

/** An optional decimal parameter (strictly positive unless `allowZero`). */
export function optDecimal(ctx: RequestContext, name: string, allowZero = false): Decimal | undefined {
  const v = optString(ctx, name, 32);
  if (v === undefined) return undefined;
  let d: Decimal;
  try {
    d = parseDecimal(name, v);
  } catch {
    return badParam(ctx, ApiCode.ILLEGAL_CHARS, `Illegal characters found in parameter '${name}'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'.`);
  }
  if (d.isNeg() || (!allowZero && d.isZero())) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${v} for parameter '${name}'; it must be greater than zero.`);
  return d;
}

/** A mandatory decimal parameter. */
export function reqDecimal(ctx: RequestContext, name: string): Decimal {
  if (!ctx.params.get(name)) badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
  return optDecimal(ctx, name) as Decimal;
}

/** An optional enum code parameter, mapped through `codes` (code -> name). */
export function optEnum<N extends string>(ctx: RequestContext, name: string, codes: Readonly<Record<string, N>>): N | undefined {
  const v = optString(ctx, name, 10);
  if (v === undefined) return undefined;
  const n = codes[v];
  if (n === undefined) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${v} for parameter '${name}'; allowed values are ${Object.keys(codes).join(', ')}.`);
  return n;
}

/** A mandatory enum code parameter. */
export function reqEnum<N extends string>(ctx: RequestContext, name: string, codes: Readonly<Record<string, N>>): N {
  if (!ctx.params.get(name)) badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
  return optEnum(ctx, name, codes) as N;
}

/** `direct`: mandatory when fromId is sent. */
export function optDirect(ctx: RequestContext, fromIdSent: boolean): 'prev' | 'next' | undefined {
  const d = optString(ctx, 'direct', 4);
  if (d === undefined) {
    if (fromIdSent) badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'direct' was not sent, was empty/null, or malformed.");
    return undefined;
  }
  if (d !== 'prev' && d !== 'next') badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${d} for parameter 'direct'; allowed values are prev, next.`);
  return d;
}

/** Optional startTime and endTime (non-negative integers), copied into `q` only when sent. */
export function optTimeRange(ctx: RequestContext, q: { startTime?: number; endTime?: number }): void {
  const startTime = optInt(ctx, 'startTime', 0);
  if (startTime !== undefined) q.startTime = startTime;
  const endTime = optInt(ctx, 'endTime', 0);
  if (endTime !== undefined) q.endTime = endTime;
}
