/**
 * The JSON Schema of the configuration, generated from the zod schema so the two never drift.
 * Published as config/schema.json; `npx tsx src/config/jsonSchema.ts` rewrites it, and a test
 * fails when the file is stale. In a YAML file, `# yaml-language-server: $schema=schema.json`
 * (or a `$schema` key) lets editors autocomplete and check it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { configSchema } from './schema.js';

/** Where the published schema lives, relative to the project root. */
export const SCHEMA_FILE = path.join('config', 'schema.json');

/** A zod schema as formatted JSON Schema text of what a user writes, with a title and description. */
export function schemaDocText(schema: z.ZodType, title: string, description: string): string {
  // 'input' describes what a user writes (defaults optional, numbers accepted for decimals).
  const doc = { ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), title, description };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The schema as formatted JSON text (what config/schema.json must contain). */
export function jsonSchemaText(): string {
  return schemaDocText(configSchema, 'kancil run configuration', 'A live, paper or backtest run of kancil strategies (see src/config/schema.ts).');
}

/** Writes config/schema.json under `root`. */
export function writeJsonSchema(root: string): string {
  const file = path.join(root, SCHEMA_FILE);
  writeFileSync(file, jsonSchemaText());
  return file;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  console.log(`wrote ${writeJsonSchema(root)}`);
}
