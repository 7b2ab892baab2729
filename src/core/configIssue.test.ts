import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configErrorOfIssues, firstIssuePlace, formatDocPath, valueAtPath } from './configIssue.js';
import { ConfigError } from './errors.js';

describe('configIssue', () => {
  it('formats paths with indices in brackets, numeric keys included', () => {
    expect(formatDocPath(['strategies', 0, 'params', 'spread'])).toBe('strategies[0].params.spread');
    expect(formatDocPath(['grid', '3', 'x'])).toBe('grid[3].x');
    expect(formatDocPath([])).toBe('');
  });

  it('reads the value at a path, undefined past a leaf', () => {
    const doc = { a: [{ b: 7 }] };
    expect(valueAtPath(doc, ['a', 0, 'b'])).toBe(7);
    expect(valueAtPath(doc, ['a', 0, 'b', 'c'])).toBeUndefined();
    expect(valueAtPath(doc, [])).toBe(doc);
  });

  it('names an unknown key at its own place and a failed union as an invalid value', () => {
    const strict = z.strictObject({ a: z.number() });
    const r1 = strict.safeParse({ a: 1, zz: 2 });
    expect(r1.success).toBe(false);
    expect(firstIssuePlace(r1.error?.issues ?? [])).toEqual({ path: [], rule: 'unknown key "zz"', key: 'zz' });
    const union = z.object({ v: z.union([z.string(), z.number()]) });
    const r2 = union.safeParse({ v: true });
    expect(firstIssuePlace(r2.error?.issues ?? [])).toEqual({ path: ['v'], rule: 'invalid value' });
    expect(firstIssuePlace([])).toEqual({ path: [], rule: 'invalid configuration' });
  });

  it('gives a failed union the message the schema gave it', () => {
    const union = z.object({ v: z.union([z.string(), z.number()], { error: 'a name or a count' }) });
    expect(firstIssuePlace(union.safeParse({ v: true }).error?.issues ?? [])).toEqual({ path: ['v'], rule: 'a name or a count' });
  });

  it('tells to quote a decimal that YAML read as a number', () => {
    const r = z.object({ qty: z.string() }).safeParse({ qty: 0.001 });
    expect(firstIssuePlace(r.error?.issues ?? []).rule).toMatch(/expected string, received number \(a decimal must be quoted in YAML, e\.g\. "0\.001"/);
    const other = z.object({ qty: z.string() }).safeParse({ qty: true });
    expect(firstIssuePlace(other.error?.issues ?? []).rule).not.toMatch(/quoted/);
  });

  it('makes a ConfigError naming the file, the path and the value found there', () => {
    const schema = z.object({ symbols: z.array(z.object({ type: z.union([z.literal(1), z.literal(2)]) })) });
    const doc = { symbols: [{ type: 1 }, { type: 7 }] };
    const e = configErrorOfIssues('my.yaml', doc, schema.safeParse(doc).error?.issues ?? []);
    expect(e).toBeInstanceOf(ConfigError);
    expect([e.file, e.path, e.value, e.rule]).toEqual(['my.yaml', 'symbols[1].type', 7, 'invalid value']);
    const unknown = configErrorOfIssues('u.yaml', { a: 1, zz: 'x' }, z.strictObject({ a: z.number() }).safeParse({ a: 1, zz: 'x' }).error?.issues ?? []);
    expect([unknown.path, unknown.value]).toEqual(['zz', 'x']);
  });
});
