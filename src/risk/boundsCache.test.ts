import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';
import { checkIntent } from './checkIntent.js';
import { fixtureRules } from './fixtures.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { decisionKey } from './reference/compareDecisions.js';
import { StaticRiskContext } from './testkit.js';

const D = (s: string): Decimal => new Decimal(s);

function buy(price: string, qty: string): PlaceIntent {
  return { kind: 'place', strategy: 's', intentId: 'i', clientId: 'c', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: D(price), quantity: D(qty) };
}

function context(rules = fixtureRules()): StaticRiskContext {
  const c = new StaticRiskContext(rules);
  c.balances.set('IDR', D('100000000000'));
  c.balances.set('BTC', D('10'));
  c.avg.set('BTC_IDR', D('1000000000'));
  c.refs.set('BTC_IDR', D('1000000000'));
  return c;
}

/** The verdict of the fast checker, after checking that the reference gives the same. */
function verdict(i: PlaceIntent, c: StaticRiskContext): string {
  const fast = decisionKey(checkIntent(i, c));
  expect(fast).toBe(decisionKey(checkIntentReference(i, c)));
  return fast.split('|').slice(0, 2).join('|');
}

describe('bounds kept per context follow the context values', () => {
  it('a new balance, average, reference price, position or limits object is seen on the next check', () => {
    const c = context();
    const i = buy('1000000000', '0.01');
    // Each step changes one context value (a new Decimal or limits object) and names the verdict it must give.
    const steps: [() => void, string][] = [
      [() => undefined, 'accept'],
      [() => c.balances.set('IDR', D('9999999.99')), 'reject|INSUFFICIENT_BALANCE'],
      [() => c.balances.set('IDR', D('10000000')), 'accept'],
      [() => c.avg.set('BTC_IDR', D('199999999.9')), 'reject|PERCENT_PRICE'],
      [() => c.avg.set('BTC_IDR', D('200000000')), 'accept'],
      [() => c.refs.set('BTC_IDR', D('909090909')), 'reject|PRICE_RANGE'],
      [() => c.refs.set('BTC_IDR', D('909090910')), 'accept'],
      [() => (c.limits = { maxPosition: { BTC: D('1') } }), 'accept'],
      [() => c.positions.set('BTC', D('0.99000001')), 'reject|MAX_POSITION'],
      [() => c.positions.set('BTC', D('0.99')), 'accept'],
      [() => (c.limits = { maxOrderNotional: D('9999999') }), 'reject|MAX_ORDER_NOTIONAL'],
      [() => (c.limits = { maxOrderNotional: D('10000000') }), 'accept'],
    ];
    steps.forEach(([change, want], n) => {
      change();
      expect(verdict(i, c), `step ${n}`).toBe(want);
    });
  });

  it('more contexts than a symbol keeps slots for still get their own verdicts', () => {
    const rules = fixtureRules();
    // Each context can afford one more unit of 0.01 BTC than the last (40 > the 16 slots per symbol).
    const contexts = Array.from({ length: 40 }, (_, k) => {
      const c = context(rules);
      c.balances.set('IDR', D(String(10_000_000 * (k + 1))));
      return c;
    });
    for (let round = 0; round < 3; round++) {
      contexts.forEach((c, k) => {
        for (let units = 1; units <= 41; units += 8) {
          const want = units <= k + 1 ? 'accept' : 'reject|INSUFFICIENT_BALANCE';
          expect(verdict(buy('1000000000', (units / 100).toFixed(2)), c), `context ${k}, ${units} units`).toBe(want);
        }
      });
    }
  });
});
