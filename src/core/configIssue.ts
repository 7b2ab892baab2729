/**
 * How a configuration document that fails its schema becomes a ConfigError. The run config, the
 * recorder and sweep files (src/config), the sandbox's YAML and the strategy loader all name the
 * place of a problem the same way, so the path format and the reading of a schema issue live here
 * once. Reading files and locating lines stay with the loaders (core does no I/O).
 */
import { ConfigError } from './errors.js';

/** A path in a configuration document: keys and array indices. */
export type DocPath = readonly PropertyKey[];

/** `strategies[0].params.spread` from ['strategies', 0, 'params', 'spread']. */
export function formatDocPath(path: DocPath): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number' || (typeof p === 'string' && /^\d+$/.test(p))) out += `[${String(p)}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

/** The plain value at `path` of a parsed document (undefined when absent). */
export function valueAtPath(doc: unknown, path: DocPath): unknown {
  let v: unknown = doc;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** The fields of a schema issue (a zod issue) that say where a document is wrong and why. */
export interface SchemaIssue {
  readonly code: string;
  readonly path: DocPath;
  readonly message: string;
  /** Set on `unrecognized_keys` issues. */
  readonly keys?: readonly string[];
  /** The type expected, on `invalid_type` issues. */
  readonly expected?: string;
}

/** Where a document breaks which rule; an unknown key is named at its own place (`key`, under `path`). */
export interface IssuePlace {
  readonly path: DocPath;
  readonly rule: string;
  readonly key?: string;
}

/** zod's message of a union no branch of which took the value. */
const ZOD_UNION_MESSAGE = 'Invalid input';

/**
 * The place and rule of one issue. A failed union says "invalid value" (zod's own message names no
 * branch), unless the schema gave the union a message of its own, which says what is expected.
 */
export function issuePlace(issue: SchemaIssue): IssuePlace {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys?.[0] ?? '';
    return { path: issue.path, rule: `unknown key "${key}"`, key };
  }
  if (issue.code === 'invalid_union') return { path: issue.path, rule: issue.message === ZOD_UNION_MESSAGE ? 'invalid value' : issue.message };
  return { path: issue.path, rule: `${issue.message}${quoteHint(issue)}` };
}

/**
 * YAML reads an unquoted 0.001 as a number (a binary float, or 1e-7 once printed) where kancil
 * wants the decimal's text: the fix is to quote it, which a bare "expected string" does not say.
 */
function quoteHint(issue: SchemaIssue): string {
  const numberForString = issue.code === 'invalid_type' && issue.expected === 'string' && /received number/.test(issue.message);
  const exponent = /exponent/.test(issue.message);
  return numberForString || exponent ? ' (a decimal must be quoted in YAML, e.g. "0.001": unquoted, it is read as a binary float)' : '';
}

/** The place and rule of the first issue. */
export function firstIssuePlace(issues: readonly SchemaIssue[]): IssuePlace {
  const issue = issues[0];
  return issue ? issuePlace(issue) : { path: [], rule: 'invalid configuration' };
}

/** The first issue as a ConfigError naming the file, the path and the value there (no line: for documents read without positions). */
export function configErrorOfIssues(file: string, doc: unknown, issues: readonly SchemaIssue[]): ConfigError {
  const place = firstIssuePlace(issues);
  const path = place.key === undefined ? place.path : [...place.path, place.key];
  return new ConfigError(file, formatDocPath(path), valueAtPath(doc, path), place.rule);
}
