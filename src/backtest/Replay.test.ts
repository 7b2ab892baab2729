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
import type { OrderBook } from '../exchange/book/order-book.js';
import type { RecordedItem } from '../record/reader.js';
import { MatchingEngine } from '../sim/engine.js';
import { runBacktest, sourcesOf, symbolInfoOf, BACKTEST_ACCOUNT } from './Backtest.js';
import { type BacktestConfig, loadBacktestConfig, parseBacktestConfig } from './config.js';
import { Replay } from './Replay.js';
import { VirtualScheduler } from '../venue/Scheduler.js';
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

/** An engine for the config's symbols with no fees and no balances (the replay moves only its market state). */
function feeFreeEngine(cfg: BacktestConfig): MatchingEngine {
  return new MatchingEngine({
    symbols: Object.entries(cfg.symbols).map(([sym, v]) => ({ info: symbolInfoOf(sym, v.filters as WireFilter[]) })),
    accounts: [{ id: BACKTEST_ACCOUNT, makerCommission: new Decimal(0), takerCommission: new Decimal(0), balances: {} }],
    bufferEvents: false,
  });
}

/** The config with one clock (every item one step, twoClocks.ts): these tests step items themselves. */
function oneClock(cfg: BacktestConfig): BacktestConfig {
  return { ...cfg, backtest: { ...cfg.backtest, feed: { ...cfg.backtest.feed, maxExchangeLagMs: 0 } } };
}

/** A level as exact text. */
const levelText = (l: BookLevel): string => `${l.price.toFixed()}x${l.qty.toFixed()}`;

describe('Replay with a start (warm-up)', () => {
  it('reaches the same local book and engine state at start as a replay from the beginning, and publishes nothing before it', async () => {
    const cfg = oneClock(loadBacktestConfig(path.join(projectRoot, 'config/market-maker.yaml')));
    const items: { t: number; item: RecordedItem }[] = [];
    for await (const x of sourcesOf(cfg)) items.push(x);
    // About the middle of the bundled 120 s recording.
    const start = 1723161315000;
    const make = (withStart: boolean) => {
      const engine = feeFreeEngine(cfg);
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

describe('Replay: diffs parsed once for the book and the engine', () => {
  it('gives the local book and engine state of the eagerly parsed events, through a gap, a duplicate and a resync', async () => {
    const cfg = oneClock(loadBacktestConfig(path.join(projectRoot, 'config/market-maker.yaml')));
    const lazy: { t: number; item: RecordedItem }[] = [];
    for await (const x of sourcesOf(cfg)) lazy.push(x);
    // A duplicate diff (stale once applied), a lost one (a gap: the book invalidates and waits for
    // a snapshot) and the recording's snapshot again later (the resync), so the replay takes the
    // synchroniser's path as well as the parse-once path, and switches back and forth.
    const diffs = lazy.flatMap((x, i) => (x.item.kind === 'market' && x.item.event.type === 'depthDiff' ? [i] : []));
    const dup = diffs[50]!;
    const lost = diffs[Math.floor(diffs.length / 2)]!;
    const resync = diffs[Math.floor(diffs.length / 2) + 40]!;
    // The snapshot of the resync: the book as a replay without the gap has it after that diff.
    const ref = new Replay({ bus: new Bus(), scheduler: new VirtualScheduler(new VirtualClock(0)), bookSymbols: ['BTC_USDT'] });
    for (const { t, item } of lazy.slice(0, resync + 1)) ref.step(t, item);
    const refBook = ref.book('BTC_USDT') as OrderBook;
    const snapshot: RecordedItem = { kind: 'snapshot', recvTime: lazy[resync]!.t, symbol: 'BTC_USDT', snapshot: { lastUpdateId: refBook.lastUpdateId, ...refBook.top(5000) } };
    const items = lazy.flatMap((x, i) => (i === lost ? [] : i === dup ? [x, x] : i === resync ? [x, { t: x.t, item: snapshot }] : [x]));
    // A plain copy of an event keeps no wire strings: every diff then takes the Decimal path.
    const eager = items.map((x) => (x.item.kind === 'market' ? { t: x.t, item: { ...x.item, event: { ...x.item.event } } } : x));
    const run = (input: typeof items) => {
      const engine = feeFreeEngine(cfg);
      const bus = new Bus();
      const statuses: BusEvent[] = [];
      bus.listen((e) => {
        if (e.type === 'bookStatus') statuses.push(e);
      });
      const replay = new Replay({ bus, scheduler: new VirtualScheduler(new VirtualClock(0)), engine, bookSymbols: ['BTC_USDT'] });
      const tops: string[] = [];
      for (const { t, item } of input) {
        replay.step(t, item);
        const b = replay.book('BTC_USDT')!;
        tops.push(`${b.ready}:${b.bestBid() && levelText(b.bestBid()!)}:${b.bestAsk() && levelText(b.bestAsk()!)}`);
      }
      const d = engine.depth('BTC_USDT', 5000);
      const b = replay.book('BTC_USDT')!;
      return { statuses, tops, depth: { bids: d.bids.map(levelText), asks: d.asks.map(levelText) }, id: engine.lastUpdateId('BTC_USDT'), book: b.top(5000) };
    };
    const fast = run(items);
    const slow = run(eager);
    expect(fast.statuses.map((e) => (e.type === 'bookStatus' ? e.ready : undefined))).toEqual([true, false, true]);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
  });
});

describe('Replay of bars', () => {
  it("keeps each symbol's bar book at that symbol's last close when bars of two symbols alternate", () => {
    const replay = new Replay({ bus: new Bus(), scheduler: new VirtualScheduler(new VirtualClock(0)) });
    const bar = (symbol: string, openTime: number, close: string): RecordedItem => ({
      kind: 'market',
      recvTime: openTime + 59_999,
      stream: undefined,
      event: { type: 'kline', E: openTime + 59_999, symbol, interval: '1m', openTime, closeTime: openTime + 59_999, open: new Decimal(close), high: new Decimal(close), low: new Decimal(close), close: new Decimal(close), volume: new Decimal(1), quoteVolume: new Decimal(1), trades: 1, takerBuyBaseVolume: new Decimal(0), takerBuyQuoteVolume: new Decimal(0), firstTradeId: undefined, lastTradeId: undefined, closed: true },
    });
    const closes: [string, string][] = [];
    for (const [i, [symbol, close]] of ([['BTC_USDT', '100'], ['ETH_USDT', '7'], ['ETH_USDT', '8'], ['BTC_USDT', '101'], ['ETH_USDT', '9']] as const).entries()) {
      const item = bar(symbol, i * 60_000, close);
      replay.step(item.recvTime, item);
      closes.push([replay.book('BTC_USDT')?.bestBid()?.price.toFixed() ?? '-', replay.book('ETH_USDT')?.bestBid()?.price.toFixed() ?? '-']);
    }
    expect(closes).toEqual([['100', '-'], ['100', '7'], ['100', '8'], ['101', '8'], ['101', '9']]);
  });
});
