import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, scanJson } from './json-syntax.js';

describe('scanJson', () => {
  it('refuses nesting beyond serde_json’s recursion limit in its words, without recursing', () => {
    // 5 KB of `[` overflowed the stack of the recursive scanner and killed the sandbox.
    const r = scanJson('['.repeat(5_000));
    expect(r).toEqual({ error: { message: 'recursion limit exceeded', line: 1, column: MAX_JSON_DEPTH } });
    expect(scanJson('{"a":'.repeat(1_000_000))).toEqual({ error: { message: 'recursion limit exceeded', line: 1, column: 5 * (MAX_JSON_DEPTH - 1) + 1 } });
  });

  it('accepts nesting up to the limit', () => {
    const depth = MAX_JSON_DEPTH - 1;
    const r = scanJson(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect('layout' in r).toBe(true);
  });

  it('scans a long flat document in linear time (no slice per value)', () => {
    const text = `[${Array.from({ length: 200_000 }, () => '1').join(',')},tru`;
    expect(scanJson(text)).toEqual({ error: { message: 'EOF while parsing a value', line: 1, column: text.length } });
  });

  it('agrees with JSON.parse on validity and records root members, for any value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const text = JSON.stringify(v, null, 1);
        const r = scanJson(text);
        expect('layout' in r).toBe(true);
        if ('layout' in r && typeof v === 'object' && v !== null && !Array.isArray(v)) {
          expect([...r.layout.memberValueEnd.keys()].sort()).toEqual(Object.keys(v).sort());
          expect(r.layout.rootClose).toBe(text.length - 1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never throws, and errs exactly when JSON.parse does, on arbitrary text', () => {
    const jsonish = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', '.', 'e', 't', 'n', '\\', ' ', '\n', 'a'), maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const r = scanJson(text);
        expect('layout' in r).toBe(parses);
        if ('error' in r) expect(r.error.line).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});
