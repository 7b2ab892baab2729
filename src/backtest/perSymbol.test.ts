import { describe, expect, it } from 'vitest';
import { PerSymbolBuilder } from './perSymbol.js';
import type { ReportFill, RoundTrip } from './result.js';

const fill = (t: number, symbol: string, side: 'BUY' | 'SELL', qty: string, fee = '0', feeAsset: string | null = null): ReportFill => ({ t, strategy: 's', symbol, side, price: '100', qty, fee, feeAsset, maker: true });
const trip = (symbol: string, pnl: string): RoundTrip => ({ strategy: 's', symbol, side: 'LONG', entryT: 0, exitT: 1, qty: '1', entryPrice: '1', exitPrice: '1', pnl, fees: '0', returnPct: 0 });

describe('PerSymbolBuilder', () => {
  it('inventory over the run: largest position, time-weighted mean, time long and short', () => {
    const b = new PerSymbolBuilder({ start: 0, end: 100 });
    // BTC: flat 0-10, long 2 (fee 0.01 BTC: 1.99 held) 10-40, short 1.01 40-90, flat 90-100
    b.fill(fill(10, 'BTC_USDT', 'BUY', '2', '0.01', 'BTC'));
    b.fill(fill(40, 'BTC_USDT', 'SELL', '3'));
    b.fill(fill(90, 'BTC_USDT', 'BUY', '1.01'));
    // ETH: long 1 from 50 to the end
    b.fill(fill(50, 'ETH_USDT', 'BUY', '1'));
    b.trip(trip('BTC_USDT', '5'));
    b.trip(trip('BTC_USDT', '-7.5'));
    const s = b.stats();
    expect(Object.keys(s)).toEqual(['BTC_USDT', 'ETH_USDT']);
    expect(s.BTC_USDT).toEqual({ roundTrips: 2, wins: 1, netPnl: '-2.5', maxAbsPosition: '1.99', meanAbsPosition: (1.99 * 30 + 1.01 * 50) / 100, longPct: 30, shortPct: 50, inventory: [{ t: 10, q: 1.99 }, { t: 40, q: -1.01 }, { t: 90, q: 0 }, { t: 100, q: 0 }] });
    expect(s.ETH_USDT).toEqual({ roundTrips: 0, wins: 0, netPnl: '0', maxAbsPosition: '1', meanAbsPosition: 0.5, longPct: 50, shortPct: 0, inventory: [{ t: 50, q: 1 }, { t: 100, q: 1 }] });
  });
});
