import { describe, expect, it } from 'vitest';
import { encodeForm, JsonNumberLiteral, type WireParams } from './wire.js';

/** The form encoding as first written: every key and value through encodeURIComponent, parts joined. */
function reference(params: WireParams | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    const text = v instanceof JsonNumberLiteral ? v.text : Array.isArray(v) ? JSON.stringify(v) : String(v);
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(text)}`);
  }
  return parts.join('&');
}

describe('encodeForm', () => {
  const cases: (WireParams | undefined)[] = [
    undefined,
    {},
    { a: undefined },
    { symbol: 'BTC_USDT', side: 0, type: 1, quantity: '0.001', price: new JsonNumberLiteral('59990.5'), clientId: 'bot-1', stp: undefined, flag: true },
    { 'odd key&=': 'a b+c/d?e=f&g', unicode: 'rupiah Rp 1.000 — ok ✓', empty: '', marks: "-_.!~*'()", pct: '100%' },
    { ids: [1, 2, 3], names: ['a', 'b c'], first: undefined, last: 'x' },
  ];

  it('writes what encodeURIComponent of every key and value, joined with &, writes', () => {
    for (const c of cases) expect(encodeForm(c)).toBe(reference(c));
  });

  it('refuses a lone surrogate as encodeURIComponent does', () => {
    expect(() => encodeForm({ bad: '\uD800' })).toThrow(URIError);
  });
});
