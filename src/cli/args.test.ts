import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../core/longTimer.js';
import { intOption } from './args.js';

describe('intOption', () => {
  it('takes a positive integer up to its maximum and names the option and the range otherwise', () => {
    expect(intOption('timeout-ms', undefined, 10_000, MAX_TIMER_MS)).toBe(10_000);
    expect(intOption('timeout-ms', String(MAX_TIMER_MS), 10_000, MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
    expect(() => intOption('timeout-ms', '3000000000', 10_000, MAX_TIMER_MS)).toThrow('invalid --timeout-ms="3000000000": must be a positive integer, at most 2147483647');
    expect(() => intOption('limit', '0', 1)).toThrow(/--limit="0": must be a positive integer$/);
  });
});
