import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { FillRecord } from '../store/records.js';
import { positionsOf } from './runStatus.js';

const fill = (side: 'BUY' | 'SELL', qty: string, price: string, commission: string, asset: string, strategy = 's.1'): FillRecord => ({
  clientId: 'c',
  strategy,
  orderId: '1',
  symbol: 'BTC_USDT',
  side,
  tradeId: '1',
  price: new Decimal(price),
  qty: new Decimal(qty),
  quoteQty: new Decimal(qty).mul(price),
  commission: new Decimal(commission),
  commissionAsset: asset,
  isMaker: true,
  time: 0,
  source: 'test',
});

describe('positionsOf', () => {
  it('nets positions and cash exactly, fees in the asset they were paid in', () => {
    const books = positionsOf(
      [
        fill('BUY', '0.003', '60000.01', '0.000003', 'BTC'),
        fill('SELL', '0.001', '60010.02', '0.0450075', 'USDT'),
        fill('SELL', '0.001', '60010.02', '1', 'BNB'),
        fill('BUY', '5', '1', '0', 'USDT', 'other.1'),
      ],
      ['s.1'],
    );
    const b = books.get('s.1 BTC_USDT');
    expect(b?.position.toFixed()).toBe('0.000997');
    // -180.00003 + 60.01002 - 0.0450075 + 60.01002
    expect(b?.cash.toFixed()).toBe('-60.0249975');
    expect(b?.otherFees.get('BNB')?.toFixed()).toBe('1');
    expect(b?.fills).toBe(3);
    expect(books.has('other.1 BTC_USDT')).toBe(false);
  });
});
