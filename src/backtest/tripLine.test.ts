import { describe, expect, it } from 'vitest';
import type { RoundTrip } from './result.js';
import { TripLines } from './tripLine.js';

function trip(over: Partial<RoundTrip>): RoundTrip {
  return { strategy: 'sma', symbol: 'BTC_USDT', side: 'LONG', entryT: 1722470459999, exitT: 1722470519999, qty: '0.1', entryPrice: '64628.01', exitPrice: '64700', pnl: '-5.723', fees: '12.93', returnPct: -0.0885551, ...over };
}

describe('round trip JSON lines', () => {
  it('are what JSON.stringify gives for the RoundTrip, names escaped, odd numbers included', () => {
    const lines = new TripLines();
    const cases = [
      trip({}),
      trip({ side: 'SHORT', strategy: 'a "quoted"\\name\n', symbol: 'ÉTH_€', returnPct: 0 }),
      trip({ entryT: Number.NaN, exitT: -0, entryPrice: 'NaN', returnPct: Number.POSITIVE_INFINITY }),
      trip({ returnPct: 1e-7, entryT: 1e21, pnl: '-0.000000000001' }),
    ];
    for (const t of [...cases, ...cases]) expect(lines.line(t)).toBe(JSON.stringify(t));
  });
});
