import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GRID_SCHEMA_FILE, gridJsonSchemaText } from './gridJsonSchema.js';
import { loadGrid } from './sweepGrid.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the published sweep grid schema', () => {
  it('config/grid.schema.json is up to date (regenerate: npx tsx src/backtest/gridJsonSchema.ts)', () => {
    expect(readFileSync(path.join(root, GRID_SCHEMA_FILE), 'utf8')).toBe(gridJsonSchemaText());
  });

  it('lists every key a grid may have, refuses others, and describes the ones a user picks', () => {
    const doc = JSON.parse(gridJsonSchemaText()) as { properties: Record<string, { description?: string }>; additionalProperties: boolean; required: string[] };
    expect(Object.keys(doc.properties)).toEqual(['$schema', 'strategy', 'params', 'rankBy', 'objective', 'minTrades', 'search', 'samples', 'trials', 'batch', 'startup', 'patience', 'seed', 'outOfSample', 'walkForward', 'eachRecording']);
    expect(doc.additionalProperties).toBe(false);
    expect(doc.required).toEqual(['params']);
    expect(doc.properties.rankBy?.description).toMatch(/highest first/);
  });

  const grids = readdirSync(path.join(root, 'config')).filter((f) => f.endsWith('.grid.yaml'));
  it.each(grids)('config/%s is a valid grid', (f) => {
    expect(Object.keys(loadGrid(path.join(root, 'config', f)).params).length).toBeGreaterThan(0);
  });

  it('takes a $schema key for editors, as run configurations do', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-grid-'));
    try {
      const file = path.join(dir, 'g.yaml');
      writeFileSync(file, '$schema: ../config/grid.schema.json\nparams:\n  fast: [5, 10]\n');
      expect(loadGrid(file).params).toEqual({ fast: [5, 10] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
