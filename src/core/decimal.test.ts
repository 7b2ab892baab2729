import { describe, expect, it } from 'vitest';
import { Decimal, ceilToStep, floorToStep, isMultipleOf, parseDecimal } from './decimal.js';
import { ParseError } from './errors.js';

describe('decimal helpers', () => {
  it('parses wire strings exactly', () => {
    expect(parseDecimal('price', '0.10000000').plus('0.2').toFixed()).toBe('0.3');
  });
  it('names the field and value on bad input', () => {
    expect(() => parseDecimal('price', 'abc')).toThrow(ParseError);
    expect(() => parseDecimal('price', 'abc')).toThrow(/price="abc"/);
    expect(() => parseDecimal('qty', null)).toThrow(/qty=null/);
  });
  it('steps', () => {
    expect(isMultipleOf(new Decimal('0.003'), new Decimal('0.001'))).toBe(true);
    expect(isMultipleOf(new Decimal('0.0031'), new Decimal('0.001'))).toBe(false);
    expect(floorToStep(new Decimal('1.2345'), new Decimal('0.01')).toFixed()).toBe('1.23');
    expect(ceilToStep(new Decimal('1.2301'), new Decimal('0.01')).toFixed()).toBe('1.24');
    expect(floorToStep(new Decimal('105'), new Decimal('10'), new Decimal('3')).toFixed()).toBe('103');
  });
});
