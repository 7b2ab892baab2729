/**
 * The limits every YAML file kancil reads is held to (run config, recorder config, sweep grid,
 * sandbox config), checked before and after the YAML parser runs. Without them a small hostile
 * file costs unbounded time or memory: an alias bomb (aliases of aliases, a billion strings from
 * 1 KB) expands in `toJS`, and 100,000 nested `[` (200 KB) exhaust the parser's memory. Each is a
 * ConfigError naming the file, so a supervisor sees a bad config (exit 2), not a crash to retry.
 */
import { ConfigError } from './errors.js';

/** The largest config file read, in bytes (the bundled ones are a few KB). */
export const MAX_CONFIG_BYTES = 256 * 1024;
/** The deepest nesting of flow collections (`[`, `{`) accepted. */
export const MAX_FLOW_DEPTH = 64;
/** How often one alias may be expanded (the yaml package's guard, given explicitly). */
export const MAX_YAML_ALIASES = 100;

/**
 * The deepest `[`/`{` nesting in YAML text, outside quoted strings and comments. A quote opens a
 * string only where a YAML value can start (after `:`, `,`, `[`, `{`, `-`, `?` or at a line's
 * start), so an apostrophe in a plain word hides nothing from the count.
 */
export function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  let last = '\n';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c !== ' ' && c !== '\t') {
      const prev = last;
      last = c;
      if ((c === '"' || c === "'") && ':,[{-?\n'.includes(prev)) {
        quote = c;
        continue;
      }
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/** Refuses YAML text that is too large or nested too deep to parse safely (before parsing it). */
export function checkYamlText(file: string, text: string): void {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONFIG_BYTES) throw new ConfigError(file, '', undefined, `${bytes} bytes: a config file may hold at most ${MAX_CONFIG_BYTES}`);
  const depth = flowDepth(text);
  if (depth > MAX_FLOW_DEPTH) throw new ConfigError(file, '', undefined, `[ and { nested ${depth} deep: at most ${MAX_FLOW_DEPTH} are accepted`);
}

/** Something with the yaml package's Document.toJS. */
export interface YamlDocument {
  toJS(options: { maxAliasCount: number }): unknown;
}

/** The plain value of a parsed document; an alias expanded too often is a ConfigError naming the file. */
export function yamlValue(doc: YamlDocument, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    // The yaml package throws a ReferenceError for an alias bomb; anything else is a bug to see.
    if (!(err instanceof ReferenceError)) throw err;
    throw new ConfigError(file, '', undefined, `YAML aliases expand too far (${err.message}); at most ${MAX_YAML_ALIASES} expansions of one alias are accepted`);
  }
}
