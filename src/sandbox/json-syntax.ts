/**
 * A small JSON scanner that reports the first syntax error the way the real exchange's
 * WebSocket front end (a serde_json parser) words it: "<what> at line L column C".
 * JSON.parse cannot give us that: its messages and positions differ between V8 versions.
 * It also records where top-level members end, because the control-message errors quote
 * serde's position for an unknown `method` value and for a missing `method` field.
 */

/** The first syntax error of a JSON text, in serde_json wording and 1-based line/column. */
export interface JsonSyntaxError {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** Positions (0-based offsets) collected while scanning a root object. */
export interface JsonLayout {
  /** Offset of the last character of each top-level member's value, by key. */
  readonly memberValueEnd: ReadonlyMap<string, number>;
  /** Offset of the root object's closing brace (or -1 when the root is not an object). */
  readonly rootClose: number;
}

class Fail extends Error {
  constructor(
    readonly what: string,
    readonly at: number,
  ) {
    super(what);
  }
}

/** Converts a 0-based offset to serde's 1-based line and column. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let col = 0;
  for (let i = 0; i <= offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      col = 0;
    } else col++;
  }
  return { line, column: col };
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/**
 * serde_json's recursion limit: the 128th nested array or object is refused with "recursion limit
 * exceeded" at its opening bracket. The scanner keeps its own stack (no recursion), so a frame of
 * thousands of `[` costs a few bytes per level instead of a stack overflow.
 */
export const MAX_JSON_DEPTH = 128;

interface OpenContainer {
  readonly kind: '{' | '[';
  /** The key of the member being read (objects). */
  key: string;
}

/** Scans `text`; returns the first error, or the layout of a valid document. */
export function scanJson(text: string): { error: JsonSyntaxError } | { layout: JsonLayout } {
  let i = 0;
  const members = new Map<string, number>();
  let rootClose = -1;
  const stack: OpenContainer[] = [];
  const eof = (what: string): never => {
    throw new Fail(`EOF while parsing ${what}`, text.length - 1);
  };
  const skip = (): void => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  const str = (): string => {
    // text[i] is the opening quote
    const start = i;
    i++;
    while (true) {
      if (i >= text.length) eof('a string');
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      }
      if (c.charCodeAt(0) < 0x20) throw new Fail('control character (\\u0000-\\u001F) found while parsing a string', i);
      if (c === '\\') {
        i++;
        if (i >= text.length) eof('a string');
        const e = text[i] as string;
        if (e === 'u') {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            if (i + 5 > text.length) eof('a string');
            throw new Fail('invalid escape', i + 1);
          }
          i += 4;
        } else if (!'"\\/bfnrt'.includes(e)) throw new Fail('invalid escape', i);
      }
      i++;
    }
  };
  const num = (): void => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m || m[0] === '-') throw new Fail('invalid number', i + (m ? 1 : 0));
    i += m[0].length;
  };
  // After `{` or `,` in an object: the key and its colon.
  const memberKey = (top: OpenContainer): void => {
    skip();
    if (i >= text.length) eof('an object');
    if (text[i] !== '"') throw new Fail(text[i] === '}' ? 'trailing comma' : 'key must be a string', i);
    top.key = str();
    skip();
    if (i >= text.length) eof('an object');
    if (text[i] !== ':') throw new Fail('expected `:`', i);
    i++;
  };
  // Reads a scalar or an empty container (true: a whole value was read), or opens a container (false).
  const value = (): boolean => {
    skip();
    if (i >= text.length) eof('a value');
    const c = text[i] as string;
    if (c === '{' || c === '[') {
      if (stack.length + 1 >= MAX_JSON_DEPTH) throw new Fail('recursion limit exceeded', i);
      const root = stack.length === 0;
      i++;
      skip();
      if (i >= text.length) eof(c === '{' ? 'an object' : 'a list');
      if (text[i] === (c === '{' ? '}' : ']')) {
        if (c === '{' && root) rootClose = i;
        i++;
        return true;
      }
      const top: OpenContainer = { kind: c, key: '' };
      stack.push(top);
      if (c === '{') memberKey(top);
      return false;
    }
    if (c === '"') {
      str();
      return true;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      num();
      return true;
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return true;
      }
      // Only a short remainder can be a cut-off literal: no slice of a long text per value.
      if (text.length - i < lit.length && lit.startsWith(text.slice(i))) eof('a value');
    }
    if (/[a-zA-Z]/.test(c)) throw new Fail('expected ident', i);
    throw new Fail('expected value', i);
  };
  // After a value inside the innermost open container: a comma (then the next value) or its close.
  const afterMember = (top: OpenContainer): boolean => {
    if (top.kind === '{' && stack.length === 1) members.set(top.key, i - 1);
    skip();
    if (i >= text.length) eof(top.kind === '{' ? 'an object' : 'a list');
    if (text[i] === ',') {
      i++;
      if (top.kind === '{') memberKey(top);
      else {
        skip();
        if (text[i] === ']') throw new Fail('trailing comma', i);
      }
      return value();
    }
    if (text[i] === (top.kind === '{' ? '}' : ']')) {
      if (top.kind === '{' && stack.length === 1) rootClose = i;
      i++;
      stack.pop();
      return true;
    }
    throw new Fail(top.kind === '{' ? 'expected `,` or `}`' : 'expected `,` or `]`', i);
  };
  try {
    let complete = value();
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) complete = complete ? afterMember(top) : value();
    skip();
    if (i < text.length) throw new Fail('trailing characters', i);
    return { layout: { memberValueEnd: members, rootClose } };
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    const at = Math.max(-1, Math.min(e.at, text.length - 1));
    const { line, column } = at < 0 ? { line: 1, column: 0 } : lineColumn(text, at);
    return { error: { message: e.what, line, column } };
  }
}
