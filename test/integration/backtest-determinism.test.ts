/**
 * A backtest is deterministic: the same config and data give byte-identical result JSON and HTML
 * reports. Runs the bundled examples (tick data through the matching engine, and candles).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { renderHtmlReport } from '../../src/backtest/htmlReport.js';

const root = path.resolve(import.meta.dirname, '../..');

async function twice(file: string) {
  const cfg = loadBacktestConfig(path.join(root, file));
  const a = await runBacktest(cfg, { writeOutput: false });
  const b = await runBacktest(cfg, { writeOutput: false });
  return { a, b };
}

describe('backtest determinism', () => {
  it('market maker over the bundled recording: identical bytes, and it really traded', async () => {
    const { a, b } = await twice('config/market-maker.yaml');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(renderHtmlReport(b)).toBe(renderHtmlReport(a));
    const mm = a.strategies.mm!;
    expect(mm.trades).toBeGreaterThan(10);
    expect(mm.orders).toBeGreaterThan(mm.trades / 10);
    // Net PnL equals final minus initial equity, exactly.
    expect(Number(mm.finalEquity) - Number(mm.initialEquity)).toBeCloseTo(Number(mm.netPnl), 9);
    // Event time never runs backwards in what the report saw.
    for (let i = 1; i < a.fills.length; i++) expect(a.fills[i]!.t).toBeGreaterThanOrEqual(a.fills[i - 1]!.t);
    // The maximum position of the strategy holds.
    expect(Number(mm.positions.BTC_USDT)).toBeLessThanOrEqual(0.01);
  });

  it('grid trader over the bundled recording: identical bytes', async () => {
    const { a, b } = await twice('config/grid-trader.yaml');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.strategies.grid!.trades).toBeGreaterThan(0);
  });

  it('SMA crossover over bundled candles: identical bytes, fills at next bar open', async () => {
    const { a, b } = await twice('config/sma-crossover.yaml');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.fills.length).toBeGreaterThan(10);
    // Market orders fill at a bar open: every fill time is a whole minute.
    for (const f of a.fills) expect(f.t % 60_000).toBe(0);
  });
});
