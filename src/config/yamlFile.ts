/**
 * Reading a YAML file against a zod schema, shared by every configuration file kancil reads (run
 * config, recorder config, sweep grid), so each error is a ConfigError naming the file, the path in
 * the document (`symbols[0].type`), the value and the line.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { firstIssuePlace, type SchemaIssue } from '../core/configIssue.js';
import { ConfigError } from '../core/errors.js';
import { ConfigSource } from './source.js';

/** The text of a configuration file; a file that cannot be read is a ConfigError naming it. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, '', undefined, `cannot read: ${(err as Error).message}`);
  }
}

/** The first zod issue as a ConfigError at its place in the document (unknown keys by their own line). */
export function firstIssue(source: ConfigSource, issues: readonly SchemaIssue[]): ConfigError {
  const place = firstIssuePlace(issues);
  return source.error(place.path, place.rule, place.key === undefined ? {} : { key: place.key });
}

/** Reads `file` and validates it with `schema`. */
export function loadYamlFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  const source = new ConfigSource(file, readConfigText(file));
  const r = schema.safeParse(source.value);
  if (!r.success) throw firstIssue(source, r.error.issues);
  return r.data;
}
