/**
 * A parsed YAML document that remembers where everything is, so a config error can name the line
 * and column as well as the path (`strategies[0].params.spread`).
 */
import { isMap, isPair, isScalar, LineCounter, parseDocument, stringify, type Document } from 'yaml';
import { formatDocPath, valueAtPath, type DocPath } from '../core/configIssue.js';
import { ConfigError } from '../core/errors.js';
import { checkYamlText, yamlValue } from '../core/yamlLimits.js';

/** A path in the document (core's {@link DocPath}). */
export type { DocPath };
/** `strategies[0].params.spread` from ['strategies', 0, 'params', 'spread'] (core's {@link formatDocPath}). */
export const formatPath = formatDocPath;

/** The YAML text of one config file, parsed with positions. */
export class ConfigSource {
  readonly doc: Document;
  readonly #lines = new LineCounter();
  /** The document as plain JS values. */
  readonly value: unknown;
  /** False for a document given as values (no text): errors then name no line. */
  readonly #positions: boolean;

  constructor(
    readonly file: string,
    text: string,
    opts: { readonly positions?: boolean } = {},
  ) {
    this.#positions = opts.positions ?? true;
    // A file's text is held to the limits before the parser runs (a document given as values was
    // built by a program, not read).
    if (this.#positions) checkYamlText(file, text);
    this.doc = parseDocument(text, { lineCounter: this.#lines, prettyErrors: true, uniqueKeys: true });
    const err = this.doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      throw new ConfigError(file, '', undefined, `invalid YAML: ${err.message.split('\n')[0] ?? err.code}${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`);
    }
    this.value = yamlValue(this.doc, file);
  }

  /**
   * A document given as plain values rather than text (tests, programs building a config): it is
   * validated exactly like a file's, but errors carry no line numbers (there is no text to point at).
   */
  static fromValue(file: string, value: unknown): ConfigSource {
    return new ConfigSource(file, stringify(value ?? null), { positions: false });
  }

  /** Line and column (1-based) of the node at `path`, or of its nearest existing ancestor; of the key itself when `key` is set. */
  locate(path: DocPath, key?: string): { line: number; col: number } | undefined {
    if (!this.#positions) return undefined;
    const keys = path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    for (let n = keys.length; n >= 0; n--) {
      const node = (n === 0 ? this.doc.contents : this.doc.getIn(keys.slice(0, n), true)) as unknown;
      if (node === undefined || node === null) continue;
      let range = (node as { range?: [number, number, number] }).range;
      if (key !== undefined && n === keys.length && isMap(node)) {
        const pair = node.items.find((it) => isPair(it) && isScalar(it.key) && it.key.value === key);
        const k = pair?.key as { range?: [number, number, number] } | undefined;
        if (k?.range) range = k.range;
      }
      if (range) return this.#lines.linePos(range[0]);
    }
    return undefined;
  }

  /** The plain value at `path` (undefined when absent). */
  valueAt(path: DocPath): unknown {
    return valueAtPath(this.value, path);
  }

  /**
   * An error factory for later stages that find problems at a document path (e.g. the strategy
   * loader validating plugin params): `loadStrategies(entries, dir, source.errorAt())`.
   */
  errorAt(): (docPath: DocPath, rule: string, value?: unknown) => ConfigError {
    return (docPath, rule, value) => this.error(docPath, rule, { value });
  }

  /** A ConfigError naming the file, the path, the value and, when known, the line. */
  error(path: DocPath, rule: string, opts: { value?: unknown; key?: string; redact?: boolean } = {}): ConfigError {
    const pos = this.locate(path, opts.key);
    const full = opts.key !== undefined ? [...path, opts.key] : path;
    const value = opts.redact ? '<redacted>' : 'value' in opts ? opts.value : this.valueAt(full);
    return new ConfigError(this.file, formatDocPath(full), value, pos ? `${rule} (line ${pos.line}, column ${pos.col})` : rule);
  }
}
