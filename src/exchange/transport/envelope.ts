/**
 * Response bodies of both interfaces: JSON parsing that names what was wrong, and the
 * envelopes (open: code/msg|message/success/data; legacy: success/message_code/data).
 * Some responses have no envelope at all (legacy order book, execution rules, the
 * type 1 market-data host); callers say which shape they expect.
 */
import { ExchangeError, ParseError } from '../../core/index.js';
import { JsonTooDeepError, parseExchangeJson } from './exchangeJson.js';

/** Which envelope a response carries. `optional` accepts an open envelope or the bare payload. */
export type EnvelopeKind = 'open' | 'open-optional' | 'legacy' | 'none';

/** A parsed body: the payload and, when there was one, the whole envelope object. */
export interface Unwrapped {
  readonly data: unknown;
  readonly envelope: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Parses a JSON body; a ParseError names the endpoint, a snippet and the JSON error. Integers
 * beyond 2^53 come back as strings (see exchangeJson.ts) so ids keep every digit.
 */
export function parseJsonBody(endpoint: string, text: string): unknown {
  try {
    return parseExchangeJson(text);
  } catch (e) {
    if (e instanceof JsonTooDeepError) throw new ParseError(`${endpoint} response body`, text.slice(0, 120), e.message);
    const why = e instanceof Error ? e.message : String(e);
    throw new ParseError(`${endpoint} response body`, text.length > 120 ? `${text.slice(0, 120)}…` : text, `malformed JSON (${why})`);
  }
}

/** True for a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The human-readable failure text a body carries, whichever field name it uses. */
export function failureMessage(body: unknown): string {
  if (!isRecord(body)) return '';
  for (const k of ['msg', 'message', 'err_str', 'error']) {
    const v = body[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  // Legacy failures may carry their explanation as a string in `data` (bodies of failures are not shown).
  if (typeof body.data === 'string' && body.data !== '') return body.data;
  return '';
}

/** The failure code a body carries (open `code`, legacy `message_code`), if any. */
export function failureCode(body: unknown): number | string | undefined {
  if (!isRecord(body)) return undefined;
  const c = body.code ?? body.message_code;
  return typeof c === 'number' || typeof c === 'string' ? c : undefined;
}

/** Unwraps a 2XX body according to `kind`, throwing ExchangeError for a failure envelope. */
export function unwrapEnvelope(kind: EnvelopeKind, endpoint: string, status: number, body: unknown): Unwrapped {
  switch (kind) {
    case 'none':
      return { data: body, envelope: undefined };
    case 'open':
    case 'open-optional':
      if (isRecord(body) && 'code' in body) return unwrapOpen(endpoint, status, body);
      if (kind === 'open') throw new ParseError(`${endpoint} response body`, body, 'expected an envelope with a code field');
      return { data: body, envelope: undefined };
    case 'legacy':
      return unwrapLegacy(endpoint, status, body);
    default: {
      const never: never = kind;
      throw new Error(`unknown envelope ${String(never)}`);
    }
  }
}

function unwrapOpen(endpoint: string, status: number, body: Record<string, unknown>): Unwrapped {
  const code = body.code;
  // The spec types code as a number; "0" as a string is accepted because some gateways quote it.
  const ok = code === 0 || code === '0';
  if (!ok || body.success === false) {
    const c = typeof code === 'number' || typeof code === 'string' ? code : undefined;
    throw new ExchangeError(status, c, failureMessage(body) || 'failure envelope without a message', endpoint);
  }
  return { data: body.data, envelope: body };
}

function unwrapLegacy(endpoint: string, status: number, body: unknown): Unwrapped {
  if (!isRecord(body) || typeof body.success !== 'boolean') {
    throw new ParseError(`${endpoint} response body`, body, 'expected a legacy envelope with a boolean success field');
  }
  if (!body.success) {
    const c = body.message_code;
    throw new ExchangeError(status, typeof c === 'string' || typeof c === 'number' ? c : undefined, failureMessage(body) || (typeof c === 'string' ? c : 'success false'), endpoint);
  }
  return { data: body.data, envelope: body };
}
