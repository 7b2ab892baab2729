import { describe, expect, it } from 'vitest';
import type { FillCost } from '../core/bookView.js';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import { levels, StaticBook, walkLevels } from './testkit.js';

const key = (c: FillCost): string => [c.filledQty, c.quoteQty, c.avgPrice, c.worstPrice].map((d) => d?.toFixed() ?? '-').join('|');

describe('StaticBook.costToFill', () => {
  const book = new StaticBook(
    'BTC_IDR',
    levels([['999', '0.5'], ['998', '0'], ['997', '1.25'], ['990', '3']]),
    levels([['1001', '0.3'], ['1002', '0.7'], ['1003', '0'], ['1010', '2.5']]),
  );

  it('matches a level-by-level walk at level boundaries, inside levels, past the book and for zero or negative sizes', () => {
    const rnd = mulberry32(5);
    const sizes = ['0', '-1', '0.3', '1', '1.0000001', '3.5', '4.75', '100', '0.5', '1.75', '0.0000001'];
    for (let i = 0; i < 200; i++) sizes.push((rnd() * 6).toFixed(1 + Math.floor(rnd() * 6)));
    for (const s of sizes) {
      expect(key(book.costToFill('BUY', new Decimal(s))), `BUY ${s}`).toBe(key(walkLevels(book.asks, new Decimal(s))));
      expect(key(book.costToFill('SELL', new Decimal(s))), `SELL ${s}`).toBe(key(walkLevels(book.bids, new Decimal(s))));
    }
  });

  it('fills nothing from an empty side', () => {
    const empty = new StaticBook('X_Y', [], []);
    const c = empty.costToFill('BUY', new Decimal('1'));
    expect([c.filledQty.toFixed(), c.quoteQty.toFixed(), c.avgPrice, c.worstPrice]).toEqual(['0', '0', undefined, undefined]);
  });
});
