import { describe, expect, it } from 'vitest';
import { pctText, ratioNumText } from './figureText.js';

describe('figure text', () => {
  it('prints two decimals with the unit, two significant digits when smaller, n/a for a missing figure', () => {
    expect(pctText(20.18348624)).toBe('20.18%');
    expect(pctText(-0.000495577)).toBe('-0.00050%');
    expect(pctText(0.0785)).toBe('0.079%');
    expect(pctText(0.5)).toBe('0.50%');
    expect(pctText(1e-15)).toBe('0.0000000000%');
    expect(pctText(-1e-15)).toBe('0.0000000000%');
    expect(pctText(0)).toBe('0.00%');
    expect(pctText(null)).toBe('n/a');
    expect(ratioNumText(1.3456)).toBe('1.35');
    expect(ratioNumText(-2.1205665506, 3)).toBe('-2.121');
  });
});
