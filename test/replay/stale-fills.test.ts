/**
 * Stale fills on the bundled BTCUSDT recording and the 11-minute one of ../shared/data: a strategy
 * that market-buys right after each large buyer-aggressor trade (a sweep) must never be filled at a
 * price that buyers had already traded through at the exchange before the fill happened there.
 *
 * The check is computed from the recording alone: a buy fill at price p at exchange time f is stale
 * when a recorded buyer-aggressor trade printed above p at a trade time T < f and no recorded depth
 * diff stamped in [T, f) could have put asks at p back (a diff restates levels; without one, the
 * asks at p were gone when the order arrived). Only the fills' prices and times come from the run.
 * A trade in the same millisecond as the fill is not counted: the order within a millisecond is
 * not in the recording.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { prepareRun, sourceBatchesOf } from '../../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy } from '../../src/strategy/types.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = path.resolve(repoRoot, '../shared/data');
const shared = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(sharedDir, f));
const bundled = path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz');

/** A sweep: a buyer-aggressor trade of at least this much BTC. */
const SWEEP_QTY = '0.01';

/** Market-buys 0.0005 BTC after every sweep; sells the position back now and then so the budget lasts. */
const sweepChaser = defineStrategy({
  name: 'sweep-chaser',
  description: 'market-buys right after each buyer-aggressor sweep (stale-fill probe)',
  params: z.object({}),
  marketEvents: ['trade'],
  create(ctx) {
    let buys = 0;
    return {
      onEvent(e) {
        if (e.type !== 'trade' || e.isBuyerMaker || e.qty.lt(SWEEP_QTY)) return;
        ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'MARKET', quantity: new Decimal('0.0005') });
        if (++buys % 20 === 0) ctx.place({ symbol: 'BTC_USDT', side: 'SELL', orderType: 'MARKET', quantity: new Decimal('0.01') });
      },
    };
  },
});

/** What the recording says: buyer-aggressor trades (price, trade time) and depth diff event times, each in order. */
function recorded(files: readonly string[]): { buys: { price: Decimal; T: number }[]; diffTimes: number[] } {
  const buys: { price: Decimal; T: number }[] = [];
  const diffTimes: number[] = [];
  for (const f of files) {
    for (const line of gunzipSync(readFileSync(f)).toString('utf8').split('\n')) {
      const json = line.slice(line.indexOf(' ') + 1);
      if (!json.startsWith('{"stream"')) continue;
      const d = (JSON.parse(json) as { data: { e: string; E: number; T: number; p: string; m: boolean } }).data;
      if (d.e === 'depthUpdate') diffTimes.push(d.E);
      else if (d.e === 'trade' && !d.m) buys.push({ price: new Decimal(d.p), T: d.T });
    }
  }
  diffTimes.sort((a, b) => a - b);
  buys.sort((a, b) => a.T - b.T);
  return { buys, diffTimes };
}

/** Index of the first element of sorted `xs` that is >= v. */
function lowerBound(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Runs the probe over `recording` at default latency on two clocks (or one: `maxExchangeLagMs` 0) and checks its buy fills against the recording. */
async function staleFills(recording: readonly string[], maxExchangeLagMs?: number): Promise<{ fills: number; stale: string[] }> {
  const file = path.join(repoRoot, 'config/market-maker.yaml');
  const doc = parse(readFileSync(file, 'utf8')) as { symbols: unknown };
  const cfg = parseBacktestConfig(
    {
      mode: 'backtest',
      symbols: doc.symbols,
      strategies: [{ name: 'probe', plugin: 'probe', symbols: ['BTC_USDT'], budget: { USDT: '100000', BTC: '0' } }],
      // Default latency: only the fills' prices and times matter here.
      backtest: { recordings: [{ symbol: 'BTC_USDT', files: recording }], ...(maxExchangeLagMs === undefined ? {} : { feed: { maxExchangeLagMs } }) },
    },
    file,
  );
  const run = await prepareRun(cfg, { plugins: { probe: sweepChaser } });
  const fills: { price: Decimal; at: number }[] = [];
  run.engine?.subscribe(
    (e) => {
      if (e.type === 'executionReport' && e.x === 'TRADE' && e.S === 'BUY') fills.push({ price: new Decimal(e.L), at: e.T });
    },
    { marketData: false, accountPositions: false },
  );
  await run.replay.runBatches(sourceBatchesOf(cfg, run.unread));
  run.finish();

  const { buys, diffTimes } = recorded(recording);
  const times = buys.map((b) => b.T);
  const stale: string[] = [];
  for (const f of fills) {
    // Buyer-aggressor trades before the fill (strictly: within one ms the order is unknown), the
    // newest first, back to the last diff before the fill, which restated the levels it listed.
    const lastDiff = diffTimes[lowerBound(diffTimes, f.at) - 1] ?? -Infinity;
    for (let i = lowerBound(times, f.at) - 1; i >= 0; i--) {
      const b = buys[i]!;
      if (b.T <= lastDiff) break;
      if (b.price.gt(f.price)) {
        stale.push(`fill at ${f.price.toFixed()} at ${f.at}: buyers traded at ${b.price.toFixed()} at ${b.T} (${f.at - b.T} ms before)`);
        break;
      }
    }
  }
  return { fills: fills.length, stale };
}

describe('stale fills of a market buy right after a sweep', () => {
  it('none on the bundled recording; on one clock (the engine moving when the strategy hears) there are, so the check can fail', async () => {
    const two = await staleFills([bundled]);
    expect(two.fills).toBeGreaterThan(30);
    expect({ stale: two.stale.length, first: two.stale.slice(0, 5) }).toEqual({ stale: 0, first: [] });
    const one = await staleFills([bundled], 0);
    expect(one.stale.length).toBeGreaterThan(0);
  }, 60_000);

  it.skipIf(!shared.every((f) => existsSync(f)))('none on the 11-minute BTCUSDT recording (needs ../shared/data, absent outside the team machines)', async () => {
    const r = await staleFills(shared);
    expect(r.fills).toBeGreaterThan(1000);
    expect({ stale: r.stale.length, first: r.stale.slice(0, 5) }).toEqual({ stale: 0, first: [] });
  }, 120_000);
});
