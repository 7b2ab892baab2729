/**
 * How deep a JSON text nests, found without parsing it. JSON.parse itself takes any depth, but a
 * value nested thousands deep overflows the stack of whatever walks it next (String(), a message
 * built from it, a recursive check), outside any try: one hostile REST answer or stream frame
 * would then kill the bot. No exchange payload nests more than a few levels.
 */

/** The deepest nesting accepted from the exchange (arrays and objects). */
export const MAX_JSON_DEPTH = 64;

/** The offset of the first bracket nested deeper than `max` outside strings, or -1. Linear, no recursion. */
export function deepNestingAt(text: string, max: number = MAX_JSON_DEPTH): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return -1;
}
