import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT as projectRoot } from '../strategy/loader.js';
import { prepareRun, sourcesOf } from './Backtest.js';
import { parseBacktestConfig } from './config.js';

/**
 * The daily PnL is fed fills only when a daily loss limit can ask for it (Backtest.ts): with one
 * configured (run-wide or per strategy) the limit still sees the day's fills and stops the
 * strategy's non-reducing orders once they lost.
 */
describe('backtest daily loss limit', () => {
  const run = async (risk: Record<string, unknown>, own?: Record<string, unknown>): Promise<Record<string, number>> => {
    const cfg = parseBacktestConfig(
      {
        mode: 'backtest',
        name: 'daily',
        symbols: { BTC_USDT: { filters: [{ filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' }, { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.000001' }] } },
        strategies: [{ name: 'p', plugin: 'periodic-orders', symbols: ['BTC_USDT'], budget: { USDT: '100000', BTC: '1' }, params: { every: 5, quantity: '0.001', offsetTicks: 0, maxOpen: 4 }, ...(own ? { risk: own } : {}) }],
        risk: { mode: 'reject', ...risk },
        backtest: { recordings: [{ symbol: 'BTC_USDT', files: [path.join(projectRoot, 'backtest-data/btcusdt-sample.ndjson.gz')] }], fees: { makerBps: 10, takerBps: 10 }, balances: { USDT: '100000', BTC: '1' } },
      },
      path.join(projectRoot, 'bt.yaml'),
    );
    const r = await prepareRun(cfg);
    const reasons: Record<string, number> = {};
    r.bus.events$.subscribe((e) => {
      if (e.type === 'intentRejected') reasons[e.reason] = (reasons[e.reason] ?? 0) + 1;
      if (e.type === 'fill') reasons['fill'] = (reasons['fill'] ?? 0) + 1;
    });
    await r.replay.run(sourcesOf(cfg));
    r.finish();
    return reasons;
  };

  it('sees the fills when a limit is configured, run-wide or per strategy', async () => {
    const none = await run({});
    expect(none['fill'] ?? 0).toBeGreaterThan(0);
    expect(none['DAILY_LOSS_LIMIT']).toBeUndefined();
    // Fees alone make the day's PnL negative after the first fill.
    expect((await run({ dailyLossLimit: '0.000001' }))['DAILY_LOSS_LIMIT'] ?? 0).toBeGreaterThan(0);
    expect((await run({}, { dailyLossLimit: '0.000001' }))['DAILY_LOSS_LIMIT'] ?? 0).toBeGreaterThan(0);
  });
});
