/**
 * Differential test: the scaled-integer checker against the plain decimal.js reference on a
 * million seeded random intents (adversarial mix: off-grid values, bounds, every order type,
 * both modes, all states, long decimals, values past the fast checker's grid bounds). Any disagreement in verdict, reason, message or
 * adjusted values fails, printing the first few cases.
 */
import { describe, expect, it } from 'vitest';
import { boundFallbacks, checkIntent, riskPathStats } from './checkIntent.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { decisionKey } from './reference/compareDecisions.js';
import { RandomIntents, realisticFlow } from './reference/randomIntents.js';

describe('checkIntent vs decimal.js reference', () => {
  // About 12 s of CPU, most of it in the decimal.js reference (~10 µs a check).
  it('agrees on 1,000,000 random intents, mostly on the fast path', { timeout: 180_000 }, () => {
    const gen = new RandomIntents(20261121);
    const before = { ...riskPathStats };
    const boundsBefore = { ...boundFallbacks };
    const diffs: string[] = [];
    const outcomes = new Map<string, number>();
    const N = 1_000_000;
    for (let n = 0; n < N; n++) {
      const intent = gen.next();
      const ctx = gen.nextContext();
      const verdict = checkIntent(intent, ctx);
      const fast = decisionKey(verdict);
      const ref = decisionKey(checkIntentReference(intent, ctx));
      if (fast !== ref && diffs.length < 5) diffs.push(`${JSON.stringify(intent)}\n  fast: ${fast}\n  ref:  ${ref}`);
      const k = verdict.kind === 'reject' ? verdict.reason : verdict.kind;
      outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    }
    expect(diffs).toEqual([]);
    // The test means something only if the fast path decided nearly everything...
    const fast = riskPathStats.fast - before.fast;
    const fallback = riskPathStats.fallback - before.fallback;
    expect(fast / (fast + fallback)).toBeGreaterThan(0.97);
    // ...both sides of every grid bound (boundsCache.ts) met the reference: the bound and the exact comparison behind it...
    for (const [rule, n] of Object.entries(boundFallbacks)) expect(n - boundsBefore[rule as keyof typeof boundFallbacks], rule).toBeGreaterThan(0);
    // ...and the mix reached every verdict the checker can give.
    for (const k of ['accept', 'adjust', 'PRICE_FILTER', 'PERCENT_PRICE', 'LOT_SIZE', 'MARKET_LOT_SIZE', 'NOTIONAL', 'ICEBERG_PARTS', 'PRICE_RANGE', 'MAX_NUM_ORDERS', 'MAX_NUM_ALGO_ORDERS', 'MAX_NUM_ICEBERG_ORDERS', 'EXCHANGE_MAX_NUM_ORDERS', 'EXCHANGE_MAX_NUM_ALGO_ORDERS', 'MAX_OPEN_ORDERS', 'MAX_ORDER_RATE', 'MAX_ORDER_NOTIONAL', 'MAX_POSITION', 'DAILY_LOSS_LIMIT', 'INSUFFICIENT_BALANCE', 'NO_MARKET_LIQUIDITY', 'REDUCING_ONLY', 'TRADING_HALTED', 'BOOK_NOT_READY', 'MISSING_PARAMETER', 'INVALID_PARAMETER', 'ICEBERG_NOT_GTC', 'ICEBERG_DISABLED', 'STP_MODE_NOT_ALLOWED', 'ORDER_TYPE_NOT_SUPPORTED', 'UNKNOWN_SYMBOL']) {
      expect(outcomes.get(k) ?? 0, k).toBeGreaterThan(0);
    }
  });

  it('agrees on the realistic benchmark flow', () => {
    const { intents, contexts, pairs } = realisticFlow(7, 10_000);
    let same = 0;
    intents.forEach((intent, n) => {
      const ctx = contexts[pairs[n] as number];
      if (ctx && decisionKey(checkIntent(intent, ctx)) === decisionKey(checkIntentReference(intent, ctx))) same++;
    });
    expect(same).toBe(intents.length);
  });
});
