import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { prepareRun, runBacktest, sourceBatchesOf, sourcesOf } from './Backtest.js';
import { PROJECT_ROOT } from '../strategy/loader.js';
import { parseBacktestConfig } from './config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-end-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One 1m bar of a kline CSV opening at `open` (ms). */
const bar = (open: number): string => `${open},1.0,1.0,1.0,1.0,1.0,${open + 59_999},1.0,1,0.5,0.5,0`;

describe('backtest.end', () => {
  it('stops the replay after the end time; without it every bar is replayed', async () => {
    const t0 = Date.UTC(2024, 7, 1);
    writeFileSync(path.join(dir, 'k.csv'), `${[0, 1, 2, 3].map((i) => bar(t0 + i * 60_000)).join('\n')}\n`);
    const doc = { strategies: [{ name: 's', plugin: 'sma-crossover', symbols: ['BTC_USDT'] }], backtest: { candles: [{ symbol: 'BTC_USDT', interval: '1m', files: ['k.csv'] }] } };
    const times = async (extra: Record<string, unknown>): Promise<number[]> => {
      const cfg = parseBacktestConfig({ ...doc, backtest: { ...doc.backtest, ...extra } }, path.join(dir, 'bt.yaml'));
      const out: number[] = [];
      for await (const x of sourcesOf(cfg)) out.push(x.t);
      return out;
    };
    const closes = [0, 1, 2, 3].map((i) => t0 + i * 60_000 + 59_999);
    expect(await times({})).toEqual(closes);
    expect(await times({ end: new Date(t0 + 2 * 60_000).toISOString() })).toEqual(closes.slice(0, 2));
    expect(await times({ end: closes[2] })).toEqual(closes.slice(0, 3));
  });
});

describe('sources in batches', () => {
  const sample = path.join(PROJECT_ROOT, 'backtest-data/btcusdt-sample.ndjson.gz');
  // The example market maker's config, with the recordings and window each case sets.
  const doc = parse(readFileSync(path.join(PROJECT_ROOT, 'config/market-maker.yaml'), 'utf8')) as { backtest: Record<string, unknown> };
  const config = (backtest: Record<string, unknown>) => parseBacktestConfig({ ...doc, backtest: { ...doc.backtest, output: undefined, ...backtest } }, path.join(PROJECT_ROOT, 'config/bt.yaml'));
  const flat = async (cfg: ReturnType<typeof parseBacktestConfig>): Promise<number[]> => {
    const out: number[] = [];
    for await (const b of sourceBatchesOf(cfg)) out.push(...b.times);
    return out;
  };

  it('are non-decreasing across batches; backtest.end cuts inside a batch; two recordings merge', async () => {
    const all = await flat(config({ recordings: [{ symbol: 'BTC_USDT', files: [sample] }] }));
    expect(all.length).toBeGreaterThan(3000);
    expect(all.every((t, i) => i === 0 || t >= (all[i - 1] as number))).toBe(true);
    const end = all[1234] as number;
    const upTo = await flat(config({ recordings: [{ symbol: 'BTC_USDT', files: [sample] }], end }));
    expect(upTo).toEqual(all.filter((t) => t <= end));
    // One clock: a copy of the same recording under the same symbol would be one stream to the
    // two-clock split, whose exchange times a copy interleaves (twoClocks.ts).
    const oneClock = { feed: { maxExchangeLagMs: 0 } };
    const single = await flat(config({ recordings: [{ symbol: 'BTC_USDT', files: [sample] }], ...oneClock }));
    const two = await flat(config({ recordings: [{ symbol: 'BTC_USDT', files: [sample] }, { symbol: 'BTC_USDT', files: [sample] }], ...oneClock }));
    expect(two).toEqual(single.flatMap((t) => [t, t]));
  });

  it('a run over batches gives the result of a replay item by item', async () => {
    const cfg = config({ recordings: [{ symbol: 'BTC_USDT', files: [sample] }] });
    const batched = await runBacktest(cfg, { writeOutput: false });
    const run = await prepareRun(cfg);
    await run.replay.run(sourcesOf(cfg, run.unread));
    const itemByItem = run.finish();
    expect(batched.fills.length).toBeGreaterThan(10);
    expect(JSON.stringify(batched)).toBe(JSON.stringify(itemByItem));
  });
});

describe('timer events', () => {
  const t0 = Date.UTC(2024, 7, 1);
  const counted = async (plugin: string): Promise<number> => {
    const d = mkdtempSync(path.join(dir, 'timer-'));
    writeFileSync(path.join(d, 'k.csv'), `${[0, 1, 2].map((i) => bar(t0 + i * 60_000)).join('\n')}\n`);
    const doc = { strategies: [{ name: 's', plugin, symbols: ['BTC_USDT'], budget: { USDT: '1000' } }], backtest: { candles: [{ symbol: 'BTC_USDT', interval: '1m', files: ['k.csv'] }], timerMs: 1000 } };
    const run = await prepareRun(parseBacktestConfig(doc, path.join(d, 'bt.yaml')));
    let timers = 0;
    run.bus.events$.subscribe((e) => {
      if (e.type === 'timer') timers++;
    });
    await run.replay.runBatches(sourceBatchesOf(parseBacktestConfig(doc, path.join(d, 'bt.yaml')), run.unread));
    run.finish();
    return timers;
  };

  it('are scheduled only when a strategy of the run reads them', async () => {
    // sma-crossover says `timer: false`; periodic-orders reads them (one a second of the 2 minutes between the first and last close).
    expect(await counted('sma-crossover')).toBe(0);
    expect(await counted('periodic-orders')).toBeGreaterThanOrEqual(119);
  });
});
