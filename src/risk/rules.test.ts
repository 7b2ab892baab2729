import { describe, expect, it } from 'vitest';
import { OrderType, type OrderTypeName } from '../core/enums.js';
import { compileSymbolRules, ICEBERG_TYPES, MARKET_TYPES, PRICED_TYPES, STOP_TYPES, T_ICEBERG, T_MARKET, T_PRICED, T_STOP, TYPE_BITS, typeTraits } from './rules.js';
import { makeSymbol } from './testkit.js';

describe('typeTraits', () => {
  const all = Object.keys(OrderType) as OrderTypeName[];

  it('matches the order-type sets for every order type', () => {
    for (const t of all) {
      const bits = typeTraits(t);
      expect((bits & T_PRICED) !== 0, t).toBe(PRICED_TYPES.has(t));
      expect((bits & T_MARKET) !== 0, t).toBe(MARKET_TYPES.has(t));
      expect((bits & T_STOP) !== 0, t).toBe(STOP_TYPES.has(t));
      expect((bits & T_ICEBERG) !== 0, t).toBe(ICEBERG_TYPES.has(t));
    }
  });

  it('gives every type its own bit and none to a non-type', () => {
    const own = all.map((t) => typeTraits(t) & TYPE_BITS);
    expect(new Set(own).size).toBe(all.length);
    for (const b of own) expect(b !== 0 && (b & (b - 1)) === 0).toBe(true);
    expect(typeTraits('OCO')).toBe(0);
  });

  it('compiles a symbol mask that admits exactly its order types', () => {
    const sym = compileSymbolRules(makeSymbol('ETH_USDT', [], { orderTypes: ['LIMIT', 'MARKET'] }));
    for (const t of all) expect((sym.orderTypeMask & typeTraits(t)) !== 0, t).toBe(t === 'LIMIT' || t === 'MARKET');
  });
});
