import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../core/decimal.js';
import { parseDepthSides, scaledLevels, type ScaledLevels } from '../../core/scaledLevels.js';
import { OrderBook } from './order-book.js';
import { fractionDigitsOf } from '../../core/scaledLevels.js';
import { scaledMidToDecimal, scaledToString, toScaled } from './scaled.js';

/** Plain decimal.js reference book: Map keyed by normalised price string. */
class ReferenceBook {
  bids = new Map<string, Decimal>();
  asks = new Map<string, Decimal>();
  apply(side: 'b' | 'a', p: string, q: string): void {
    const m = side === 'b' ? this.bids : this.asks;
    const key = new Decimal(p).toFixed();
    if (new Decimal(q).isZero()) m.delete(key);
    else m.set(key, new Decimal(q));
  }
  top(side: 'b' | 'a', n: number): string[] {
    const m = side === 'b' ? this.bids : this.asks;
    const keys = [...m.keys()].map((k) => new Decimal(k));
    keys.sort((x, y) => (side === 'b' ? y.cmp(x) : x.cmp(y)));
    return keys.slice(0, n).map((k) => `${k.toFixed()}@${(m.get(k.toFixed()) as Decimal).toFixed()}`);
  }
}

const decStr = (maxInt: number, maxFrac: number): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** maxFrac - 1 }), fc.integer({ min: 0, max: maxFrac })).map(([i, f, digits]) => (digits === 0 ? String(i) : `${i}.${String(f).padStart(maxFrac, '0').slice(0, digits)}`));

