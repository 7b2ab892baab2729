/**
 * Exchange-wide filters in a backtest over the bundled recording: the risk gate counts the run's
 * open orders against EXCHANGE_MAX_NUM_ORDERS before the engine sees them, so a strategy that
 * wants ten resting orders never has more than the configured two and hears why. The same holds
 * in candle mode, whose venue keeps its own resting orders.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, parseBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy } from '../../src/strategy/types.js';

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

describe('exchange-wide filters in a candle-mode backtest', () => {
  it('EXCHANGE_MAX_NUM_ORDERS counts the orders resting at the candle venue, as live', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-candle-filters-'));
    try {
      const t0 = Date.UTC(2024, 7, 1);
      // Four bars around 100 that never come down to the 50 the orders rest at.
      const bars = [0, 1, 2, 3].map((i) => `${t0 + i * 60_000},100,101,99,100,1.0,${t0 + i * 60_000 + 59_999},1.0,1,0.5,0.5,0`);
      writeFileSync(path.join(dir, 'k.csv'), `${bars.join('\n')}\n`);
      // One resting buy per bar, none ever filled or cancelled.
      const plugin = defineStrategy({
        name: 'stacker',
        description: 'one resting buy per bar',
        params: z.object({}),
        create: (ctx) => ({
          onEvent(e) {
            if (e.type === 'kline') ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('50'), quantity: new Decimal('1') });
          },
        }),
      });
      const run = async (exchangeFilters: unknown[]) => {
        const cfg = parseBacktestConfig(
          { exchangeFilters, strategies: [{ name: 's', plugin: 'p', symbols: ['BTC_USDT'], budget: { USDT: '10000' } }], backtest: { candles: [{ symbol: 'BTC_USDT', interval: '1m', files: ['k.csv'] }] } },
          path.join(dir, 'bt.yaml'),
        );
        return (await runBacktest(cfg, { plugins: { p: plugin }, writeOutput: false })).strategies.s!;
      };
      const free = await run([]);
      const capped = await run([{ filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: 2 }]);
      expect(free.orders).toBe(4);
      expect(free.riskRejections).toBe(0);
      // Two rest; the third and fourth are refused before reaching the venue, as the exchange would.
      expect(capped.riskRejections).toBe(2);
      expect(capped.orders).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
