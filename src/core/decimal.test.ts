import { describe, expect, it } from 'vitest';
import { Decimal, ceilToStep, decimalPlacesOfStep, floorToStep, isAboveZero, isMultipleOf, parseDecimal } from './decimal.js';
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
  it('knows the steps of 10^-k', () => {
    const places = ['1', '0.01', '0.00001', '1e-15', '1e-20', '10', '0.05', '0.0101', '-0.01', '0'].map((x) => decimalPlacesOfStep(new Decimal(x)));
    expect(places).toEqual([0, 2, 5, 15, 20, -1, -1, -1, -1, -1]);
    expect(Object.is(places[0], 0)).toBe(true); // not -0
  });

  it('steps', () => {
    expect(isMultipleOf(new Decimal('0.003'), new Decimal('0.001'))).toBe(true);
    expect(isMultipleOf(new Decimal('0.0031'), new Decimal('0.001'))).toBe(false);
    expect(floorToStep(new Decimal('1.2345'), new Decimal('0.01')).toFixed()).toBe('1.23');
    expect(ceilToStep(new Decimal('1.2301'), new Decimal('0.01')).toFixed()).toBe('1.24');
    expect(floorToStep(new Decimal('105'), new Decimal('10'), new Decimal('3')).toFixed()).toBe('103');
  });

  it('isAboveZero answers as gt(0), signed zeros and NaN included', () => {
    for (const t of ['1e-40', '0.00000001', '5', '1e30', 'Infinity', '0', '-0', '-1e-40', '-3', '-Infinity', 'NaN']) {
      const x = new Decimal(t);
      expect(isAboveZero(x), t).toBe(x.gt(0));
    }
  });
});
