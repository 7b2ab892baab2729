/**
 * The replay on the bundled recording: nothing a strategy sees is later than the virtual clock,
 * the clock never goes back, the book is ready only after the snapshot and never crossed, and
 * timers arrive on the virtual clock.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../bus/events.js';
import { defineStrategy } from '../strategy/types.js';
import { runBacktest } from './Backtest.js';
import { parseBacktestConfig } from './config.js';
import { PROJECT_ROOT as projectRoot } from '../strategy/loader.js';

describe('Replay over the bundled recording', () => {
  it('never shows the future, keeps time monotonic and the book sane', async () => {
    const stats = { events: 0, future: 0, back: 0, crossed: 0, readyBeforeStatus: 0, timers: 0, types: new Set<string>() };
    let last = -Infinity;
    let statusReady = false;
    const spy = defineStrategy({
      name: 'spy',
      description: 'records what it sees',
      params: z.object({}),
      create: (ctx) => ({
        onEvent(e: BusEvent) {
          stats.events++;
          stats.types.add(e.type);
          const now = ctx.clock.now();
          if (e.E > now) stats.future++;
          if (now < last) stats.back++;
          last = now;
          if (e.type === 'bookStatus' && e.ready) statusReady = true;
          if (e.type === 'timer') stats.timers++;
          const b = ctx.book('BTC_USDT');
          if (b?.ready && !statusReady) stats.readyBeforeStatus++;
          const bid = b?.bestBid();
          const ask = b?.bestAsk();
          if (b?.ready && bid && ask && bid.price.gte(ask.price)) stats.crossed++;
        },
      }),
    });
    const cfg = parseBacktestConfig(
      {
        mode: 'backtest',
        symbols: { BTC_USDT: { filters: [] } },
        strategies: [{ name: 'spy', plugin: 'spy', symbols: ['BTC_USDT'] }],
        backtest: { recordings: [{ symbol: 'BTC_USDT', files: ['backtest-data/btcusdt-sample.ndjson.gz'] }], timerMs: 1000 },
      },
      path.join(projectRoot, 'inline.yaml'),
    );
    const r = await runBacktest(cfg, { plugins: { spy }, writeOutput: false });
    expect(stats.events).toBeGreaterThan(3000);
    expect([...stats.types].sort()).toEqual(['bookStatus', 'depthDiff', 'timer', 'trade']);
    expect(stats.future).toBe(0);
    expect(stats.back).toBe(0);
    expect(stats.crossed).toBe(0);
    expect(stats.readyBeforeStatus).toBe(0);
    // about 120 s of data with a 1 s timer
    expect(stats.timers).toBeGreaterThanOrEqual(115);
    expect(stats.timers).toBeLessThanOrEqual(121);
    expect(r.end - r.start).toBeGreaterThan(110_000);
  });
});
