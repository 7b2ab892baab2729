/**
 * The result's accounting is consistent with its own fill list: two strategies over the bundled
 * recording, a market maker and a market taker (both pay a fee, so fees are not all zero), and every money figure
 * of each strategy and of the total recomputed here, independently, in decimal.js from
 * `result.fills` with the average-cost rule: position (net of base-asset fees: what the account
 * holds), trades, turnover, fees (base-asset fees valued at the fill price), realized PnL; net =
 * realized + unrealized - fees; final equity = initial + net; the total is the sum of the
 * strategies; order counts add up.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alternatingTaker } from '../support/alternatingTaker.js';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import type { BacktestResult, StrategyMetrics } from '../../src/backtest/ResultCollector.js';
import { Decimal } from '../../src/core/decimal.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const taker = alternatingTaker();

function config(): BacktestConfig {
  const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
  const mm = cfg.strategies[0]!;
  return {
    ...cfg,
    strategies: [
      { ...mm, name: 'maker' },
      { ...mm, name: 'taker', plugin: 'taker', params: {} },
    ],
    backtest: { ...cfg.backtest, output: undefined, fees: { makerBps: 2, takerBps: 7.5 } },
  } as BacktestConfig;
}

interface Recomputed {
  qty: Decimal;
  avg: Decimal;
  realized: Decimal;
  fees: Decimal;
  turnover: Decimal;
  trades: number;
}

/** Moves a plain average-cost position by a signed quantity at a price (the reference rule). */
function move(a: Recomputed, signed: Decimal, price: Decimal): void {
  if (a.qty.isZero() || a.qty.isPositive() === signed.isPositive()) {
    const n = a.qty.plus(signed);
    a.avg = a.qty.abs().mul(a.avg).plus(signed.abs().mul(price)).div(n.abs());
    a.qty = n;
  } else {
    const closing = Decimal.min(a.qty.abs(), signed.abs());
    a.realized = a.realized.plus((a.qty.isPositive() ? price.minus(a.avg) : a.avg.minus(price)).mul(closing));
    const n = a.qty.plus(signed);
    if (n.isZero()) a.avg = new Decimal(0);
    else if (n.isPositive() !== a.qty.isPositive()) a.avg = price;
    a.qty = n;
  }
}

/**
 * Average-cost accounting of one strategy's fills, written out plainly (the reference). A fee
 * charged in the base asset leaves the account that much less base: it leaves the position as a
 * sale at the fill price whose proceeds are the fee, so the position is what the account holds.
 */
function recompute(r: BacktestResult, strategy: string): Recomputed {
  const a: Recomputed = { qty: new Decimal(0), avg: new Decimal(0), realized: new Decimal(0), fees: new Decimal(0), turnover: new Decimal(0), trades: 0 };
  for (const f of r.fills.filter((x) => x.strategy === strategy)) {
    const price = new Decimal(f.price);
    const qty = new Decimal(f.qty);
    a.trades++;
    a.turnover = a.turnover.plus(price.mul(qty));
    expect(['BTC', 'USDT']).toContain(f.feeAsset);
    a.fees = a.fees.plus(f.feeAsset === 'BTC' ? new Decimal(f.fee).mul(price) : new Decimal(f.fee));
    move(a, f.side === 'BUY' ? qty : qty.neg(), price);
    if (f.feeAsset === 'BTC' && !new Decimal(f.fee).isZero()) move(a, new Decimal(f.fee).neg(), price);
  }
  return a;
}

const TEN_DP = new Decimal('1e-10');

function expectConsistent(m: StrategyMetrics, a: Recomputed): void {
  expect(m.trades).toBe(a.trades);
  expect(m.positions.BTC_USDT).toBe(a.qty.toFixed());
  expect(m.turnover).toBe(a.turnover.toFixed());
  expect(m.fees).toBe(a.fees.toFixed());
  expect(m.realizedPnl).toBe(a.realized.toDecimalPlaces(10).toFixed());
  // realized and unrealized are shown to 10 decimals; net is exact.
  const net = new Decimal(m.netPnl);
  expect(new Decimal(m.realizedPnl).plus(m.unrealizedPnl).minus(m.fees).minus(net).abs().lte(TEN_DP)).toBe(true);
  expect(new Decimal(m.finalEquity).minus(m.initialEquity).eq(net)).toBe(true);
  expect(m.orders).toBe(m.ordersFilled + m.ordersCanceled + m.ordersRejected + m.ordersOpen);
}

describe('backtest accounting', () => {
  it('every figure of each strategy and of the total follows from the fill list', async () => {
    const r = await runBacktest(config(), { plugins: { taker }, writeOutput: false });
    const names = Object.keys(r.strategies);
    expect(names).toEqual(['maker', 'taker']);
    const per = names.map((n) => recompute(r, n));
    for (const [i, n] of names.entries()) {
      const m = r.strategies[n]!;
      expect(m.trades).toBeGreaterThan(3);
      expectConsistent(m, per[i]!);
    }
    // Both maker and taker fills happened, and fees were charged in both assets.
    expect(new Set(r.fills.map((f) => f.maker))).toEqual(new Set([true, false]));
    expect(new Set(r.fills.map((f) => f.feeAsset))).toEqual(new Set(['BTC', 'USDT']));

    // The total is the sum of the strategies.
    const t = r.total!;
    const sum = (k: 'netPnl' | 'fees' | 'turnover' | 'initialEquity' | 'finalEquity') => names.reduce((acc, n) => acc.plus(r.strategies[n]![k]), new Decimal(0)).toFixed();
    for (const k of ['netPnl', 'fees', 'turnover', 'initialEquity', 'finalEquity'] as const) expect(t[k]).toBe(sum(k));
    expect(t.trades).toBe(r.fills.length);
    expect(t.orders).toBe(names.reduce((acc, n) => acc + r.strategies[n]!.orders, 0));
    expect(t.positions.BTC_USDT).toBe(per.reduce((acc, a) => acc.plus(a.qty), new Decimal(0)).toFixed());
    expect(t.ordersOpen).toBe(r.openOrders.length);
  });
});
