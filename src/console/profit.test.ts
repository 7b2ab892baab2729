import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import type { FillRecord } from '../store/records.js';
import { profitByDay, profitByStrategy } from './profit.js';

const DAY = 86_400_000;
const t0 = Date.UTC(2026, 10, 24, 10);

function fill(strategy: string, symbol: string, side: 'BUY' | 'SELL', price: string, qty: string, time: number, fee = '0', feeAsset: string | null = null): FillRecord {
  return { clientId: `${strategy}-${time}`, strategy, orderId: String(time), symbol, side, tradeId: String(time), price: new Decimal(price), qty: new Decimal(qty), quoteQty: new Decimal(price).mul(qty), commission: new Decimal(fee), commissionAsset: feeAsset, isMaker: false, time, source: 'sim' };
}

const fills = [
  fill('mm', 'BTC_USDT', 'BUY', '60000.1', '0.01', t0, '0.0000075', 'BTC'),
  fill('mm', 'BTC_USDT', 'SELL', '60010.3', '0.005', t0 + 1000, '0.2', 'USDT'),
  fill('grid', 'BTC_IDR', 'BUY', '1000000000', '0.001', t0 + 2000),
  fill('mm', 'BTC_USDT', 'SELL', '59990.7', '0.004', t0 + DAY, '0.1', 'BNB'),
  fill('grid', 'BTC_IDR', 'SELL', '1000500000', '0.001', t0 + 2 * DAY),
];

describe('profit from fills', () => {
  it('per strategy and symbol: cash plus the position at the last fill price, fees in the pair deducted, others apart', () => {
    const rows = profitByStrategy(fills);
    const mm = rows.find((r) => r.strategy === 'mm');
    // position 0.01 - 0.0000075 - 0.005 - 0.004 = 0.0009925; cash -600.001 + 300.0515 - 0.2 + 239.9628 = -60.1867
    expect(mm?.position).toBe('0.0009925');
    expect(mm?.mark).toBe('59990.7');
    expect(mm?.pnl).toBe(new Decimal('-60.1867').plus(new Decimal('0.0009925').mul('59990.7')).toFixed());
    expect(mm?.otherFees).toEqual({ BNB: '0.1' });
    expect(mm?.quote).toBe('USDT');
    expect(rows.find((r) => r.strategy === 'grid')?.pnl).toBe('500');
  });

  it('per day: each quote asset apart, and the days add up to the total', () => {
    const days = profitByDay(fills);
    expect(days.map((d) => `${d.day} ${d.quote} ${d.fills}`)).toEqual(['2026-11-24 USDT 2', '2026-11-24 IDR 1', '2026-11-25 USDT 1', '2026-11-26 IDR 1']);
    for (const quote of ['USDT', 'IDR']) {
      const sum = days.filter((d) => d.quote === quote).reduce((a, d) => a.plus(d.pnl), ZERO);
      const total = profitByStrategy(fills).filter((r) => r.quote === quote).reduce((a, r) => a.plus(r.pnl), ZERO);
      expect(sum.toFixed()).toBe(total.toFixed());
    }
  });

  it('a live mark replaces the last fill price', () => {
    expect(profitByStrategy(fills, (s) => (s === 'BTC_IDR' ? new Decimal('1000000000') : undefined)).find((r) => r.strategy === 'grid')?.pnl).toBe('500');
    expect(profitByStrategy([fills[2] as FillRecord], () => new Decimal('1100000000'))[0]?.pnl).toBe('100000');
  });
});
