import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { TrackedOrderStateName } from '../bus/events.js';
import type { OrderRecord } from '../store/records.js';
import { FillGate } from './fillGate.js';

const d = (s: string) => new Decimal(s);
const order = (state: TrackedOrderStateName, cumQty: string, clientId = 'c1'): OrderRecord =>
  ({ clientId, state, cumQty: d(cumQty), cumQuoteQty: d(cumQty).mul(100) }) as unknown as OrderRecord;

describe('FillGate', () => {
  it('holds an update executed beyond the recorded fills and hands it over when the fills cover it', () => {
    const ledger = new Map<string, Decimal>([['c1', d('0.001')]]);
    const gate = new FillGate((id) => ledger.get(id) ?? d('0'));
    expect(gate.admit(order('NEW', '0'), 1)).toBe(true);
    expect(gate.admit(order('PARTIALLY_FILLED', '0.001'), 2)).toBe(true);
    // REST shows FILLED (0.003) while two fills are still on their way: held, the latest kept.
    expect(gate.admit(order('PARTIALLY_FILLED', '0.002'), 3)).toBe(false);
    expect(gate.admit(order('FILLED', '0.003'), 4)).toBe(false);
    expect(gate.heldCount).toBe(1);
    expect(gate.recorded('c1', d('0.001'))).toBeUndefined();
    expect(gate.recorded('c1', d('0.001'))?.state).toBe('FILLED');
    expect(gate.heldCount).toBe(0);
    // Closed and settled: a late duplicate report has nothing to release.
    expect(gate.recorded('c1', d('0.001'))).toBeUndefined();
  });

  it('a fill recorded before anything was held is summed from the ledger when first needed, not twice', () => {
    const ledger = new Map<string, Decimal>();
    const gate = new FillGate((id) => ledger.get(id) ?? d('0'));
    ledger.set('c1', d('0.002'));
    expect(gate.recorded('c1', d('0.002'))).toBeUndefined();
    expect(gate.admit(order('FILLED', '0.002'), 1)).toBe(true);
  });

  it('releases held updates by order, or by age, and forgets them', () => {
    const gate = new FillGate(() => d('0'));
    expect(gate.admit(order('FILLED', '0.001', 'a'), 10)).toBe(false);
    expect(gate.admit(order('CANCELED', '0.001', 'b'), 20)).toBe(false);
    expect(gate.admit(order('CANCELED', '0.001', 'b'), 30)).toBe(false); // still waiting since 20
    expect(gate.releaseOlder(15).map((o) => o.clientId)).toEqual(['a']);
    expect(gate.releaseOlder(20)).toEqual([]);
    expect(gate.releaseOf('b')?.state).toBe('CANCELED');
    expect(gate.releaseOf('b')).toBeUndefined();
    expect(gate.heldCount).toBe(0);
  });
});
