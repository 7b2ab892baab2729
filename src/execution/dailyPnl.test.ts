import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { DailyPnl } from './dailyPnl.js';

const fill = (side: 'BUY' | 'SELL', qty: string, price: string, strategy: string) => ({ strategy, symbol: 'BTC_USDT', side, qty: new Decimal(qty), quoteQty: new Decimal(qty).mul(price), commission: new Decimal(0), commissionAsset: 'USDT' });

describe('DailyPnl', () => {
  it('marks the day\'s fills to market per strategy and resets at 00:00 UTC', () => {
    const d = new DailyPnl();
    const day = Date.UTC(2026, 0, 5);
    d.add(day + 1000, fill('BUY', '0.01', '60000', 's.1'));
    d.add(day + 2000, fill('BUY', '1', '1', 'other.1'));
    const mark = () => new Decimal('59000');
    // Bought 0.01 at 60000, marked at 59000: -10.
    expect(d.of('s.1', day + 3000, mark).toFixed()).toBe('-10');
    expect(d.of('s', day + 3000, mark).toFixed()).toBe('0');
    expect(d.of('s.1', day + 86_400_000, mark).toFixed()).toBe('0');
  });
});
