import { describe, expect, it } from 'vitest';
import { ParseError } from '../../core/errors.js';
import { OrderStatus, TimeInForce } from '../../core/enums.js';
import { enumName } from './fields.js';

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
