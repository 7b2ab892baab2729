import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.js';
import { mulberry32 } from './random.js';
import { compareTradeIds, nextTradeId, parseOptionalTradeId, parseTradeId } from './tradeId.js';

describe('trade ids', () => {
  it('keep every digit: safe numbers, and digit strings up to 20 digits (what the transports make of longer literals)', () => {
    expect(parseTradeId('t', 0)).toBe('0');
    expect(parseTradeId('t', 899732)).toBe('899732');
    expect(parseTradeId('t', Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(parseTradeId('t', '9007199254740993')).toBe('9007199254740993');
    expect(parseTradeId('t', '9223372036854775807')).toBe('9223372036854775807');
    expect(parseTradeId('t', '18446744073709551615')).toBe('18446744073709551615');
  });

  it('are canonical, so one trade read from the stream and from REST is one key', () => {
    expect(parseTradeId('t', '0077')).toBe('77');
    expect(parseTradeId('t', '000')).toBe('0');
    expect(parseTradeId('t', 77)).toBe(parseTradeId('tradeId', '77'));
  });

  it('refuse negative, fractional, non-numeric, too long and already rounded values, naming field and value', () => {
    const bad: unknown[] = [-1, '-5', 1.5, '1.5', '1e3', 'abc', '', ' 1', true, null, undefined, {}, '123456789012345678901', 2 ** 60, Number.NaN];
    for (const v of bad) {
      let err: unknown;
      try {
        parseTradeId('data.t', v);
      } catch (e) {
        err = e;
      }
      expect(err, String(v)).toBeInstanceOf(ParseError);
      expect((err as ParseError).field).toBe('data.t');
      expect((err as ParseError).value).toBe(v);
      expect((err as ParseError).message).toMatch(/^cannot parse data\.t=/);
    }
    expect(() => parseTradeId('t', 2 ** 60)).toThrow(/beyond 2\^53/);
    expect(() => parseTradeId('t', '-5')).toThrow(/t="-5"/);
  });

  it('optional: absent, null and the wire -1 mean no trade; other bad values still throw', () => {
    expect(parseOptionalTradeId('t', undefined)).toBeUndefined();
    expect(parseOptionalTradeId('t', null)).toBeUndefined();
    expect(parseOptionalTradeId('t', -1)).toBeUndefined();
    expect(parseOptionalTradeId('t', '-1')).toBeUndefined();
    expect(parseOptionalTradeId('t', '9007199254740993')).toBe('9007199254740993');
    expect(() => parseOptionalTradeId('t', -2)).toThrow(ParseError);
  });

  it('compare numerically (differential against bigint), not as text', () => {
    expect(compareTradeIds('9', '10')).toBeLessThan(0);
    expect(compareTradeIds('9223372036854775807', '9223372036854775806')).toBeGreaterThan(0);
    expect(compareTradeIds('42', '42')).toBe(0);
    const rng = mulberry32(7);
    const id = (): string => {
      const digits = 1 + Math.floor(rng() * 20);
      let s = String(1 + Math.floor(rng() * 9));
      for (let i = 1; i < digits; i++) s += String(Math.floor(rng() * 10));
      return rng() < 0.05 ? '0' : s;
    };
    for (let i = 0; i < 5000; i++) {
      const a = id();
      const b = rng() < 0.1 ? a : id();
      const want = BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
      expect(Math.sign(compareTradeIds(a, b)), `${a} vs ${b}`).toBe(want);
    }
  });

  it('next id is exact past 2^53', () => {
    expect(nextTradeId('9007199254740992')).toBe('9007199254740993');
    expect(nextTradeId('99')).toBe('100');
  });
});
