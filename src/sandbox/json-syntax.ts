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

/** One scan over one text: position, open containers and the root object's layout. */
class Scanner {
  i = 0;
  rootClose = -1;
  readonly members = new Map<string, number>();
  readonly stack: OpenContainer[] = [];

  constructor(readonly text: string) {}

  eof(what: string): never {
    throw new Fail(`EOF while parsing ${what}`, this.text.length - 1);
  }

  skip(): void {
    while (this.i < this.text.length && WS.has(this.text[this.i] as string)) this.i++;
  }

  /** A string literal at `i` (its opening quote); returns its value. */
  str(): string {
    const text = this.text;
    const start = this.i;
    this.i++;
    while (true) {
      if (this.i >= text.length) this.eof('a string');
      const c = text[this.i] as string;
      if (c === '"') {
        this.i++;
        return JSON.parse(text.slice(start, this.i)) as string;
      }
      if (c.charCodeAt(0) < 0x20) throw new Fail('control character (\\u0000-\\u001F) found while parsing a string', this.i);
      if (c === '\\') {
        this.i++;
        if (this.i >= text.length) this.eof('a string');
        const e = text[this.i] as string;
        if (e === 'u') {
          const hex = text.slice(this.i + 1, this.i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            if (this.i + 5 > text.length) this.eof('a string');
            throw new Fail('invalid escape', this.i + 1);
          }
          this.i += 4;
        } else if (!'"\\/bfnrt'.includes(e)) throw new Fail('invalid escape', this.i);
      }
      this.i++;
    }
  }

  num(): void {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.text);
    if (!m || m[0] === '-') throw new Fail('invalid number', this.i + (m ? 1 : 0));
    this.i += m[0].length;
  }

  /** After `{` or `,` in an object: the key and its colon. */
  memberKey(top: OpenContainer): void {
    this.skip();
    if (this.i >= this.text.length) this.eof('an object');
    if (this.text[this.i] !== '"') throw new Fail(this.text[this.i] === '}' ? 'trailing comma' : 'key must be a string', this.i);
    top.key = this.str();
    this.skip();
    if (this.i >= this.text.length) this.eof('an object');
    if (this.text[this.i] !== ':') throw new Fail('expected `:`', this.i);
    this.i++;
  }

  /** Opens `{` or `[` at `i`: true when it was empty (a whole value), false when its members follow. */
  open(c: '{' | '['): boolean {
    if (this.stack.length + 1 >= MAX_JSON_DEPTH) throw new Fail('recursion limit exceeded', this.i);
    const root = this.stack.length === 0;
    this.i++;
    this.skip();
    if (this.i >= this.text.length) this.eof(c === '{' ? 'an object' : 'a list');
    if (this.text[this.i] === (c === '{' ? '}' : ']')) {
      if (c === '{' && root) this.rootClose = this.i;
      this.i++;
      return true;
    }
    const top: OpenContainer = { kind: c, key: '' };
    this.stack.push(top);
    if (c === '{') this.memberKey(top);
    return false;
  }

  /** Reads a scalar or an empty container (true: a whole value was read), or opens a container (false). */
  value(): boolean {
    this.skip();
    const text = this.text;
    if (this.i >= text.length) this.eof('a value');
    const c = text[this.i] as string;
    if (c === '{' || c === '[') return this.open(c);
    if (c === '"') {
      this.str();
      return true;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      this.num();
      return true;
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, this.i)) {
        this.i += lit.length;
        return true;
      }
      // Only a short remainder can be a cut-off literal: no slice of a long text per value.
      if (text.length - this.i < lit.length && lit.startsWith(text.slice(this.i))) this.eof('a value');
    }
    if (/[a-zA-Z]/.test(c)) throw new Fail('expected ident', this.i);
    throw new Fail('expected value', this.i);
  }

  /** After a value inside the innermost open container: a comma (then the next value) or its close. */
  afterMember(top: OpenContainer): boolean {
    const obj = top.kind === '{';
    if (obj && this.stack.length === 1) this.members.set(top.key, this.i - 1);
    this.skip();
    if (this.i >= this.text.length) this.eof(obj ? 'an object' : 'a list');
    if (this.text[this.i] === ',') {
      this.i++;
      if (obj) this.memberKey(top);
      else {
        this.skip();
        if (this.text[this.i] === ']') throw new Fail('trailing comma', this.i);
      }
      return this.value();
    }
    if (this.text[this.i] === (obj ? '}' : ']')) {
      if (obj && this.stack.length === 1) this.rootClose = this.i;
      this.i++;
      this.stack.pop();
      return true;
    }
    throw new Fail(obj ? 'expected `,` or `}`' : 'expected `,` or `]`', this.i);
  }

  /** The whole text: one value, then nothing but whitespace. */
  document(): JsonLayout {
    let complete = this.value();
    for (let top = this.stack.at(-1); top !== undefined; top = this.stack.at(-1)) complete = complete ? this.afterMember(top) : this.value();
    this.skip();
    if (this.i < this.text.length) throw new Fail('trailing characters', this.i);
    return { memberValueEnd: this.members, rootClose: this.rootClose };
  }
}

/** Scans `text`; returns the first error, or the layout of a valid document. */
export function scanJson(text: string): { error: JsonSyntaxError } | { layout: JsonLayout } {
  try {
    return { layout: new Scanner(text).document() };
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    const at = Math.max(-1, Math.min(e.at, text.length - 1));
    const { line, column } = at < 0 ? { line: 1, column: 0 } : lineColumn(text, at);
    return { error: { message: e.what, line, column } };
  }
}
