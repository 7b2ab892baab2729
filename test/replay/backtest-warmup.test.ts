/**
 * backtest.warmup over the bundled data: the bars (and trades, books) of the span before start
 * reach the strategy's handlers, its orders there are refused (WARM_UP) and nothing of that span
 * is in the result, so an SMA is stable at the first bar after start. Sweep windows warm up the
 * same way (their config keeps the warm-up). Errors name backtest.warmup.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SMA, EMA } from 'trading-signals';
import type { BusEvent } from '../../src/bus/events.js';
import { Decimal } from '../../src/core/decimal.js';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { jobConfig } from '../../src/backtest/sweepJob.js';
import { runSweep } from '../../src/backtest/sweep.js';
import { gridSchema } from '../../src/backtest/sweepGrid.js';
import { ConfigError } from '../../src/core/errors.js';
import { fromBars, fromTrades } from '../../src/strategy/indicators.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const candleFile = path.join(repoRoot, 'config/sma-crossover.yaml');
/** A bar boundary inside the five days of bundled minute candles. */
const START = Date.parse('2024-08-03T00:00:00Z');

/** What the probe saw: each closed bar's close time, the clock, and whether its SMA(50) was stable. */
interface Probe {
  bars: { closeTime: number; now: number; stable: boolean }[];
  refused: { reason: string; now: number }[];
}

/** An SMA(50) of closed 1m bars that buys once, as soon as it is stable and flat. */
function smaProbe(probe: Probe): StrategyPlugin {
  return defineStrategy({
    name: 'sma-probe',
    description: 'records when its SMA is stable; buys once when it is',
    params: z.object({}),
    marketEvents: ['kline'],
    timer: false,
    klineIntervals: () => ['1m'],
    create(ctx) {
      const sma = fromBars(new SMA(50), { symbol: 'BTC_USDT', interval: '1m' });
      let bought = false;
      return {
        onEvent(e: BusEvent): void {
          if (e.type === 'intentRejected') probe.refused.push({ reason: e.reason, now: ctx.clock.now() });
          if (!sma.update(e) || e.type !== 'kline') return;
          probe.bars.push({ closeTime: e.closeTime, now: ctx.clock.now(), stable: sma.isStable });
          // An overlay series (the sink) and one in a pane (the generic call): neither is drawn in the warm-up.
          if (sma.value !== undefined) ctx.plot('sma', sma.value);
          ctx.plot('bars', probe.bars.length, { pane: 'count' });
          if (sma.isStable && !bought && ctx.openOrders().length === 0 && ctx.position('BTC').isZero()) {
            ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'MARKET', quantity: new Decimal('0.01') });
            bought = ctx.clock.now() >= START;
          }
        },
      };
    },
  });
}

function candleConfig(backtest: Record<string, unknown>): BacktestConfig {
  const cfg = loadBacktestConfig(candleFile);
  const strategies = cfg.strategies.map((s) => ({ ...s, plugin: 'sma-probe', params: {} }));
  return { ...cfg, strategies, backtest: { ...cfg.backtest, output: undefined, ...backtest } } as BacktestConfig;
}

async function probeRun(cfg: BacktestConfig) {
  const probe: Probe = { bars: [], refused: [] };
  const result = await runBacktest(cfg, { plugins: { 'sma-probe': smaProbe(probe) }, writeOutput: false });
  const firstLive = probe.bars.find((b) => b.now >= (result.start ?? Infinity));
  return { probe, result, firstLive };
}

