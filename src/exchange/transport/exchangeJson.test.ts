import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTooDeepError, MAX_JSON_DEPTH, parseExchangeJson } from './exchangeJson.js';
import { quoteUnsafeIntegers } from './unsafeIntegers.js';

/** Nesting depth of a parsed value, for comparison. */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

/** The offset parseExchangeJson names for `text`, or -1 when it is not too deep. */
function deepAt(text: string, max?: number): number {
  try {
    parseExchangeJson(text, max);
    return -1;
  } catch (e) {
    if (e instanceof JsonTooDeepError) return e.offset;
    return -1;
  }
}

describe('parseExchangeJson', () => {
  it('names the first bracket past the limit, ignoring brackets in strings', () => {
    expect(deepAt('['.repeat(100_000))).toBe(MAX_JSON_DEPTH);
    expect(() => parseExchangeJson('['.repeat(100_000))).toThrow(`nested deeper than ${MAX_JSON_DEPTH} levels at offset ${MAX_JSON_DEPTH}`);
    expect(parseExchangeJson(`{"a":"${'['.repeat(100)}\\"["}`)).toEqual({ a: `${'['.repeat(100)}"[` });
    expect(deepAt('[[[]]]', 2)).toBe(2);
  });

  it('agrees with the depth of the parsed value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (v, max) => {
        expect(deepAt(JSON.stringify(v), max) >= 0).toBe(depthOf(v) > max);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every digit of an id past 2^53 and leaves a 16-digit safe one a number', () => {
    const text = '{"i":1800000000000001,"j":9007199254740991,"k":9007199254740992,"l":-12345678901234567,"m":"9007199254740993"}';
    expect(parseExchangeJson(text)).toEqual({ i: 1_800_000_000_000_001, j: Number.MAX_SAFE_INTEGER, k: '9007199254740992', l: '-12345678901234567', m: '9007199254740993' });
  });

  it('parses as JSON.parse after quoteUnsafeIntegers, for integers around 2^53 anywhere', () => {
    const big = fc.oneof(fc.bigInt({ min: 10n ** 15n, max: 10n ** 20n }), fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }));
    const value = fc.letrec((tie) => ({
      v: fc.oneof(big.map((b) => ({ raw: String(b) })), fc.double(), fc.string(), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('v'), { maxKeys: 3 })),
    })).v;
    // Literals written raw: JSON.stringify would make a bigint's digits a double first.
    const write = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
      if (v !== null && typeof v === 'object') return 'raw' in v ? String((v as { raw: string }).raw) : `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${write(x)}`).join(',')}}`;
      return JSON.stringify(v) ?? 'null';
    };
    fc.assert(
      fc.property(value, (v) => {
        const text = write(v);
        expect(parseExchangeJson(text)).toEqual(JSON.parse(quoteUnsafeIntegers(text)));
      }),
      { numRuns: 300 },
    );
  });
});
