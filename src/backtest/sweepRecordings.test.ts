import { describe, expect, it } from 'vitest';
import type { StrategyMetrics } from './result.js';
import { combineMetrics, recordingsTable } from './sweepRecordings.js';

function metrics(over: Partial<StrategyMetrics>): StrategyMetrics {
  return {
    quoteAsset: 'USDT',
    initialEquity: '10000',
    finalEquity: '10000',
    realizedPnl: '0',
    unrealizedPnl: '0',
    fees: '0',
    netPnl: '0',
    returnPct: 0,
    maxDrawdown: '0',
    maxDrawdownPct: 0,
    sharpePerPeriod: 0.5,
    sortinoPerPeriod: 0.6,
    sharpe: null,
    sortino: null,
    ratioSample: { returns: 100, intervalMs: 1000, spanMs: 100_000 },
    ratioNotes: {},
    turnover: '0',
    turnoverRatio: 0,
    orders: 0,
    ordersFilled: 0,
    ordersCanceled: 0,
    ordersRejected: 0,
    ordersOpen: 0,
    riskRejections: 0,
    trades: 0,
    fillRatio: 0,
    qtyFillRatio: 0,
    positions: {},
    ...over,
  } as StrategyMetrics;
}

describe('combining a point run on several recordings', () => {
  it('adds money exactly and counts, keeps the worst drawdown, weights fill ratios by orders', () => {
    const a = metrics({ netPnl: '0.1', realizedPnl: '0.3', unrealizedPnl: '-0.2', fees: '0.05', turnover: '100.1', maxDrawdown: '3', maxDrawdownPct: 0.03, orders: 10, ordersFilled: 4, trades: 6, fillRatio: 0.4, qtyFillRatio: 0.5, positions: { BTC_USDT: '0.001' } });
    const b = metrics({ netPnl: '0.2', realizedPnl: '0.2', unrealizedPnl: '0', fees: '0.07', turnover: '50.2', maxDrawdown: '5', maxDrawdownPct: 0.05, orders: 30, ordersFilled: 3, trades: 3, fillRatio: 0.1, qtyFillRatio: 0.2, positions: { BTC_USDT: '0.002', ETH_USDT: '1' } });
    const c = combineMetrics([a, b]);
    expect(c).toMatchObject({ netPnl: '0.3', realizedPnl: '0.5', unrealizedPnl: '-0.2', fees: '0.12', turnover: '150.3', finalEquity: '10000.3', returnPct: 0.003, maxDrawdown: '5', maxDrawdownPct: 0.05, orders: 40, ordersFilled: 7, trades: 9, fillRatio: 0.175, qtyFillRatio: 0.275, positions: { BTC_USDT: '0.003', ETH_USDT: '1' } });
    expect(c.turnoverRatio).toBe(0.01503);
    // Ratios of separate runs do not add up: n/a, with the reason the report prints.
    expect([c.sharpe, c.sortino, c.sharpePerPeriod, c.sortinoPerPeriod]).toEqual([null, null, null, null]);
    expect(c.ratioNotes.sharpe).toMatch(/not combined across 2 separate runs/);
    expect(c.ratioSample).toEqual({ returns: 200, intervalMs: 1000, spanMs: 200_000 });
  });

  it('one run is itself', () => {
    const a = metrics({ netPnl: '1' });
    expect(combineMetrics([a])).toBe(a);
    expect(() => combineMetrics([])).toThrow(RangeError);
  });

  it('lists each recording of each point in rank order', () => {
    const t = recordingsTable([{ rank: 1, params: { x: 1 }, recordings: [{ file: '/d/a.gz', metrics: metrics({ netPnl: '0.1', trades: 2 }) }, { file: '/d/b.gz', metrics: undefined, error: 'boom | bad' }] }]);
    expect(t).toContain('| 1 | {"x":1} | /d/a.gz | 0.1 | 0 | 0 | 0 | 2 |');
    expect(t).toContain('| 1 | {"x":1} | /d/b.gz | FAILED: boom \\| bad |');
    expect(recordingsTable([{ rank: 1, params: {} }])).toBe('');
  });
});
