/**
 * A backtest of trade recordings builds the bars a kline strategy reads from the recorded trades
 * (core/bars.ts): the same closed bars the sandbox's klines show a run against a replay of the
 * recording, and, on the 11-minute recording of ../shared/data, the exchange's own one-minute
 * klines of those minutes (its kline file).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import type { KlineEvent } from '../../src/core/marketEvents.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';
import { defineStrategy } from '../../src/strategy/types.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sample = path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz');
const shared = path.resolve(repoRoot, '../shared/data');
const sharedFiles = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(shared, f));
const klineFile = path.join(shared, 'binance_spot_btcusdt_1m_2024-08.csv.gz');

/** The closed bars a kline strategy of `intervals` is handed in a backtest of `files`. */
async function barsOf(files: string[], intervals: ('1m' | '5m')[]): Promise<KlineEvent[]> {
  const seen: KlineEvent[] = [];
  const spy = defineStrategy({
    name: 'bar-spy',
    description: 'records the klines it is handed',
    params: z.object({}),
    marketEvents: ['kline'],
    klineIntervals: () => intervals,
    create: () => ({
      onEvent: (e) => {
        if (e.type === 'kline') seen.push(e);
      },
    }),
  });
  const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
  const run = {
    ...cfg,
    strategies: [{ ...cfg.strategies[0], name: 'spy', plugin: 'spy', params: {} }],
    backtest: { ...cfg.backtest, recordings: [{ symbol: 'BTC_USDT', files }] },
  } as BacktestConfig;
  await runBacktest(run, { plugins: { spy }, writeOutput: false });
  return seen;
}

const row = (k: { openTime: number; open: Decimal; high: Decimal; low: Decimal; close: Decimal; volume: Decimal; trades: number; quoteVolume: Decimal; takerBuyBaseVolume: Decimal }): string[] =>
  [new Date(k.openTime).toISOString(), k.open, k.high, k.low, k.close, k.volume, k.trades, k.quoteVolume, k.takerBuyBaseVolume].map((x) => (x instanceof Decimal ? x.toFixed() : String(x)));

