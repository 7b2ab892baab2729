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
import { Decimal } from '../core/decimal.js';
import { BarBook } from '../venue/BarBook.js';

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

  it('agrees on market orders against candle mode\'s one-level bar book, valued in scaled integers', { timeout: 120_000 }, () => {
    const gen = new RandomIntents(20261207);
    // Each context's books become bar books at the best ask (8 decimals), at a price of 20
    // digits (off every grid: the generic products) or at a round price (trailing zeros).
    let valued = 0;
    class CountingBarBook extends BarBook {
      override singlePrice(): Decimal | undefined {
        valued++;
        return super.singlePrice();
      }
    }
    gen.contexts.forEach((ctx, k) => {
      for (const [sym, book] of ctx.books) {
        const ask = book.bestAsk()?.price ?? new Decimal(100);
        const price = k % 3 === 0 ? ask : k % 3 === 1 ? ask.plus('0.00000000012345678901') : ask.toDecimalPlaces(0).mul(1000);
        const bar = new CountingBarBook(sym);
        if (k % 11 !== 10) bar.update({ close: price, closeTime: 1 }); // some stay before their first bar: no liquidity
        ctx.books.set(sym, bar);
      }
    });
    const diffs: string[] = [];
    let markets = 0;
    for (let n = 0; n < 300_000; n++) {
      const intent = gen.next();
      const ctx = gen.nextContext();
      if (intent.kind !== 'place' || intent.orderType !== 'MARKET') continue;
      markets++;
      const fast = decisionKey(checkIntent(intent, ctx));
      const ref = decisionKey(checkIntentReference(intent, ctx));
      if (fast !== ref && diffs.length < 5) diffs.push(`${JSON.stringify(intent)}\n  fast: ${fast}\n  ref:  ${ref}`);
    }
    expect(diffs).toEqual([]);
    expect(markets).toBeGreaterThan(20_000);
    // Most market intents are decided before their value (shape, grids, counts): a fifth reach it.
    expect(valued).toBeGreaterThan(markets / 6);
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
