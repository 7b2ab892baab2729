import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, deepNestingAt } from './jsonDepth.js';

/** Nesting depth of a parsed value, for comparison. */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

describe('deepNestingAt', () => {
  it('finds the first bracket past the limit, ignoring brackets in strings', () => {
    expect(deepNestingAt('['.repeat(100_000))).toBe(MAX_JSON_DEPTH);
    expect(deepNestingAt(`{"a":"${'['.repeat(100)}\\"["}`)).toBe(-1);
    expect(deepNestingAt('[[[]]]', 2)).toBe(2);
  });

  it('agrees with the depth of the parsed value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (v, max) => {
        expect(deepNestingAt(JSON.stringify(v), max) >= 0).toBe(depthOf(v) > max);
      }),
      { numRuns: 300 },
    );
  });
});
