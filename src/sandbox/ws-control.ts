/**
 * Live control messages on a stream connection (SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS,
 * SET_PROPERTY, GET_PROPERTY), parsed and validated into a command or the exact error reply
 * of the spec's error table.
 *
 * Decisions where the spec is silent, each matching what the real front end is observed to do:
 * - Error replies are flat objects `{"code":N,"msg":"..."}` with `"id"` added when the request
 *   carried a valid id (clients print them as `{'code': 2, 'msg': '...'}`).
 * - The spec's table writes the serde messages without backticks; we reproduce the spec's text
 *   ("unknown variant X, expected one of SUBSCRIBE, ...", "missing field method") plus serde's
 *   position suffix " at line L column C".
 * - `params` that is not an array answers code 2 "Invalid request: invalid type: <kind>, expected a
 *   sequence" with the position of the value's end, as serde words a wrong type (the table does not
 *   list it; accepting a bare value as a list would let a client pass here and fail live).
 * - A syntactically invalid stream name in SUBSCRIBE/UNSUBSCRIBE answers code 2
 *   "Invalid request: invalid stream"; a well-formed name of an unknown symbol is accepted and
 *   simply never carries data, as on the real exchange.
 */
import { lineColumn, scanJson } from './json-syntax.js';
import { parseStreamName } from './stream-names.js';

/** Methods the control protocol knows, in the order the error message lists them. */
export const CONTROL_METHODS = ['SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY'] as const;

/** A valid control command. */
export type ControlCommand =
  | { readonly method: 'SUBSCRIBE' | 'UNSUBSCRIBE'; readonly id: number; readonly streams: readonly string[] }
  | { readonly method: 'LIST_SUBSCRIPTIONS'; readonly id: number }
  | { readonly method: 'SET_PROPERTY'; readonly id: number; readonly property: 'combined'; readonly value: boolean }
  | { readonly method: 'GET_PROPERTY'; readonly id: number; readonly property: 'combined' };

/** Result of parsing one text frame: a command, or the reply text to send back. */
export type ControlParse = { readonly ok: true; readonly command: ControlCommand } | { readonly ok: false; readonly reply: string };

/** Formats an error reply; `id` is echoed only when the request had a valid one. */
export function controlError(code: number, msg: string, id?: number): string {
  return id === undefined ? JSON.stringify({ code, msg }) : JSON.stringify({ code, msg, id });
}

/** The largest frame a stream or WebSocket API client may send (1024 stream names fit in 30 KB). */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024;

/** The text of a received frame, however ws delivered its bytes. */
export function frameText(data: Buffer | ArrayBuffer | Buffer[]): string {
  return (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');
}

/** Formats a success reply. */
export function controlResult(result: unknown, id: number): string {
  return JSON.stringify({ result, id });
}

/** serde's description of an unexpected JSON value (`Unexpected`'s Display). */
function serdeKind(v: unknown): string {
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `boolean \`${String(v)}\``;
  if (typeof v === 'number') return Number.isInteger(v) ? `integer \`${String(v)}\`` : `floating point \`${String(v)}\``;
  return 'map';
}

function isUnsignedInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Parses one control frame. */
export function parseControl(text: string): ControlParse {
  const fail = (code: number, msg: string, id?: number): ControlParse => ({ ok: false, reply: controlError(code, msg, id) });
  const scanned = scanJson(text);
  if ('error' in scanned) {
    const e = scanned.error;
    return fail(3, `Invalid JSON: ${e.message} at line ${e.line} column ${e.column}`);
  }
  const doc: unknown = JSON.parse(text);
  const { layout } = scanned;
  const at = (offset: number): string => {
    const { line, column } = lineColumn(text, offset);
    return ` at line ${line} column ${column}`;
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return fail(2, `Invalid request: missing field method${at(text.trimEnd().length - 1)}`);
  }
  const req = doc as Record<string, unknown>;
  const id = isUnsignedInt(req.id) ? req.id : undefined;
  if (!('method' in req)) return fail(2, `Invalid request: missing field method${at(layout.rootClose)}`, id);
  const method = req.method;
  if (typeof method !== 'string' || !(CONTROL_METHODS as readonly string[]).includes(method)) {
    const shown = typeof method === 'string' ? method : JSON.stringify(method);
    return fail(2, `Invalid request: unknown variant ${shown}, expected one of ${CONTROL_METHODS.join(', ')}${at(layout.memberValueEnd.get('method') ?? layout.rootClose)}`, id);
  }
  if (id === undefined) return fail(2, 'Invalid request: request ID must be an unsigned integer');
  // params is an array (of stream names, or property name and value); anything else is refused in
  // serde's words rather than read as a one-element list. null, like absent, means none.
  if (req.params !== undefined && req.params !== null && !Array.isArray(req.params)) {
    return fail(2, `Invalid request: invalid type: ${serdeKind(req.params)}, expected a sequence${at(layout.memberValueEnd.get('params') ?? layout.rootClose)}`, id);
  }
  const params: readonly unknown[] = Array.isArray(req.params) ? req.params : [];
  switch (method as (typeof CONTROL_METHODS)[number]) {
    case 'SUBSCRIBE':
    case 'UNSUBSCRIBE': {
      const streams: string[] = [];
      for (const p of params) {
        if (typeof p !== 'string' || parseStreamName(p) === undefined) return fail(2, 'Invalid request: invalid stream', id);
        streams.push(p);
      }
      return { ok: true, command: { method: method as 'SUBSCRIBE' | 'UNSUBSCRIBE', id, streams } };
    }
    case 'LIST_SUBSCRIPTIONS':
      if (params.length > 0) return fail(2, 'Invalid request: too many parameters', id);
      return { ok: true, command: { method: 'LIST_SUBSCRIPTIONS', id } };
    case 'SET_PROPERTY': {
      if (params.length > 2) return fail(2, 'Invalid request: too many parameters', id);
      const [name, value] = params;
      if (typeof name !== 'string') return fail(2, 'Invalid request: property name must be a string', id);
      if (name !== 'combined') return fail(0, 'Unknown property', id);
      if (typeof value !== 'boolean') return fail(1, 'Invalid value type: expected Boolean', id);
      return { ok: true, command: { method: 'SET_PROPERTY', id, property: 'combined', value } };
    }
    case 'GET_PROPERTY': {
      if (params.length > 1) return fail(2, 'Invalid request: too many parameters', id);
      const [name] = params;
      if (typeof name !== 'string') return fail(2, 'Invalid request: property name must be a string', id);
      if (name !== 'combined') return fail(0, 'Unknown property', id);
      return { ok: true, command: { method: 'GET_PROPERTY', id, property: 'combined' } };
    }
  }
}
