/**
 * JSON from the exchange (REST bodies, stream frames), parsed with two guards in one pass over
 * the text, which every frame and answer of the live loop goes through:
 *  - nesting depth: JSON.parse itself takes any depth, but a value nested thousands deep
 *    overflows the stack of whatever walks it next (String(), a message built from it, a
 *    recursive check), outside any try: one hostile answer or frame would then kill the bot. No
 *    exchange payload nests more than a few levels;
 *  - integers past 2^53: JSON.parse makes them the nearest double, so a 19-digit id would become
 *    another id. They are quoted first (unsafeIntegers.ts), only when the pass saw a digit run
 *    that could be one: ids of 16 digits up to 2^53 - 1 (microsecond clocks) leave the text as
 *    it is.
 */
import { quoteUnsafeIntegers } from './unsafeIntegers.js';

/** The deepest nesting accepted from the exchange (arrays and objects). */
export const MAX_JSON_DEPTH = 64;

/** A JSON text nested deeper than allowed; `offset` is the first bracket past the limit. */
export class JsonTooDeepError extends RangeError {
  constructor(readonly offset: number, readonly max: number) {
    super(`nested deeper than ${max} levels at offset ${offset}`);
    this.name = 'JsonTooDeepError';
  }
}

/** The largest safe integer's digits: a 16-digit run at most this is exact as a double. */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/** Result of {@link scanJson} besides a depth offset (>= 0): nothing to do. */
const PLAIN = -1;
/** Result of {@link scanJson}: a digit run that may be an unsafe integer literal. */
const MAY_QUOTE = -2;

/**
 * One linear pass, outside strings: the offset of the first bracket nested deeper than `max`, or
 * MAY_QUOTE if a digit run is longer than 16 or a 16-digit one exceeds 2^53 - 1 (every literal
 * quoteUnsafeIntegers quotes has such a run), else PLAIN.
 */
function scanJson(text: string, max: number): number {
  let depth = 0;
  let result = PLAIN;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    } else if (c >= 0x30 && c <= 0x39 && result === PLAIN) {
      let j = i + 1;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      if (j - i > 16 || (j - i === 16 && beyondSafe(text, i))) result = MAY_QUOTE;
      i = j - 1;
    }
  }
  return result;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Whether the 16 digits at `at` exceed 2^53 - 1 (same length: compared digit by digit). */
function beyondSafe(text: string, at: number): boolean {
  for (let k = 0; k < 16; k++) {
    const d = text.charCodeAt(at + k) - MAX_SAFE_DIGITS.charCodeAt(k);
    if (d !== 0) return d > 0;
  }
  return false;
}

/**
 * JSON.parse of an exchange's text, with integer literals past 2^53 as their digit strings.
 * Throws {@link JsonTooDeepError} for nesting past `max`, and JSON.parse's SyntaxError.
 */
export function parseExchangeJson(text: string, max: number = MAX_JSON_DEPTH): unknown {
  const scan = scanJson(text, max);
  if (scan >= 0) throw new JsonTooDeepError(scan, max);
  return JSON.parse(scan === MAY_QUOTE ? quoteUnsafeIntegers(text) : text) as unknown;
}
