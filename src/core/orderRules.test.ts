import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OrderType, OrderTypeName } from './enums.js';
import { ICEBERG_ORDER_TYPES, MARKET_EXECUTION_ORDER_TYPES, ORDER_MANDATORY_PARAMS, PRICED_ORDER_TYPES, STOP_ORDER_TYPES } from './orderRules.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const spec = resolve(repoRoot, '../shared/spec/open-api.md');

describe('order parameter rules', () => {
  it('derives the priced and stop types from the mandatory table', () => {
    expect([...PRICED_ORDER_TYPES].sort()).toEqual(['LIMIT', 'LIMIT_MAKER', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']);
    expect([...STOP_ORDER_TYPES].sort()).toEqual(['STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT']);
    expect([...ICEBERG_ORDER_TYPES].every((t) => PRICED_ORDER_TYPES.has(t) && t !== 'LIMIT_MAKER')).toBe(true);
    expect([...MARKET_EXECUTION_ORDER_TYPES].sort()).toEqual(['MARKET', 'STOP_LOSS', 'TAKE_PROFIT']);
  });
});

describe.skipIf(!existsSync(spec))('order parameter rules against the spec text (needs ../shared/spec, present only on the build machine)', () => {
  it('matches "Additional mandatory parameters by type" for every type but MARKET', () => {
    const text = existsSync(spec) ? readFileSync(spec, 'utf8') : '';
    const line = /Additional mandatory parameters by type: (.*)\./.exec(text)?.[1];
    expect(line).toBeDefined();
    const byCode = new Map<number, string[]>();
    for (const part of (line ?? '').split(';')) {
      const m = /^\s*(\d) (.*)$/.exec(part);
      if (m?.[1] === undefined || m[2] === undefined) throw new Error(`unexpected spec fragment: ${part}`);
      byCode.set(Number(m[1]), m[2].split(',').map((s) => s.trim()));
    }
    expect(byCode.size).toBe(Object.keys(OrderType).length);
    for (const [code, params] of byCode) {
      const type = OrderTypeName[String(code) as keyof typeof OrderTypeName] as OrderTypeName | undefined;
      if (type === undefined) throw new Error(`spec names an unknown order type ${code}`);
      // MARKET reads "quantity (sell) or quoteOrderQty (buy)": side-dependent, left to the callers.
      if (type === 'MARKET') {
        expect(params).toEqual(['quantity (sell) or quoteOrderQty (buy)']);
        expect(ORDER_MANDATORY_PARAMS.MARKET).toEqual([]);
      } else {
        expect(ORDER_MANDATORY_PARAMS[type]).toEqual(params);
      }
    }
  });
});
