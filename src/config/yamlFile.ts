/**
 * Reading a YAML file against a zod schema, shared by every configuration file kancil reads (run
 * config, recorder config, sweep grid), so each error is a ConfigError naming the file, the path in
 * the document (`symbols[0].type`), the value and the line.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { z } from 'zod';
import { firstIssuePlace, type SchemaIssue } from '../core/configIssue.js';
import { ConfigError } from '../core/errors.js';
import { MAX_CONFIG_BYTES } from '../core/yamlLimits.js';
import { ConfigSource } from './source.js';

/**
 * The text of a configuration file; a file that cannot be read, is not a regular file (a folder,
 * /dev/zero) or is larger than {@link MAX_CONFIG_BYTES} is a ConfigError naming it. Nothing past
 * the limit is read.
 */
export function readConfigText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new ConfigError(file, '', undefined, `cannot read: ${(err as Error).message}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new ConfigError(file, '', undefined, 'not a regular file');
    const buf = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_CONFIG_BYTES) throw new ConfigError(file, '', undefined, `more than ${MAX_CONFIG_BYTES} bytes: a config file may hold at most that`);
    return buf.toString('utf8', 0, n);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(file, '', undefined, `cannot read: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
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
