/**
 * Lines no strategy reads are skipped unread and change nothing: the market maker over the shared
 * BTCUSDT recording (73% of its lines are book tickers) gives the same result when it names the
 * events it reads (the tickers are dropped before parsing) as when it does not (every line is
 * read and delivered), apart from the count of replayed events. Skips when ../shared is absent.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBacktest, unreadEvents } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import marketMaker from '../../strategies/market-maker.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.resolve(repoRoot, '../shared/data');
const files = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(dataDir, f));
const present = files.every((f) => existsSync(f));

function config(): BacktestConfig {
  const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
  return { ...cfg, backtest: { ...cfg.backtest, output: undefined, recordings: [{ symbol: 'BTC_USDT', files }] } } as BacktestConfig;
}

describe('skipping unread streams', () => {
  it('a plugin that does not name its events keeps every line; one that does lets book tickers go', () => {
    expect([...unreadEvents([marketMaker])]).toEqual(['bookTicker', 'miniTicker', 'partialDepth']);
    expect(unreadEvents([marketMaker, { ...marketMaker, marketEvents: undefined }]).size).toBe(0);
    expect([...unreadEvents([marketMaker, { ...marketMaker, marketEvents: ['bookTicker'] }])]).toEqual(['miniTicker', 'partialDepth']);
  });

  it.skipIf(!present)('the market maker over the shared recording: the same result with the tickers skipped as with them read', async () => {
    const skipped = await runBacktest(config(), { plugins: { 'market-maker': marketMaker } });
    const read = await runBacktest(config(), { plugins: { 'market-maker': { ...marketMaker, marketEvents: undefined } } });
    expect(read.events - skipped.events).toBe(73_174);
    expect(skipped.fills.length).toBeGreaterThan(100);
    expect(JSON.stringify({ ...skipped, events: 0 })).toBe(JSON.stringify({ ...read, events: 0 }));
  });
});
