/**
 * Request parameter values and their two encodings: form/query strings (open API) and the
 * JSON payload of the legacy interface, where decimals must be written as exact number literals.
 */

/** A decimal written into JSON as a number literal, digit for digit (no binary float on the way). */
export class JsonNumberLiteral {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new RangeError(`not a plain decimal literal: ${text}`);
  }
}

/** A parameter value; `undefined` means "leave the parameter out". */
export type WireValue = string | number | boolean | undefined | JsonNumberLiteral | readonly (number | string)[];

/** Parameters in the order they should be written. */
export type WireParams = Readonly<Record<string, WireValue>>;

/**
 * Encodes parameters as `k=v&k=v` in insertion order, percent-encoding with
 * encodeURIComponent. The signature is computed over exactly this text, so it must be
 * deterministic; the server verifies over the raw text it receives.
 */
export function encodeForm(params: WireParams | undefined): string {
  if (!params) return '';
  // Built as one string, without an entry pair, a part and an encoded copy per parameter (~0.8 KB
  // less garbage per order).
  let out = '';
  let first = true;
  for (const k of Object.keys(params)) {
    const v = params[k];
    if (v === undefined) continue;
    const text = v instanceof JsonNumberLiteral ? v.text : Array.isArray(v) ? JSON.stringify(v) : String(v);
    out = first ? `${formText(k)}=${formText(text)}` : `${out}&${formText(k)}=${formText(text)}`;
    first = false;
  }
  return out;
}

/** What encodeURIComponent leaves as it is. */
const FORM_PLAIN = /^[A-Za-z0-9\-_.!~*'()]*$/;

/** encodeURIComponent(s), without a copy when nothing needs escaping. */
function formText(s: string): string {
  return FORM_PLAIN.test(s) ? s : encodeURIComponent(s);
}

/** Serialises parameters to JSON, writing {@link JsonNumberLiteral} values verbatim. */
export function encodeJson(params: WireParams): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${jsonValue(v)}`);
  }
  return `{${parts.join(',')}}`;
}

function jsonValue(v: Exclude<WireValue, undefined>): string {
  if (v instanceof JsonNumberLiteral) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x)).join(',')}]`;
  return JSON.stringify(v);
}
