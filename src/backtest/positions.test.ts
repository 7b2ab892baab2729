import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from '../core/decimal.js';
import { applyFill, assetsOf, feeInQuote, netPnl, newPosition, unrealized, type FillLike, type PositionState } from './positions.js';

const d = (s: string | number) => new Decimal(s);
function fill(side: 'BUY' | 'SELL', price: string, qty: string, commission = '0', asset: string | null = 'USDT'): FillLike {
  return { E: 0, strategy: 's', symbol: 'BTC_USDT', side, price: d(price), qty: d(qty), quoteQty: d(price).mul(qty), commission: d(commission), commissionAsset: asset };
}

const ZERO_REF = new Decimal(0);

/** A position as plain Decimal fields, for the reference. */
interface RefPosition {
  readonly baseAsset: string;
  readonly quoteAsset: string;
  qty: Decimal;
  avgPrice: Decimal;
  realized: Decimal;
  fees: Decimal;
  cash: Decimal;
  turnover: Decimal;
  trades: number;
}
const refPosition = (): RefPosition => ({ baseAsset: 'BTC', quoteAsset: 'USDT', qty: ZERO_REF, avgPrice: ZERO_REF, realized: ZERO_REF, fees: ZERO_REF, cash: ZERO_REF, turnover: ZERO_REF, trades: 0 });

/**
 * The plain average-cost formulas with plain Decimal sums (applyFill before its shortcuts and
 * running sums): the differential reference.
 */
function applyFillReference(p: RefPosition, f: FillLike): void {
  p.cash = p.cash.plus(f.side === 'BUY' ? f.quoteQty.neg() : f.quoteQty);
  p.turnover = p.turnover.plus(f.quoteQty);
  p.trades++;
  moveReference(p, f.side === 'BUY' ? f.qty : f.qty.neg(), f.price);
  const fee = feeInQuote(p, f);
  p.fees = p.fees.plus(fee);
  // A base fee leaves the position as a sale at the fill price whose proceeds are the fee; any
  // other fee is paid from cash.
  if (f.commissionAsset === p.baseAsset && !f.commission.isZero()) moveReference(p, f.commission.neg(), f.price);
  else p.cash = p.cash.minus(fee);
}

function moveReference(p: RefPosition, signed: Decimal, price: Decimal): void {
  const q = p.qty;
  if (q.isZero() || q.isPositive() === signed.isPositive()) {
    const newQty = q.plus(signed);
    p.avgPrice = q.abs().mul(p.avgPrice).plus(signed.abs().mul(price)).div(newQty.abs());
    p.qty = newQty;
    return;
  }
  const closing = Decimal.min(q.abs(), signed.abs());
  const pnlPerUnit = q.isPositive() ? price.minus(p.avgPrice) : p.avgPrice.minus(price);
  p.realized = p.realized.plus(pnlPerUnit.mul(closing));
  const newQty = q.plus(signed);
  if (newQty.isZero()) p.avgPrice = ZERO_REF;
  else if (newQty.isPositive() !== q.isPositive()) p.avgPrice = price;
  p.qty = newQty;
}