describe('bars from the trades of a recording', () => {
  it('are the closed bars the sandbox replaying the recording shows, whole minutes of the recording only', async () => {
    const bars = await barsOf([sample], ['1m']);
    expect(bars.every((b) => b.closed && b.interval === '1m' && b.symbol === 'BTC_USDT')).toBe(true);
    const sbx = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
      }),
    );
    try {
      await sbx.marketEnded;
      const want = sbx.state.market.closedKlines('BTC_USDT', '1m', undefined);
      expect(want.length).toBe(1);
      expect(bars.map(row)).toEqual(
        want.map((k) => row({ openTime: k.t, open: new Decimal(k.o), high: new Decimal(k.h), low: new Decimal(k.l), close: new Decimal(k.c), volume: new Decimal(k.v), trades: k.n, quoteVolume: new Decimal(k.q), takerBuyBaseVolume: new Decimal(k.V) })),
      );
    } finally {
      await sbx.stop();
    }
  });

  it('are built from a recording of aggregate trades (kancil download aggTrades) as from the trades themselves', async () => {
    // The sample's trades as aggregate trades, two consecutive trades of one price and side in one aggregate where they come so.
    const lines = gunzipSync(readFileSync(sample)).toString('utf8').split('\n');
    const out: string[] = [];
    let pending: { recv: string; d: Record<string, unknown> } | undefined;
    const flush = (): void => {
      if (pending === undefined) return;
      out.push(`${pending.recv} ${JSON.stringify({ stream: 'btcusdt@aggTrade', data: pending.d })}`);
      pending = undefined;
    };
    for (const line of lines) {
      const sp = line.indexOf(' ');
      if (sp < 0 || !line.includes('@trade"')) continue;
      const t = (JSON.parse(line.slice(sp + 1)) as { data: { E: number; s: string; t: number; p: string; q: string; T: number; m: boolean } }).data;
      const prev = pending?.d;
      if (prev !== undefined && prev.p === t.p && prev.m === t.m && prev.T === t.T && (prev.l as number) + 1 === t.t) {
        prev.l = t.t;
        prev.q = new Decimal(prev.q as string).plus(t.q).toFixed();
        continue;
      }
      flush();
      pending = { recv: line.slice(0, sp), d: { e: 'aggTrade', E: t.E, s: t.s, a: t.t, p: t.p, q: t.q, f: t.t, l: t.t, T: t.T, m: t.m, M: true } };
    }
    flush();
    expect(out.length).toBeGreaterThan(100);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-agg-'));
    try {
      const file = path.join(dir, 'agg.rec');
      writeFileSync(file, `${out.join('\n')}\n`);
      const fromTrades = await barsOf([sample], ['1m']);
      const fromAgg = await barsOf([file], ['1m']);
      expect(fromTrades.length).toBeGreaterThan(0);
      expect(fromAgg.map(row)).toEqual(fromTrades.map(row));
      expect(fromAgg.map((b) => [b.firstTradeId, b.lastTradeId])).toEqual(fromTrades.map((b) => [b.firstTradeId, b.lastTradeId]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a kline strategy over data with no trades and no candles is warned about in the result, not left silent', async () => {
    const lines = gunzipSync(readFileSync(sample)).toString('utf8').split('\n');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-nobars-'));
    try {
      const file = path.join(dir, 'depth-only.rec');
      writeFileSync(file, `${lines.filter((l) => !l.includes('@trade"') && !l.includes('@aggTrade"')).join('\n')}\n`);
      const cfg = loadBacktestConfig(path.join(repoRoot, 'config/sma-crossover.yaml'));
      const mm = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
      const run = { ...mm, strategies: [{ ...cfg.strategies[0], name: 'sma' }], backtest: { ...mm.backtest, recordings: [{ symbol: 'BTC_USDT', files: [file] }] } } as BacktestConfig;
      const result = await runBacktest(run, { writeOutput: false });
      expect(result.warnings).toEqual([expect.stringMatching(/^strategy sma reads klines \(1m\) of BTC_USDT but got none: backtest\.recordings has no candles and no trades/)]);
      const withTrades = await runBacktest({ ...run, backtest: { ...run.backtest, recordings: [{ symbol: 'BTC_USDT', files: [sample] }] } } as BacktestConfig, { writeOutput: false });
      expect(withTrades.warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!existsSync(klineFile) || !sharedFiles.every((f) => existsSync(f)))('on the 11-minute recording are the exchange klines of its whole minutes (needs ../shared/data)', async () => {
    const bars = await barsOf(sharedFiles, ['1m', '5m']);
    const minutes = bars.filter((b) => b.interval === '1m');
    const from = Date.UTC(2024, 7, 8, 23, 55);
    const csv = gunzipSync(readFileSync(klineFile))
      .toString('utf8')
      .split('\n')
      .map((l) => l.split(','))
      .filter((c) => Number(c[0]) >= from && Number(c[0]) < from + 10 * 60_000);
    expect(csv.length).toBe(10);
    expect(minutes.map(row)).toEqual(
      csv.map((c) => row({ openTime: Number(c[0]), open: new Decimal(c[1] as string), high: new Decimal(c[2] as string), low: new Decimal(c[3] as string), close: new Decimal(c[4] as string), volume: new Decimal(c[5] as string), trades: Number(c[8]), quoteVolume: new Decimal(c[7] as string), takerBuyBaseVolume: new Decimal(c[9] as string) })),
    );
    // Five-minute bars: the two whole ones, each the sum of its minutes.
    const fives = bars.filter((b) => b.interval === '5m');
    expect(fives.map((b) => new Date(b.openTime).toISOString())).toEqual(['2024-08-08T23:55:00.000Z', '2024-08-09T00:00:00.000Z']);
    expect(fives[0]?.volume.toFixed()).toBe(minutes.slice(0, 5).reduce((s, m) => s.plus(m.volume), new Decimal(0)).toFixed());
    expect(fives[1]?.close.toFixed()).toBe(minutes[9]?.close.toFixed());
  });
});
