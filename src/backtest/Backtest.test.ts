import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourcesOf } from './Backtest.js';
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