/** Digits and exponent of a state, so equal values written differently (e.g. -0) also count. */
const digitsOf = (p: PositionState | RefPosition) => [p.qty, p.avgPrice, p.realized, p.fees, p.cash, p.turnover].map((x) => x.toString()).concat(String(p.trades));

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

  it('values base-asset fees at the fill price and nets them out of the position', () => {
    const p = newPosition('s', 'BTC_USDT');
    applyFill(p, fill('BUY', '100', '1', '0.001', 'BTC'));
    expect(p.fees.toString()).toBe('0.1');
    // The account received 0.999 BTC for 100 USDT: that is the position, and the cash flow.
    expect(p.qty.toString()).toBe('0.999');
    expect(p.cash.toString()).toBe('-100');
    expect(p.avgPrice.toString()).toBe('100');
    expect(p.realized.toString()).toBe('0');
    // Adding at another price: the fee leaves at the fill price, realizing against the new average.
    applyFill(p, fill('BUY', '110', '1', '0.001', 'BTC'));
    expect(p.qty.toString()).toBe('1.998');
    // (the average 209.9 / 1.999 has no exact decimal: equal to rounding)
    expect(netPnl(p, d('120')).minus(p.cash.plus(p.qty.mul(120))).abs().lt('1e-30')).toBe(true);
    // Selling the whole position (quote fee) leaves it flat: nothing held that was not sold.
    applyFill(p, fill('SELL', '120', '1.998', '0.23976'));
    expect(p.qty.toString()).toBe('0');
    expect(netPnl(p, undefined).minus(p.cash).abs().lt('1e-30')).toBe(true);
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
      base: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbFill, { maxLength: 40 }), fc.integer({ min: 1, max: 100_000 }), (fills, mark) => {
        const p = newPosition('s', 'BTC_USDT');
        for (const f of fills) applyFill(p, fill(f.buy ? 'BUY' : 'SELL', String(f.price / 100), String(f.qty / 1000), String(f.fee / 100), f.base ? 'BTC' : 'USDT'));
        const m = d(mark / 100);
        expect(netPnl(p, m).minus(p.cash.plus(p.qty.mul(m))).abs().lt('1e-20')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('differential: applyFill equals the plain formulas in value and digits, on both sides of each shortcut', () => {
    // Short decimals (exchange-like) and long ones (20 to 40 significant digits): products of two
    // long ones exceed the 40-digit precision, so opening from flat takes both the exact shortcut
    // and the rounded formula (whose (qty x price) / qty then often differs from the price).
    const arbDigits = (min: number, max: number) =>
      fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max })).map(([lead, ds]) => `${lead}${ds.join('')}`);
    const arbDec = fc
      .tuple(fc.oneof(arbDigits(0, 8), arbDigits(19, 39)), fc.integer({ min: 0, max: 20 }))
      .map(([digits, scale]) => new Decimal(digits).div(new Decimal(10).pow(scale)));
    const arbFill = fc.record({
      buy: fc.boolean(),
      price: arbDec,
      // Small integers too, so positions often close exactly (and flip, and reopen from flat).
      qty: fc.oneof({ arbitrary: arbDec, weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => new Decimal(n)), weight: 2 }),
      fee: fc.oneof(fc.constant(new Decimal(0)), arbDec),
      asset: fc.constantFrom('USDT', 'BTC', 'BNB', null),
    });
    let flatOpens = 0;
    let roundedOpens = 0;
    let exactCloses = 0;
    // Adding to a long position whose quantity has at most 35 digits (|q| is q itself) or more.
    let shortLongAdds = 0;
    let longLongAdds = 0;
    let baseFees = 0;
    fc.assert(
      fc.property(fc.array(arbFill, { maxLength: 30 }), (fills) => {
        const p = newPosition('s', 'BTC_USDT');
        const r = refPosition();
        for (const f of fills) {
          const fl: FillLike = { E: 0, strategy: 's', symbol: 'BTC_USDT', side: f.buy ? 'BUY' : 'SELL', price: f.price, qty: f.qty, quoteQty: f.price.mul(f.qty), commission: f.fee, commissionAsset: f.asset };
          if (p.qty.isZero()) {
            if (f.qty.sd() + f.price.sd() <= Decimal.precision) flatOpens++;
            else roundedOpens++;
          } else if (p.qty.abs().eq(f.qty) && p.qty.isPositive() !== f.buy) exactCloses++;
          else if (p.qty.isPositive() && f.buy) {
            if ((p.qty.d as number[]).length <= 5) shortLongAdds++;
            else longLongAdds++;
          }
          if (f.asset === 'BTC' && !f.fee.isZero()) baseFees++;
          applyFill(p, fl);
          applyFillReference(r, fl);
          expect(digitsOf(p)).toEqual(digitsOf(r));
        }
      }),
      { numRuns: 2000 },
    );
    expect(flatOpens).toBeGreaterThan(100);
    expect(roundedOpens).toBeGreaterThan(100);
    expect(exactCloses).toBeGreaterThan(100);
    expect(shortLongAdds).toBeGreaterThan(100);
    expect(longLongAdds).toBeGreaterThan(100);
    expect(baseFees).toBeGreaterThan(100);
  });
});
