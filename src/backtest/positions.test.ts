import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from '../core/decimal.js';
import { applyFill, assetsOf, netPnl, newPosition, unrealized, type FillLike } from './positions.js';

const d = (s: string | number) => new Decimal(s);
function fill(side: 'BUY' | 'SELL', price: string, qty: string, commission = '0', asset: string | null = 'USDT'): FillLike {
  return { E: 0, strategy: 's', symbol: 'BTC_USDT', side, price: d(price), qty: d(qty), quoteQty: d(price).mul(qty), commission: d(commission), commissionAsset: asset };
}

describe('positions', () => {
  it('realizes average-cost PnL and keeps fees apart', () => {
    const p = newPosition('s', 'BTC_USDT');
    applyFill(p, fill('BUY', '100', '1', '0.1'));
    applyFill(p, fill('BUY', '110', '1', '0.11'));
    expect(p.avgPrice.toString()).toBe('105');
    applyFill(p, fill('SELL', '120', '1.5', '0.18'));
    expect(p.realized.toString()).toBe('22.5');
    expect(p.qty.toString()).toBe('0.5');
    expect(p.fees.toString()).toBe('0.39');
    expect(unrealized(p, d('100')).toString()).toBe('-2.5');
    expect(p.turnover.toString()).toBe('390');
    expect(p.trades).toBe(3);
  });

  it('values base-asset fees at the fill price', () => {
    const p = newPosition('s', 'BTC_USDT');
    applyFill(p, fill('BUY', '100', '1', '0.001', 'BTC'));
    expect(p.fees.toString()).toBe('0.1');
  });

  it('flips through zero at the fill price', () => {
    const p = newPosition('s', 'BTC_USDT');
    applyFill(p, fill('BUY', '100', '1'));
    applyFill(p, fill('SELL', '90', '3'));
    expect(p.qty.toString()).toBe('-2');
    expect(p.avgPrice.toString()).toBe('90');
    expect(p.realized.toString()).toBe('-10');
    expect(unrealized(p, d('80')).toString()).toBe('20');
  });

  it('refuses symbols without BASE_QUOTE form', () => {
    expect(() => assetsOf('BTCUSDT')).toThrow(/BASE_QUOTE/);
    expect(assetsOf('BTC_IDR')).toEqual({ base: 'BTC', quote: 'IDR' });
  });

  it('property: realized + unrealized - fees always equals cash + qty x mark', () => {
    const arbFill = fc.record({
      buy: fc.boolean(),
      price: fc.integer({ min: 1, max: 100_000 }),
      qty: fc.integer({ min: 1, max: 1000 }),
      fee: fc.integer({ min: 0, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(arbFill, { maxLength: 40 }), fc.integer({ min: 1, max: 100_000 }), (fills, mark) => {
        const p = newPosition('s', 'BTC_USDT');
        for (const f of fills) applyFill(p, fill(f.buy ? 'BUY' : 'SELL', String(f.price / 100), String(f.qty / 1000), String(f.fee / 100)));
        const m = d(mark / 100);
        expect(netPnl(p, m).minus(p.cash.plus(p.qty.mul(m))).abs().lt('1e-20')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
