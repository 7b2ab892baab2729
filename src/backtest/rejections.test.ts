import { describe, expect, it } from 'vitest';
import { reasonCode } from './rejections.js';

describe('reasonCode', () => {
  it('takes the code of `CODE: message` and leaves other texts whole', () => {
    expect(reasonCode('LIMIT_MAKER_WOULD_TAKE: LIMIT_MAKER price 61563.2 would trade immediately against 61563.99')).toBe('LIMIT_MAKER_WOULD_TAKE');
    expect(reasonCode('PRICE_FILTER: price 1.001 is not a multiple of 0.01')).toBe('PRICE_FILTER');
    expect(reasonCode('REJECTED')).toBe('REJECTED');
    expect(reasonCode('Account has insufficient balance: 12')).toBe('Account has insufficient balance: 12');
    expect(reasonCode(': nothing before')).toBe(': nothing before');
  });
});
