import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { BarBook } from './BarBook.js';

describe('BarBook', () => {
  it('reads a bar\'s close only when its level is read', () => {
    const b = new BarBook('BTC_USDT');
    let reads = 0;
    const bar = { get close() { reads++; return new Decimal('42'); }, closeTime: 5 };
    b.update(bar);
    expect([b.ready, b.lastUpdateId, reads]).toEqual([true, 5, 0]);
    expect(b.singlePrice()?.toFixed()).toBe('42');
    expect(reads).toBe(1);
  });

  it('is empty until the first bar, then one level at the last close on both sides', () => {
    const b = new BarBook('BTC_USDT');
    expect(b.ready).toBe(false);
    expect(b.bestBid()).toBeUndefined();
    expect(b.costToFill('BUY', new Decimal(1)).filledQty.toFixed()).toBe('0');
    b.update({ close: new Decimal('100.5'), closeTime: 60_000 });
    expect(b.ready).toBe(true);
    expect(b.bestBid()?.price.toFixed()).toBe('100.5');
    expect(b.bestAsk()?.price.toFixed()).toBe('100.5');
    expect(b.lastUpdateId).toBe(60_000);
  });

  it('follows each new close (no stale level after a read)', () => {
    const b = new BarBook('BTC_USDT');
    b.update({ close: new Decimal('100'), closeTime: 1 });
    expect(b.bestAsk()?.price.toFixed()).toBe('100');
    b.update({ close: new Decimal('101.25'), closeTime: 2 });
    expect(b.bestBid()?.price.toFixed()).toBe('101.25');
    expect(b.top(5).asks.map((l) => l.price.toFixed())).toEqual(['101.25']);
    expect(b.band(new Decimal(102), new Decimal(103)).bids).toEqual([]);
    const c = b.costToFill('BUY', new Decimal('2'));
    expect([c.filledQty, c.quoteQty, c.avgPrice].map((d) => d?.toFixed())).toEqual(['2', '202.5', '101.25']);
  });
});
