import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import { quoteBuyMostQty } from './quoteBuyQty.js';
import { makeRules, makeSymbol } from './testkit.js';

const D = (s: string | number): Decimal => new Decimal(s);

/**
 * Spec rule 4 as the sandbox engine applies it, written out for a test: the grid quantity whose cost on
 * `asks` is closest to `budget` (a tie: the smaller); undefined (refused) when even minQty costs more.
 */
function closest(asks: readonly [Decimal, Decimal][], budget: Decimal, min: Decimal, step: Decimal, max: Decimal): Decimal | undefined {
  const cost = (q: Decimal): Decimal | undefined => {
    let left = q;
    let c = D(0);
    for (const [p, v] of asks) {
      const t = Decimal.min(left, v);
      c = c.plus(t.mul(p));
      left = left.minus(t);
    }
    return left.isZero() ? c : undefined;
  };
  let best: Decimal | undefined;
  let gap: Decimal | undefined;
  for (let q = min; q.lte(max); q = q.plus(step)) {
    const c = cost(q);
    if (c === undefined || (best === undefined && c.gt(budget))) break;
    const g = c.minus(budget).abs();
    if (gap === undefined || g.lt(gap)) [best, gap] = [q, g];
    if (c.gt(budget)) break;
  }
  return best;
}

describe('quoteBuyMostQty', () => {
  const rules = makeRules([
    makeSymbol('BTC_IDR', [
      { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '9000', stepSize: '0.001' },
      { filterType: 'MARKET_LOT_SIZE', minQty: '0.01', maxQty: '0.5', stepSize: '0.01' },
    ]),
    makeSymbol('ETH_IDR', [{ filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '9000', stepSize: '0.001' }]),
  ]);
  const btc = rules.symbols.get('BTC_IDR')!;
  const eth = rules.symbols.get('ETH_IDR')!;

  it('is the grid quantity nearest to quoteOrderQty / bestAsk on the coarser step, a tie rounding down, at most maxQty', () => {
    expect(quoteBuyMostQty(D('1.049'), D('100'), btc).toFixed()).toBe('0.01');
    expect(quoteBuyMostQty(D('1.5'), D('100'), btc).toFixed()).toBe('0.01');
    expect(quoteBuyMostQty(D('1.5001'), D('100'), btc).toFixed()).toBe('0.02');
    expect(quoteBuyMostQty(D('1000'), D('100'), btc).toFixed()).toBe('0.5');
    expect(quoteBuyMostQty(D('1.5001'), D('100'), eth).toFixed()).toBe('0.015');
    expect(quoteBuyMostQty(D('1.55'), D('100'), eth).toFixed()).toBe('0.015');
    expect(quoteBuyMostQty(D('1.5501'), D('100'), eth).toFixed()).toBe('0.016');
  });

  it('is never below what the closest-notional rule takes on random books behind that best ask', () => {
    const r = mulberry32(5);
    for (let i = 0; i < 400; i++) {
      const best = D(100 + Math.floor(r() * 20));
      const asks: [Decimal, Decimal][] = [[best, D(1 + Math.floor(r() * 40)).div(1000)]];
      for (let k = 0; k < 4; k++) asks.push([asks[asks.length - 1]![0].plus(1 + Math.floor(r() * 30)), D(1 + Math.floor(r() * 40)).div(1000)]);
      const budget = D(1 + Math.floor(r() * 20_000)).div(1000);
      const taken = closest(asks, budget, D('0.001'), D('0.001'), D('9000'));
      if (taken === undefined) continue;
      expect(quoteBuyMostQty(budget, best, eth).gte(taken), `${budget.toFixed()} on ${JSON.stringify(asks)}`).toBe(true);
    }
  });
});