describe('scaled integers', () => {
  it('round-trips decimal strings exactly (differential vs decimal.js)', () => {
    fc.assert(
      fc.property(decStr(89_999_999, 8), (s) => {
        const scale = Math.max(fractionDigitsOf(s), 2);
        const v = toScaled('x', s, scale);
        expect(new Decimal(scaledToString(v, scale)).eq(new Decimal(s))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
  it('midpoints equal decimal.js (a + b) / 2, on the integer path and on the Decimal fallback past 2^53', () => {
    const big = Number.MAX_SAFE_INTEGER;
    // Small values take the integer path (even and odd sums); values near 2^53 make the sum (or
    // five times an odd sum) unsafe and take the fallback.
    const value = fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: Math.floor(big / 5) - 1000, max: big }));
    fc.assert(
      fc.property(value, value, fc.integer({ min: 0, max: 8 }), (a, b, scale) => {
        const want = new Decimal(scaledToString(a, scale)).plus(new Decimal(scaledToString(b, scale))).div(2);
        expect(scaledMidToDecimal(a, b, scale).toFixed()).toBe(want.toFixed());
      }),
      { numRuns: 3000 },
    );
    expect(scaledMidToDecimal(big, big, 2).toFixed()).toBe(new Decimal(scaledToString(big, 2)).toFixed());
    expect(scaledMidToDecimal(1, 2, 0).toFixed()).toBe('1.5');
  });

  it('signals a needed rescale and rejects malformed text', () => {
    expect(toScaled('x', '1.25', 1)).toBe(-1);
    expect(toScaled('x', '1.2000', 1)).toBe(12);
    expect(() => toScaled('x', '1e5', 2)).toThrow(/x="1e5"/);
    expect(() => toScaled('x', '', 2)).toThrow();
    expect(() => toScaled('x', '-1', 2)).toThrow();
    expect(() => toScaled('x', '99999999999', 8)).toThrow(/too large/);
  });
});

describe('OrderBook', () => {
  it('matches a decimal.js reference book on random updates, including scale growth', () => {
    const update = fc.tuple(fc.constantFrom<'b' | 'a'>('b', 'a'), decStr(200, 4), fc.oneof(decStr(50, 6), fc.constant('0'), fc.constant('0.000')));
    fc.assert(
      fc.property(fc.array(update, { minLength: 1, maxLength: 300 }), (ups) => {
        const book = new OrderBook('X');
        const ref = new ReferenceBook();
        for (const [side, p, q] of ups) {
          if (side === 'b') book.applyLevels([[p, q]], []);
          else book.applyLevels([], [[p, q]]);
          ref.apply(side, p, q);
          // Read after every update, so memoised touch Decimals are reused and replaced as it moves.
          const t1 = book.top(1);
          const lv = (l: { price: Decimal; qty: Decimal } | undefined) => (l === undefined ? '' : `${l.price.toFixed()}@${l.qty.toFixed()}`);
          expect([lv(book.bestBid()), lv(book.bestAsk())]).toEqual([lv(t1.bids[0]), lv(t1.asks[0])]);
          expect(book.midPrice()?.toFixed()).toBe(t1.bids[0] && t1.asks[0] ? t1.bids[0].price.plus(t1.asks[0].price).div(2).toFixed() : undefined);
        }
        const t = book.top(1000);
        const w = book.wireLevels();
        // The same levels as scaled integers at the book's scales (what the engine is seeded with).
        const sb = scaledLevels(0);
        const sa = scaledLevels(0);
        book.scaledLevels(sb, sa);
        const text = (l: ScaledLevels): string[] => Array.from({ length: l.n }, (_, i) => `${new Decimal(l.prices[i]!).div(10 ** l.priceScale).toFixed()}@${new Decimal(l.qtys[i]!).div(10 ** l.qtyScale).toFixed()}`);
        expect([sb.priceScale, sb.qtyScale, sa.priceScale, sa.qtyScale]).toEqual([book.priceScale, book.qtyScale, book.priceScale, book.qtyScale]);
        expect(text(sb)).toEqual(ref.top('b', 1000));
        expect(text(sa)).toEqual(ref.top('a', 1000));
        expect(w.bids.map((l) => `${new Decimal(l.price).toFixed()}@${new Decimal(l.qty).toFixed()}`)).toEqual(ref.top('b', 1000));
        expect(w.asks.map((l) => `${new Decimal(l.price).toFixed()}@${new Decimal(l.qty).toFixed()}`)).toEqual(ref.top('a', 1000));
        // The touch and the mid (memoised Decimals) agree with the full read.
        expect(book.bestBid()?.price.toFixed()).toBe(t.bids[0]?.price.toFixed());
        expect(book.bestAsk()?.qty.toFixed()).toBe(t.asks[0]?.qty.toFixed());
        expect(book.midPrice()?.toFixed()).toBe(t.bids[0] && t.asks[0] ? t.bids[0].price.plus(t.asks[0].price).div(2).toFixed() : undefined);
        expect(t.bids.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(ref.top('b', 1000));
        expect(t.asks.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(ref.top('a', 1000));
      }),
      { numRuns: 300 },
    );
  });

  it('applyScaled (levels parsed once) and applyFlat (the same in one buffer) give the book applyLevels gives on the strings, at the book scales or coarser ones', () => {
    const level = fc.tuple(decStr(200, 4), fc.oneof(decStr(50, 6), fc.constant('0'), fc.constant('0.000')));
    const diff = fc.tuple(fc.array(level, { maxLength: 12 }), fc.array(level, { maxLength: 12 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(diff, { minLength: 1, maxLength: 60 }), (diffs) => {
        const byStrings = new OrderBook('X');
        const byScaled = new OrderBook('X');
        const byFlat = new OrderBook('X');
        const ref = new ReferenceBook();
        const bids = scaledLevels(2);
        const asks = scaledLevels(2);
        for (const [rb, ra, coarse] of diffs) {
          byStrings.applyLevels(rb, ra);
          // At the book's scales (the replay's case: no conversion), or from scale 0 so levels may
          // be coarser than the book and are converted on the way in.
          parseDepthSides(rb, ra, bids, asks, coarse ? 0 : byScaled.priceScale, coarse ? 0 : byScaled.qtyScale);
          byScaled.applyScaled(bids, asks);
          // The same levels as a binary recording's pool holds them: one buffer, sides at offsets.
          const buf = new Float64Array(1 + 2 * (bids.n + asks.n));
          for (let i = 0; i < bids.n; i++) [buf[1 + i], buf[1 + bids.n + i]] = [bids.prices[i]!, bids.qtys[i]!];
          const ap = 1 + 2 * bids.n;
          for (let i = 0; i < asks.n; i++) [buf[ap + i], buf[ap + asks.n + i]] = [asks.prices[i]!, asks.qtys[i]!];
          byFlat.applyFlat({ buf, bidPrices: 1, bidQtys: 1 + bids.n, nBids: bids.n, askPrices: ap, askQtys: ap + asks.n, nAsks: asks.n, priceScale: bids.priceScale, qtyScale: bids.qtyScale });
          for (const [p, q] of rb) ref.apply('b', p, q);
          for (const [p, q] of ra) ref.apply('a', p, q);
          expect([byScaled.priceScale, byScaled.qtyScale]).toEqual([byStrings.priceScale, byStrings.qtyScale]);
        }
        expect(byScaled.wireLevels()).toEqual(byStrings.wireLevels());
        expect(byFlat.wireLevels()).toEqual(byStrings.wireLevels());
        const t = byScaled.top(1000);
        expect(t.bids.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(ref.top('b', 1000));
        expect(t.asks.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(ref.top('a', 1000));
      }),
      { numRuns: 300 },
    );
  });

  it('applyScaled refuses a rescale past 2^53 as applyLevels does, leaving that side unchanged', () => {
    const big = [['90071992547409.91', '1']] as const;
    const viaStrings = new OrderBook('X');
    viaStrings.applyLevels(big, []);
    const viaScaled = new OrderBook('X');
    viaScaled.applyLevels(big, []);
    const bids = scaledLevels();
    const asks = scaledLevels();
    parseDepthSides([], [['1.005', '1']], bids, asks, viaScaled.priceScale, viaScaled.qtyScale);
    expect(() => viaStrings.applyLevels([], [['1.005', '1']])).toThrow(/safe-integer/);
    expect(() => viaScaled.applyScaled(bids, asks)).toThrow(/safe-integer/);
    expect(viaScaled.wireLevels()).toEqual(viaStrings.wireLevels());
  });

  it('views: best levels, band, depth within band, cost to fill', () => {
    const book = new OrderBook('X');
    book.loadSnapshot(10, [['100.5', '1'], ['100', '2'], ['99', '3']], [['101', '0.5'], ['102.25', '1.5'], ['110', '10']]);
    expect(book.bestBid()?.price.toFixed()).toBe('100.5');
    expect(book.bestAsk()?.qty.toFixed()).toBe('0.5');
    const band = book.band(new Decimal('99.5'), new Decimal('102.25'));
    expect(band.bids.map((l) => l.price.toFixed())).toEqual(['100.5', '100']);
    expect(band.asks.map((l) => l.price.toFixed())).toEqual(['101', '102.25']);
    expect(book.depthWithin('SELL', new Decimal('101'), new Decimal('103')).toFixed()).toBe('2');
    const cost = book.costToFill('BUY', new Decimal('1'));
    expect(cost.filledQty.toFixed()).toBe('1');
    expect(cost.quoteQty.toFixed()).toBe('101.625'); // 0.5*101 + 0.5*102.25
    expect(cost.avgPrice?.toFixed()).toBe('101.625');
    expect(cost.worstPrice?.toFixed()).toBe('102.25');
    const tooMuch = book.costToFill('SELL', new Decimal('100'));
    expect(tooMuch.filledQty.toFixed()).toBe('6');
    expect(book.isCrossed()).toBe(false);
    book.applyLevels([['101', '1']], []);
    expect(book.isCrossed()).toBe(true);
  });
});