describe('backtest.warmup (candles)', () => {
  it('without a warm-up the SMA is cold at the first bar after start; with 50 bars it is stable there', async () => {
    const cold = await probeRun(candleConfig({ start: START }));
    expect(cold.probe.bars[0]?.closeTime).toBeGreaterThanOrEqual(START);
    expect(cold.firstLive?.stable).toBe(false);

    const warm = await probeRun(candleConfig({ start: START, warmup: 50 }));
    const before = warm.probe.bars.filter((b) => b.closeTime < START);
    expect(before).toHaveLength(50);
    expect(before[0]?.closeTime).toBe(START - 50 * 60_000 + 59_999);
    expect(warm.firstLive?.closeTime).toBe(START + 59_999);
    expect(warm.firstLive?.stable).toBe(true);
  });

  it('refuses orders in the warm-up (WARM_UP), which leaves nothing in the result: no fill, no rejection, no sample before start', async () => {
    // 50 bars: the SMA(50) is stable at the last bar of the warm-up, and its buy there is refused.
    const { probe, result } = await probeRun(candleConfig({ start: START, warmup: '50m' }));
    expect(probe.refused).toEqual([{ reason: 'WARM_UP', now: START - 1 }]);
    expect(result.warnings).toContain('strategy sma sent 1 intent during the warm-up before backtest.start, refused (WARM_UP): the warm-up only feeds the strategy, nothing trades before start');
    expect(result.start).toBe(START + 59_999);
    expect(result.fills.length).toBe(1);
    expect(result.fills.every((f) => f.t >= START)).toBe(true);
    expect(JSON.stringify(result.rejections)).not.toContain('WARM_UP');
    expect(result.equity[0]?.t).toBe(START + 59_999);
    expect(result.plots.map((p) => [p.name, p.points[0]?.t])).toEqual([
      ['bars', START],
      ['sma', START],
    ]);
  });

  it('a duration and a number of bars of the same span deliver the same bars', async () => {
    const byBars = await probeRun(candleConfig({ start: START, warmup: 60 }));
    const byTime = await probeRun(candleConfig({ start: START, warmup: '1h' }));
    expect(byTime.probe.bars).toEqual(byBars.probe.bars);
  });

  it('says so when the data before start is shorter than the warm-up, and only then', async () => {
    // The bundled candles begin two days before START: 2d of bars is covered to the bar, 2881 bars and 3d are not.
    const short = (r: { warnings: readonly string[] }) => r.warnings.filter((w) => w.startsWith('backtest.warmup='));
    expect(short((await probeRun(candleConfig({ start: START, warmup: '2d' }))).result)).toEqual([]);
    expect(short((await probeRun(candleConfig({ start: START, warmup: 2881 }))).result)).toEqual([
      'backtest.warmup=2881: the warm-up begins at 2024-07-31T23:59:00.000Z but the data only at 2024-08-01T00:00:00.000Z, 1m 0s later: the strategies heard 2d 0h of history before backtest.start (2024-08-03T00:00:00.000Z), not the whole warm-up, and may start cold',
    ]);
    expect(short((await probeRun(candleConfig({ start: START, warmup: '3d' }))).result)).toEqual([
      'backtest.warmup="3d": the warm-up begins at 2024-07-31T00:00:00.000Z but the data only at 2024-08-01T00:00:00.000Z, 1d 0h later: the strategies heard 2d 0h of history before backtest.start (2024-08-03T00:00:00.000Z), not the whole warm-up, and may start cold',
    ]);
    expect(short((await probeRun(candleConfig({ warmup: 50 }))).result)).toEqual([]);
  });

  it('without a start, the first bars of the data are the warm-up and the run starts after them', async () => {
    const { probe, result, firstLive } = await probeRun(candleConfig({ warmup: 50 }));
    const first = probe.bars[0]?.closeTime as number;
    expect(result.start).toBe(first + 50 * 60_000);
    expect(probe.bars.filter((b) => b.closeTime < (result.start as number))).toHaveLength(50);
    expect(firstLive?.stable).toBe(true);
  });

  it('an out-of-sample or walk-forward window of a sweep warms up the same way (its job config keeps the warm-up)', async () => {
    // The job a sweep runs for a window starting at START, of the example config with a warm-up.
    const configText = `${readFileSync(candleFile, 'utf8').trimEnd()}\n  warmup: 50\n`;
    const job = jobConfig({ index: 0, configFile: candleFile, configText, strategy: 'sma', params: {}, window: { start: START } });
    expect([job.backtest.start, job.backtest.warmup]).toEqual([START, 50]);
    const windowed = { ...job, strategies: job.strategies.map((s) => ({ ...s, plugin: 'sma-probe', params: {} })), backtest: { ...job.backtest, output: undefined } } as BacktestConfig;
    const { firstLive, result } = await probeRun(windowed);
    expect(result.start).toBe(START + 59_999);
    expect(firstLive?.stable).toBe(true);
  });

  it('names backtest.warmup when the data ends inside it, and bars a tick run does not build', async () => {
    await expect(runBacktest(candleConfig({ warmup: '30d' }), { plugins: { 'sma-probe': smaProbe({ bars: [], refused: [] }) }, writeOutput: false })).rejects.toThrow(/backtest\.warmup="30d": after the end of the data .*the warm-up ends at/);
    // A span past the last date a Date holds (1e12 minute bars) is the same error, not a date crash.
    await expect(runBacktest(candleConfig({ warmup: 1e12 }), { plugins: { 'sma-probe': smaProbe({ bars: [], refused: [] }) }, writeOutput: false })).rejects.toThrow(/backtest\.warmup=1000000000000: after the end of the data .*the warm-up ends at \d+ ms after 1970/);
    const tick = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
    const err = await runBacktest({ ...tick, backtest: { ...tick.backtest, output: undefined, warmup: 10 } } as BacktestConfig, { writeOutput: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/backtest\.warmup=10: a number of bars needs bars/);
  });
});

describe('backtest.warmup in a sweep', () => {
  it('each walk-forward window runs as a single warmed-up run on its span, and the warm-up changes what it earns', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-warmup-wf-'));
    try {
      // The example config with a warm-up of 50 bars, its candle path made absolute.
      const cfgFile = path.join(dir, 'warm.yaml');
      const text = readFileSync(candleFile, 'utf8').replace('../backtest-data/', `${path.join(repoRoot, 'backtest-data')}/`).replace(/\n {2}output: .*\n/, '\n');
      writeFileSync(cfgFile, `${text.trimEnd()}\n  warmup: 50\n`);
      const cfg = loadBacktestConfig(cfgFile);
      expect(cfg.backtest.warmup).toBe(50);
      const grid = gridSchema.parse({ strategy: 'sma', params: { fast: [5, 20], slow: [30] }, rankBy: 'netPnl', walkForward: { start: '2024-08-04T00:00:00Z', outOfSample: '1d', windows: 2, inSample: '1d' } });
      const wf = (await runSweep(cfg, grid, { workers: 2 })).walkForward;
      expect(wf?.windows).toHaveLength(2);
      const single = async (warmup: number | undefined, w: { start: number; end: number }, fast: number) => {
        const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, start: w.start, end: w.end, warmup } } as BacktestConfig, { paramOverrides: { sma: { fast, slow: 30 } }, writeOutput: false });
        return r.strategies.sma?.netPnl;
      };
      let differs = false;
      for (const w of wf?.windows ?? []) {
        const fast = w.params?.fast as number;
        const warmed = await single(50, w.outOfSample, fast);
        expect(w.outOfSampleMetrics?.netPnl).toBe(warmed);
        if ((await single(undefined, w.outOfSample, fast)) !== warmed) differs = true;
      }
      expect(differs).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('backtest.warmup (ticks)', () => {
  it('hands the strategy the trades of the span before start, with no order and nothing in the result before start', async () => {
    const tick = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
    const start = 1723161315000;
    const seen: { now: number; type: string }[] = [];
    const refused: string[] = [];
    let stableAtStart: boolean | undefined;
    const probe = defineStrategy({
      name: 'ema-probe',
      description: 'an EMA of trades that quotes a bid at the best bid when stable',
      params: z.object({}),
      timer: false,
      create(ctx) {
        const ema = fromTrades(new EMA(20), 'BTC_USDT');
        return {
          onEvent(e: BusEvent): void {
            const now = ctx.clock.now();
            seen.push({ now, type: e.type });
            if (e.type === 'intentRejected') refused.push(e.reason);
            if (!ema.update(e)) return;
            if (now >= start && stableAtStart === undefined) stableAtStart = ema.isStable;
            const bid = ctx.book('BTC_USDT')?.bestBid();
            if (ema.isStable && bid !== undefined && ctx.openOrders().length === 0) ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', price: bid.price, quantity: new Decimal('0.001') });
          },
        };
      },
    });
    const cfg = { ...tick, strategies: tick.strategies.map((s) => ({ ...s, plugin: 'ema-probe', params: {} })), backtest: { ...tick.backtest, output: undefined, start, warmup: '30s' } } as BacktestConfig;
    const result = await runBacktest(cfg, { plugins: { 'ema-probe': probe }, writeOutput: false });
    const early = seen.filter((s) => s.now < start);
    expect(early.length).toBeGreaterThan(0);
    expect(Math.min(...early.map((s) => s.now))).toBeGreaterThanOrEqual(start - 30_000);
    expect(early.some((s) => s.type === 'trade')).toBe(true);
    expect(stableAtStart).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['WARM_UP']));
    expect(result.start).toBeGreaterThanOrEqual(start);
    expect(result.fills.every((f) => f.t >= start)).toBe(true);
  });
});
