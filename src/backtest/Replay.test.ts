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
import { Bus } from '../bus/Bus.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import type { WireFilter } from '../core/filters.js';
import type { RecordedItem } from '../record/reader.js';
import { MatchingEngine } from '../sim/engine.js';
import { runBacktest, sourcesOf, symbolInfoOf, BACKTEST_ACCOUNT } from './Backtest.js';
import { loadBacktestConfig, parseBacktestConfig } from './config.js';
import { Replay } from './Replay.js';
import { VirtualScheduler } from './Scheduler.js';
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

/** A level as exact text. */
const levelText = (l: BookLevel): string => `${l.price.toFixed()}x${l.qty.toFixed()}`;

describe('Replay with a start (warm-up)', () => {
  it('reaches the same local book and engine state at start as a replay from the beginning, and publishes nothing before it', async () => {
    const cfg = loadBacktestConfig(path.join(projectRoot, 'config/market-maker.yaml'));
    const items: { t: number; item: RecordedItem }[] = [];
    for await (const x of sourcesOf(cfg)) items.push(x);
    // About the middle of the bundled 120 s recording.
    const start = 1723161315000;
    const make = (withStart: boolean) => {
      const engine = new MatchingEngine({
        symbols: Object.entries(cfg.symbols).map(([sym, v]) => ({ info: symbolInfoOf(sym, v.filters as WireFilter[]) })),
        accounts: [{ id: BACKTEST_ACCOUNT, makerCommission: new Decimal(0), takerCommission: new Decimal(0), balances: {} }],
        bufferEvents: false,
      });
      const bus = new Bus();
      const published: BusEvent[] = [];
      bus.listen((e) => published.push(e));
      let live = 0;
      const replay = new Replay({ bus, scheduler: new VirtualScheduler(new VirtualClock(0)), engine, bookSymbols: ['BTC_USDT'], timerMs: 1000, start: withStart ? start : undefined, onLive: () => live++ });
      return { engine, replay, published, live: () => live };
    };
    const warm = make(true);
    const whole = make(false);
    const k = items.findIndex((x) => x.t >= start);
    expect(k).toBeGreaterThan(items.length / 3);
    for (const { t, item } of items.slice(0, k)) {
      warm.replay.step(t, item);
      whole.replay.step(t, item);
    }
    // Everything before start stayed off the bus, and the strategies were not started.
    expect(warm.published).toEqual([]);
    expect(warm.live()).toBe(0);
    expect(whole.published.length).toBeGreaterThan(k / 2);
    expect(warm.replay.stats.warmUpItems).toBe(k);

    const at = items[k]!.t;
    const state = (r: ReturnType<typeof make>) => {
      const d = r.engine.depth('BTC_USDT', 5000);
      const b = r.replay.book('BTC_USDT')!;
      return JSON.stringify({
        depth: { bids: d.bids.map(levelText), asks: d.asks.map(levelText) },
        engineUpdateId: r.engine.lastUpdateId('BTC_USDT'),
        trades: r.engine.recentTrades('BTC_USDT', 1000).map((x) => `${x.id}:${x.price}x${x.qty}@${x.time}`),
        avg: r.engine.averagePrice('BTC_USDT', 5, at)?.toFixed(),
        engineLast: r.engine.lastPrice('BTC_USDT')?.toFixed(),
        book: { ready: b.ready, id: b.lastUpdateId, top: b.top(5000) },
        mark: r.replay.mark('BTC_USDT')?.toFixed(),
        last: r.replay.lastPrice('BTC_USDT')?.toFixed(),
      });
    };
    expect(state(warm)).toBe(state(whole));
    expect(JSON.parse(state(warm)).trades.length).toBeGreaterThan(100);

    // The first item at or after start makes it live: the book is announced ready, then the item follows.
    warm.replay.step(at, items[k]!.item);
    expect(warm.live()).toBe(1);
    expect(warm.replay.stats.liveTime).toBe(at);
    expect(warm.published[0]).toMatchObject({ type: 'bookStatus', E: at, symbol: 'BTC_USDT', ready: true });
    expect(warm.published.every((e) => e.E >= start)).toBe(true);
  });
});
