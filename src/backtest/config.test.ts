import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { loadBacktestConfig, parseBacktestConfig } from './config.js';

const base = {
  mode: 'backtest',
  symbols: { BTC_USDT: { filters: [] } },
  strategies: [{ name: 's', plugin: 'market-maker', symbols: ['BTC_USDT'] }],
  backtest: { recordings: [{ symbol: 'BTC_USDT', files: ['data/x.gz'] }] },
};

describe('backtest config', () => {
  it('resolves files against the config folder and fills defaults', () => {
    const c = parseBacktestConfig(base, '/cfg/dir/bt.yaml');
    expect(c.backtest.recordings[0]?.files).toEqual([path.resolve('/cfg/dir/data/x.gz')]);
    expect(c.backtest.latency).toEqual({ entryMs: 4, cancelMs: 4, ackMs: 4, streamHoldMs: 0, seed: 1 });
    expect(c.backtest.feed).toEqual({ time: 'receive', windowMs: 30_000, maxExchangeLagMs: 1000 });
    expect(c.risk.mode).toBe('reject');
    expect(c.name).toBe('backtest');
  });

  it('names the file, the path and the value on errors', () => {
    const bad = { ...base, backtest: { ...base.backtest, latency: { entryMs: -5 } } };
    expect(() => parseBacktestConfig(bad, 'bt.yaml')).toThrow(ConfigError);
    expect(() => parseBacktestConfig(bad, 'bt.yaml')).toThrow(/bt\.yaml: backtest\.latency\.entryMs=-5/);
    expect(() => parseBacktestConfig({ ...base, strategies: [{ ...base.strategies[0], symbols: ['BTCUSDT'] }] }, 'bt.yaml')).toThrow(/strategies\[0\]\.symbols\[0\]="BTCUSDT"/);
    expect(() => parseBacktestConfig({ ...base, backtest: {} }, 'bt.yaml')).toThrow(/needs recordings or candles/);
    expect(() => parseBacktestConfig({ ...base, symbols: {} }, 'bt.yaml')).toThrow(/not listed under symbols/);
  });

  it('accepts backtest.warmup as a duration or a whole number of bars, and names the value it refuses', () => {
    const withWarmup = (warmup: unknown) => parseBacktestConfig({ ...base, backtest: { ...base.backtest, warmup } }, 'bt.yaml');
    expect(withWarmup('2h').backtest.warmup).toBe('2h');
    expect(withWarmup(50).backtest.warmup).toBe(50);
    expect(parseBacktestConfig(base, 'bt.yaml').backtest.warmup).toBeUndefined();
    for (const bad of [0, 1.5, '2 h', '2x', '', true]) {
      expect(() => withWarmup(bad)).toThrow(new RegExp(`bt\\.yaml: backtest\\.warmup=${JSON.stringify(bad).replace('.', '\\.')}: expected a duration such as 90m, 2h or 1d, or a whole number of bars`));
    }
  });

  it('accepts backtest.start as epoch ms or ISO 8601, and refuses a start after backtest.end naming both', () => {
    const withBounds = (bounds: Record<string, unknown>) => parseBacktestConfig({ ...base, backtest: { ...base.backtest, ...bounds } }, 'bt.yaml');
    expect(withBounds({ start: 1723161315000 }).backtest.start).toBe(1723161315000);
    expect(withBounds({ start: '2024-08-08T23:55:15Z', end: 1723161315000 }).backtest.start).toBe('2024-08-08T23:55:15Z');
    // start equal to end is one instant: allowed.
    expect(withBounds({ start: 1723161315000, end: '2024-08-08T23:55:15.000Z' }).backtest.end).toBe('2024-08-08T23:55:15.000Z');
    expect(() => withBounds({ start: 1723161315001, end: 1723161315000 })).toThrow(ConfigError);
    expect(() => withBounds({ start: 1723161315001, end: 1723161315000 })).toThrow(/bt\.yaml: backtest\.start=1723161315001: after backtest\.end \(1723161315000\)/);
    // Mixed spellings are compared as times (epoch ms against ISO text).
    expect(() => withBounds({ start: '2024-08-08T23:55:16Z', end: 1723161315000 })).toThrow(/backtest\.start="2024-08-08T23:55:16Z": after backtest\.end/);
    expect(() => withBounds({ start: 1723161316000, end: '2024-08-08T23:55:15Z' })).toThrow(/backtest\.start=1723161316000: after backtest\.end \("2024-08-08T23:55:15Z"\)/);
    expect(() => withBounds({ start: -1 })).toThrow(/backtest\.start=-1/);
    expect(() => withBounds({ start: 'yesterday' })).toThrow(/backtest\.start="yesterday"/);
  });

  it.each(['grid-trader.yaml', 'market-maker.yaml', 'sma-crossover.yaml'])('loads config/%s through the one schema', (f) => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    const c = loadBacktestConfig(path.join(root, 'config', f));
    expect(c.mode).toBe('backtest');
    expect(c.backtest.recordings.length + c.backtest.candles.length).toBeGreaterThan(0);
    expect(() => loadBacktestConfig(path.join(root, 'config/default.yaml'))).toThrow(/default\.yaml: mode="paper": expected backtest here \(use kancil run\) \(line \d+/);
  });
});
