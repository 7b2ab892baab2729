import { describe, expect, it } from 'vitest';
import { counted } from './plural.js';

describe('counted', () => {
  it('uses the singular only for exactly one', () => {
    expect(counted(1, 'run')).toBe('1 run');
    expect(counted(0, 'run')).toBe('0 runs');
    expect(counted(2, 'fill')).toBe('2 fills');
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
    expect(counted(3, 'entry', 'entries')).toBe('3 entries');
  });
});
