import { describe, expect, it } from 'vitest';
import { roundTrips } from './roundTrips.js';
import { exposureMs, tradeStats } from './tearsheet.js';
import type { ReportFill, StrategyMetrics } from './result.js';

const fill = (t: number, side: 'BUY' | 'SELL', qty: string, price: string, fee: string, feeAsset: string | null): ReportFill => ({ t, strategy: 's', symbol: 'BTC_USDT', side, price, qty, fee, feeAsset, maker: false });

describe('roundTrips (FIFO)', () => {
  it('closes the oldest lots first, one trip per closing fill, fees of both legs in quote', () => {
    const trips = roundTrips([
      // bought 1 at 100 and 1 at 110 (fee 0.001 BTC each: 0.999 held each), then sold 1.5 at 120, then 0.498 at 90
      fill(0, 'BUY', '1', '100', '0.001', 'BTC'),
      fill(1000, 'BUY', '1', '110', '0.001', 'BTC'),
      fill(5000, 'SELL', '1.5', '120', '0.18', 'USDT'),
      fill(9000, 'SELL', '0.498', '90', '0.04482', 'USDT'),
    ]);
    expect(trips).toHaveLength(2);
    // 0.999 @100 + 0.501 @110 closed at 120: gross 0.999*20 + 0.501*10 = 24.99; entry fees 0.1 + 0.501/0.999*0.11; exit 0.18
    const t0 = trips[0];
    expect(t0).toMatchObject({ side: 'LONG', entryT: 0, exitT: 5000, qty: '1.5', exitPrice: '120' });
    expect(Number(t0?.entryPrice)).toBeCloseTo((0.999 * 100 + 0.501 * 110) / 1.5, 9);
    expect(Number(t0?.fees)).toBeCloseTo(0.1 + (0.501 / 0.999) * 0.11 + 0.18, 9);
    expect(Number(t0?.pnl)).toBeCloseTo(24.99 - (0.1 + (0.501 / 0.999) * 0.11 + 0.18), 9);
    // the rest of the second lot: 0.498 @110 sold at 90
    expect(trips[1]).toMatchObject({ entryT: 1000, exitT: 9000, qty: '0.498' });
    expect(Number(trips[1]?.pnl)).toBeLessThan(0);
  });

  it('a fill larger than the position closes it and opens the other side (short)', () => {
    const trips = roundTrips([fill(0, 'BUY', '1', '100', '0', null), fill(1, 'SELL', '3', '100', '0', null), fill(2, 'BUY', '2', '90', '0', null)]);
    expect(trips.map((t) => [t.side, t.qty, t.pnl])).toEqual([
      ['LONG', '1', '0'],
      ['SHORT', '2', '20'],
    ]);
  });
});

const NO_CURVE = { curve: [], intervalMs: 1000 };

describe('tradeStats', () => {
  const m = { initialEquity: '1000', finalEquity: '1010', maxDrawdownPct: 4 } as StrategyMetrics;
  it('win rate, profit factor, expectancy, streak and exposure from the trips and fills', () => {
    const fills = [fill(0, 'BUY', '1', '100', '0', null), fill(10, 'SELL', '1', '110', '0', null), fill(20, 'BUY', '1', '100', '0', null), fill(30, 'SELL', '1', '97', '0', null), fill(40, 'BUY', '1', '100', '0', null), fill(50, 'SELL', '1', '99', '0', null)];
    const s = tradeStats(roundTrips(fills), fills, m, { start: 0, end: 100 }, 'BTC_USDT', { first: 100, last: 105 }, NO_CURVE);
    expect(s).toMatchObject({ roundTrips: 3, wins: 1, losses: 2, winRatePct: 33.33333333, profitFactor: 2.5, expectancy: '2', avgWin: '10', avgLoss: '-2', largestWin: '10', largestLoss: '-3', maxConsecutiveLosses: 2, avgHoldingMs: 10, exposurePct: 30, buyHoldReturnPct: 5, cagrPct: null });
    expect(s.cagrNote).toMatch(/under 30/);
    expect(s.calmar).toBeNull();
    expect(s.calmarNote).toMatch(/no CAGR: run spans/);
    expect(exposureMs([fill(5, 'BUY', '1', '1', '0', null)], 0, 100)).toBe(95);
    // every trip held 10 ms: all in the first bucket, one winner and two losers
    expect([s.avgWinHoldingMs, s.avgLossHoldingMs]).toEqual([10, 10]);
    expect(s.holdingTimes[0]).toEqual({ label: '< 1 min', count: 3, wins: 1, losses: 2 });
    expect(s.monthlyReturns).toEqual([]);
  });

  it('compounds to a year only over a long enough run, and has no figures without trips', () => {
    const year = 365 * 86_400_000;
    const s = tradeStats([], [], m, { start: 0, end: year / 2 }, undefined, { first: undefined, last: undefined }, NO_CURVE);
    expect(s.cagrPct).toBeCloseTo((1.01 ** 2 - 1) * 100, 6);
    // Calmar: CAGR 2.01 % over a 4 % deepest drawdown
    expect(s.calmar).toBeCloseTo(2.01 / 4, 9);
    expect([s.winRatePct, s.profitFactor, s.expectancy, s.avgHoldingMs, s.buyHoldReturnPct]).toEqual([null, null, null, null, null]);
  });
});

describe('tradeStats over the equity curve', () => {
  it('gives the drawdown periods and the return distribution of the curve it is handed', () => {
    const m = { initialEquity: '100', finalEquity: '100', maxDrawdownPct: 0 } as StrategyMetrics;
    // 40 samples one second apart: 100, then 99 and 100 in turn (-1 % and +1.0101 % returns)
    const curve = Array.from({ length: 40 }, (_, i) => ({ t: i * 1000, equity: i % 2 === 0 ? 100 : 99 }));
    const s = tradeStats([], [], m, { start: 0, end: 39_000 }, undefined, { first: undefined, last: undefined }, { curve, intervalMs: 1000 });
    expect(s.drawdowns).toHaveLength(5);
    expect(s.drawdowns[0]).toEqual({ start: 0, trough: 1000, recovery: 2000, depth: 1, depthPct: 1, durationMs: 2000 });
    expect(s.longestDrawdownMs).toBe(2000);
    // 39 returns, 20 of -1 %: the 5th percentile and the mean of the tail are both -1 %
    expect(s.returns).toMatchObject({ var95Pct: -1, cvar95Pct: -1 });
    // from 100 to 99 at the last sample: -1 % in January 1970
    expect(s.monthlyReturns).toEqual([{ month: '1970-01', returnPct: -1 }]);
    expect(s.calmarNote).toMatch(/no CAGR/);
  });
});
