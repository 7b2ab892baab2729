/**
 * Exchange-wide filters in a backtest over the bundled recording: the risk gate counts the run's
 * open orders against EXCHANGE_MAX_NUM_ORDERS before the engine sees them, so a strategy that
 * wants ten resting orders never has more than the configured two and hears why.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function config(exchangeFilters: BacktestConfig['exchangeFilters']): BacktestConfig {
  const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
  return {
    ...cfg,
    exchangeFilters,
    strategies: [{ ...cfg.strategies[0]!, name: 'probe', plugin: path.join(repoRoot, 'strategies/periodic-orders.ts'), budget: { USDT: '100000', BTC: '1' }, params: { every: 20, quantity: '0.001', offsetTicks: 5, maxOpen: 10 } }],
    backtest: { ...cfg.backtest, output: undefined, balances: { USDT: '100000', BTC: '1' } },
  } as BacktestConfig;
}

describe('exchange-wide filters in a backtest', () => {
  it('EXCHANGE_MAX_NUM_ORDERS refuses orders beyond the account-wide limit before they reach the engine', async () => {
    const free = await runBacktest(config([]), { writeOutput: false });
    const capped = await runBacktest(config([{ filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: 2 }]), { writeOutput: false });
    const f = free.strategies.probe!;
    const c = capped.strategies.probe!;
    expect(f.riskRejections).toBe(0);
    expect(f.orders).toBeGreaterThan(10);
    expect(c.riskRejections).toBeGreaterThan(0);
    // Every order the gate let through was accepted by the engine (which enforces the same limit).
    expect(c.ordersRejected).toBe(0);
    expect(c.orders).toBeLessThan(f.orders);
  });
});
