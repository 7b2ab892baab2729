import { describe, expect, it } from 'vitest';
import { ParseError } from '../../core/errors.js';
import { OrderStatus, TimeInForce } from '../../core/enums.js';
import { amountValue, enumName, orderAmountValue } from './fields.js';

describe('enumName', () => {
  it('reads a name, a code and a quoted code; the first name of a shared code wins', () => {
    expect(enumName(OrderStatus, 'o.status', 'EXPIRED')).toBe('EXPIRED');
    expect(enumName(OrderStatus, 'o.status', OrderStatus.EXPIRED)).toBe('EXPIRED');
    expect(enumName(TimeInForce, 'o.timeInForce', '2')).toBe('IOC');
    expect(enumName(OrderStatus, 'o.status', '-2')).toBe('SYSTEM_PROCESSING');
    const shared = { A: 1, B: 1, C: '2', D: 2 } as const;
    expect(enumName(shared, 'x', 1)).toBe('A');
    expect(enumName(shared, 'x', '2')).toBe('C');
    expect(enumName(shared, 'x', 2)).toBe('D');
  });

  it('refuses what is not one of them, naming the field and the value', () => {
    expect(() => enumName(TimeInForce, 'o.timeInForce', 9)).toThrow(ParseError);
    expect(() => enumName(TimeInForce, 'o.timeInForce', '9')).toThrow(/o\.timeInForce/);
    expect(() => enumName(TimeInForce, 'o.timeInForce', true)).toThrow(ParseError);
    expect(() => enumName(TimeInForce, 'o.timeInForce', 'toString')).toThrow(ParseError);
  });
});

describe('orderAmountValue', () => {
  const texts = ['0', '0.00000000', '59990.00', '59990', '0.001', '0.00100000', '123456789012345678', '0.000000000000000001', '999999999999999999.999999999999999999', '1.5'];

  it('gives what amountValue gives, digit for digit, for texts and numbers', () => {
    for (const v of [...texts, 0, 1.5, 59990, 0.001]) {
      const want = amountValue('o.x', v);
      const got = orderAmountValue('o.x', v);
      expect(got.eq(want)).toBe(true);
      expect(got.toFixed()).toBe(want.toFixed());
      expect([got.s, got.e, got.d]).toEqual([want.s, want.e, want.d]);
    }
  });

  it('builds each text once', () => {
    expect(orderAmountValue('o.price', '61000.5')).toBe(orderAmountValue('o.lastPrice', '61000.5'));
  });

  it('refuses what amountValue refuses, naming the field and the value', () => {
    for (const bad of ['-1', '1e5', '1000000000000000000', '0.0000000000000000001', '', 'abc', null, Infinity]) {
      expect(() => amountValue('o.qty', bad)).toThrow(ParseError);
      expect(() => orderAmountValue('o.qty', bad)).toThrow(/o\.qty/);
    }
  });
});
