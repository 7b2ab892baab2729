import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decimalParam, validateParams } from './params.js';
import { defineStrategy } from './types.js';

describe('strategy parameters', () => {
  it('decimalParam takes plain decimal strings only (no exponent, sign or number)', () => {
    for (const ok of ['0', '5', '0.001', '61837.63']) expect(decimalParam.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['1e-3', '-1', '0.1.2', '.5', '', 0.001]) expect(decimalParam.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('names an unknown parameter at its own path with the value found there', () => {
    const plugin = defineStrategy({ name: 'p', description: 'd', params: z.strictObject({ qty: decimalParam }), create: () => ({ onEvent: () => undefined }) });
    const r = validateParams(plugin, { qty: '1', qtty: '2' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]).toEqual({ path: ['qtty'], value: '2', message: 'unknown key "qtty"' });
    const bad = validateParams(plugin, { qty: '1e3' });
    if (!bad.ok) expect([bad.issues[0]?.path, bad.issues[0]?.value]).toEqual([['qty'], '1e3']);
    expect(bad.ok).toBe(false);
  });

  it('refuses a parameter a plain (stripping) object schema would drop, as every example strategy has', async () => {
    const { default: mm } = await import('../../strategies/market-maker.js');
    const r = validateParams(mm, { spreadBps: 2, spreadbps: 3 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toEqual([{ path: ['spreadbps'], value: 3, message: 'unknown key "spreadbps"' }]);
    // A refined object schema is still an object schema: its keys are known, others refused.
    const { default: sma } = await import('../../strategies/sma-crossover.js');
    expect(validateParams(sma, { fast: 5, slow: 20 }).ok).toBe(true);
    expect(validateParams(sma, { fast: 5, slow: 20, quantiy: '1' }).ok).toBe(false);
    // A schema that says it takes any other key keeps them.
    const open = defineStrategy({ name: 'o', description: 'd', params: z.object({ a: z.number() }).passthrough(), create: () => ({ onEvent: () => undefined }) });
    expect(validateParams(open, { a: 1, extra: true })).toEqual({ ok: true, value: { a: 1, extra: true } });
  });
});
