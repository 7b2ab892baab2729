/**
 * YAML configs as hostile files: random text, random documents, and the shipped config with lines
 * dropped, swapped or cut. The invariant: parsing either succeeds or throws a ConfigError (or
 * ValidationError) that names the file; nothing else escapes (no TypeError, no stack for the
 * operator, exit 2 for a bad config).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, ValidationError } from '../../src/core/errors.js';
import { parseConfig } from '../../src/config/loadConfig.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = path.join(repoRoot, 'config', 'fuzzed.yaml');
const shipped = readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8').split('\n');

function check(text: string): void {
  try {
    parseConfig(text, FILE);
  } catch (e) {
    expect(e instanceof ConfigError || e instanceof ValidationError, `${String(e)} for ${JSON.stringify(text.slice(0, 200))}`).toBe(true);
    expect((e as Error).message).toContain('fuzzed.yaml');
  }
}

const yamlChars = fc.string({ unit: fc.constantFrom('a', 'b', '*', '&', ':', ' ', '\n', '-', '[', ']', '{', '}', ',', '"', "'", '#', '|', '>', '!', '1', '.', '%', '@', '`', '?', '\t'), maxLength: 120 });

describe('config loading under hostile input', () => {
  it('random text and random documents give a named config error or a config', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), yamlChars, fc.jsonValue({ maxDepth: 4 }).map((v) => stringify(v))), (text) => check(text)),
      { numRuns: 300 },
    );
  });

  it('the shipped config with lines dropped, repeated or cut gives a named config error or a config', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: shipped.length - 1 }), { maxLength: shipped.length }), fc.nat(), (picks, cut) => {
        const text = picks.map((i) => shipped[i] as string).join('\n');
        check(cut % 2 === 0 ? text : text.slice(0, cut % (text.length + 1)));
      }),
      { numRuns: 300 },
    );
  });

  it('the shipped config with values replaced by random ones gives a named config error or a config', () => {
    fc.assert(
      fc.property(fc.nat({ max: shipped.length - 1 }), fc.jsonValue({ maxDepth: 2 }), (at, v) => {
        const lines = [...shipped];
        const line = lines[at] as string;
        const colon = line.indexOf(': ');
        lines[at] = colon > 0 ? `${line.slice(0, colon)}: ${JSON.stringify(v)}` : line;
        check(lines.join('\n'));
      }),
      { numRuns: 300 },
    );
  });
});
