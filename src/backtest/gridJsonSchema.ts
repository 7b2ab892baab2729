/**
 * The JSON Schema of a sweep grid file, generated from its zod schema so the two never drift.
 * Published as config/grid.schema.json; `npx tsx src/backtest/gridJsonSchema.ts` rewrites it, and
 * a test fails when the file is stale. In a grid YAML, `# yaml-language-server:
 * $schema=grid.schema.json` (or a `$schema` key) lets editors autocomplete and check it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaDocText } from '../config/jsonSchema.js';
import { gridSchema } from './sweepGrid.js';

/** Where the published grid schema lives, relative to the project root. */
export const GRID_SCHEMA_FILE = path.join('config', 'grid.schema.json');

/** The grid schema as formatted JSON text (what config/grid.schema.json must contain). */
export function gridJsonSchemaText(): string {
  return schemaDocText(gridSchema, 'kancil sweep grid', 'Parameter points of a backtest sweep: kancil backtest CONFIG --sweep GRID (see src/backtest/sweepGrid.ts).');
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'), GRID_SCHEMA_FILE);
  writeFileSync(file, gridJsonSchemaText());
  console.log(`wrote ${file}`);
}
