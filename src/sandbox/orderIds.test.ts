import { describe, expect, it } from 'vitest';
import { restartSafeFirstOrderId } from '../sim/restartIds.js';
import { ExchangeState } from './exchange-state.js';
import { ManualClock, testSandboxConfig } from './test-config.js';

/** The id the sandbox gives its first order, started at `nowMs` as `kancil run` and `kancil sandbox` start it. */
function firstOrderIdAt(nowMs: number): string {
  const state = new ExchangeState({ ...testSandboxConfig(), firstOrderId: restartSafeFirstOrderId(nowMs) }, new ManualClock(nowMs));
  const r = state.exec((e, now) => e.placeOrder({ accountId: 'bob', symbol: 'BTC_USDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '1000', quantity: '0.01' }, now));
  if (!r.ok) throw new Error(r.message);
  return r.orderId;
}

describe('order ids of a restarted sandbox', () => {
  it('never repeat an earlier start: a ledger keys fills on (orderId, tradeId) and drops repeats', () => {
    const first = firstOrderIdAt(Date.UTC(2026, 11, 7, 23, 46, 25));
    const restarted = firstOrderIdAt(Date.UTC(2026, 11, 7, 23, 46, 25) + 1);
    // Each start counted from 1 before, so a second run's first fill was taken for the first's.
    expect(first).not.toBe(restarted);
    expect(BigInt(restarted) - BigInt(first)).toBe(1000n);
    expect(Number.isSafeInteger(Number(restarted))).toBe(true);
    // Still exact in 2255, when the clock in µs passes 2^53.
    expect(Number.isSafeInteger(restartSafeFirstOrderId(Date.UTC(2255, 0, 1)))).toBe(true);
  });
});
