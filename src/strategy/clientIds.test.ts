import { describe, expect, it } from 'vitest';
import { ClientIdSequence } from './clientIds.js';

describe('ClientIdSequence', () => {
  it('generates prefix-n, skipping claimed ids, and refuses any id already used', () => {
    const ids = new ClientIdSequence('mm', 'r1');
    expect([ids.next(), ids.next()]).toEqual(['mm-r1-1', 'mm-r1-2']);
    expect(ids.claim('mm-r1-4')).toBe('mm-r1-4');
    expect(ids.claim('mm-r1-02')).toBe('mm-r1-02'); // not how next() writes 2
    expect(ids.claim('custom')).toBe('custom');
    expect([ids.next(), ids.next(), ids.next()]).toEqual(['mm-r1-3', 'mm-r1-5', 'mm-r1-6']);
    for (const used of ['mm-r1-1', 'mm-r1-3', 'mm-r1-4', 'mm-r1-6', 'custom', 'mm-r1-02']) expect(() => ids.claim(used)).toThrow(/already used/);
    expect(ids.claim('mm-r1-7')).toBe('mm-r1-7');
    expect(ids.next()).toBe('mm-r1-8');
    expect(() => ids.claim('bad id')).toThrow();
  });

  it('a prefix that is a prefix of another name is not confused with it', () => {
    const ids = new ClientIdSequence('a');
    ids.next();
    expect(ids.claim('ab-1')).toBe('ab-1');
    expect(() => ids.claim('a-1')).toThrow(/already used/);
  });
});
