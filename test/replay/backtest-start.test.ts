/**
 * backtest.start over the bundled data: events before start only warm up the market state.
 * Strategies see nothing earlier than start, trade only after it, find the book and the engine's
 * replayed liquidity exactly as a run from the beginning has them at that point, and the result
 * (metrics, equity, fills) begins at start and is deterministic. Errors name backtest.start.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { ConfigError } from '../../src/core/errors.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import marketMaker from '../../strategies/market-maker.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** First item of the bundled recording; its only snapshot is 200 ms later. */
const FIRST = 1723161255208;
const SNAPSHOT = 1723161255408;
/** The last item (event time 1723161375164) as the recorder received it, on the exchange's clock: the replay's last instant (backtest.feed). */
const LAST_RECEIVED = 1723161375167;
/** About the middle of the 120 s recording. */
const START = 1723161315000;

function tickConfig(backtest: Record<string, unknown> = {}): BacktestConfig {
  const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
  return { ...cfg, backtest: { ...cfg.backtest, ...backtest } } as BacktestConfig;
}

/** What a strategy saw: every event's type, E and the clock when it arrived, and the book on first contact. */
interface Seen {
  startedAt: number | undefined;
  events: { type: string; E: number; now: number }[];
  firstBook: string | undefined;
  firstMarketAt: number | undefined;
}

/** The top 20 levels, update id and readiness of a book as text (exact decimal strings). */
function bookText(b: { ready: boolean; lastUpdateId: number; top(n: number): { bids: { price: { toFixed(): string }; qty: { toFixed(): string } }[]; asks: { price: { toFixed(): string }; qty: { toFixed(): string } }[] } } | undefined): string {
  if (b === undefined) return 'none';
  const { bids, asks } = b.top(20);
  const side = (l: typeof bids): string => l.map((x) => `${x.price.toFixed()}x${x.qty.toFixed()}`).join(',');
  return `${b.ready} ${b.lastUpdateId} B ${side(bids)} A ${side(asks)}`;
}

/**
 * The market maker, gated: it is handed only events at or after `from` (and no bookStatus, which a
 * run with a warm-up announces at start while a run from the beginning announced it earlier), so a
 * run from the beginning and a run from `from` give it the same inputs. Records what it saw and
 * the book on the first market event it is handed.
 */
function gatedMarketMaker(from: number, seen: Seen): StrategyPlugin {
  return defineStrategy({
    name: 'gated-market-maker',
    description: 'market maker that ignores everything before a time',
    params: marketMaker.params,
    create: (ctx) => {
      const inner = marketMaker.create(ctx);
      return {
        onStart() {
          seen.startedAt = ctx.clock.now();
          inner.onStart?.();
        },
        onEvent(e: BusEvent) {
          const now = ctx.clock.now();
          seen.events.push({ type: e.type, E: e.E, now });
          if (now < from || e.type === 'bookStatus') return;
          if (seen.firstMarketAt === undefined && (e.type === 'depthDiff' || e.type === 'trade')) {
            seen.firstMarketAt = e.E;
            seen.firstBook = bookText(ctx.book('BTC_USDT'));
          }
          inner.onEvent(e);
        },
        onStop: () => inner.onStop?.(),
      };
    },
  });
}

function newSeen(): Seen {
  return { startedAt: undefined, events: [], firstBook: undefined, firstMarketAt: undefined };
}

async function gatedRun(cfg: BacktestConfig, from: number) {
  const seen = newSeen();
  const plugin = gatedMarketMaker(from, seen);
  const c = { ...cfg, strategies: cfg.strategies.map((s) => ({ ...s, plugin: 'gated' })) };
  const result = await runBacktest(c, { plugins: { gated: plugin }, writeOutput: false });
  return { seen, result };
}

describe('backtest.start over the bundled recording', () => {
  it('delivers nothing before start, trades only after it, and matches a run from the beginning at start', async () => {
    const fromStart = await gatedRun(tickConfig({ start: START }), START);
    const whole = await gatedRun(tickConfig(), START);
    const seen = fromStart.seen;

    // Control begins at start: onStart and every event on the clock at or after it, none dated earlier.
    expect(seen.startedAt).toBeGreaterThanOrEqual(START);
    expect(seen.events.length).toBeGreaterThan(1000);
    expect(seen.events.filter((e) => e.now < START || e.E < START)).toEqual([]);
    // ...and, as always, none later than the clock.
    expect(seen.events.filter((e) => e.E > e.now)).toEqual([]);
    // The first thing a strategy hears is the book announced ready, at the first item at or after start.
    expect(seen.events[0]).toMatchObject({ type: 'bookStatus' });
    expect(seen.events[0]?.E).toBe(seen.events[1]?.E);
    // The run from the beginning really saw the earlier part (the comparison below means something).
    expect(whole.seen.events.some((e) => e.E < START)).toBe(true);

    // The local book at start is the one a run from the beginning has at the same event.
    expect(seen.firstMarketAt).toBe(whole.seen.firstMarketAt);
    expect(seen.firstBook).toBe(whole.seen.firstBook);
    expect(seen.firstBook).toMatch(/^true \d+ B \d/);

    // Orders and fills only after start, and the very same ones as the run from the beginning
    // gave the gated strategy: the engine's replayed liquidity, queue positions and trade window
    // at start are the same after a warm-up as after replaying everything.
    const r = fromStart.result;
    const mm = r.strategies.mm;
    expect(mm?.orders).toBeGreaterThan(5);
    expect(mm?.trades).toBeGreaterThan(0);
    expect(r.fills.every((f) => f.t >= START)).toBe(true);
    expect(JSON.stringify(r.fills)).toBe(JSON.stringify(whole.result.fills));
    expect(mm?.orders).toBe(whole.result.strategies.mm?.orders);
    expect(mm?.realizedPnl).toBe(whole.result.strategies.mm?.realizedPnl);
    expect(mm?.fees).toBe(whole.result.strategies.mm?.fees);

    // The result begins at start: its start time, the first equity and price samples.
    expect(r.start).toBeGreaterThanOrEqual(START);
    expect(r.start).toBe(seen.events[0]?.E);
    expect(r.equity[0]?.t).toBe(r.start);
    expect(r.prices.BTC_USDT?.[0]?.t).toBe(r.start);
    expect(r.end).toBe(whole.result.end);
    expect(whole.result.start).toBeLessThan(START);
  });

  it('is deterministic with a start: byte-identical results', async () => {
    const cfg = tickConfig({ start: new Date(START).toISOString() });
    const a = await runBacktest(cfg, { writeOutput: false });
    const b = await runBacktest(cfg, { writeOutput: false });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.start).toBeGreaterThanOrEqual(START);
    expect(a.fills.length).toBeGreaterThan(0);
  });

  it('a start at or before the first item is the same run as no start', async () => {
    const plain = await runBacktest(tickConfig(), { writeOutput: false });
    const early = await runBacktest(tickConfig({ start: FIRST - 60_000 }), { writeOutput: false });
    const exact = await runBacktest(tickConfig({ start: FIRST }), { writeOutput: false });
    // The provenance records each config's own start; everything the run produced is the same.
    const produced = (r: typeof plain): string => JSON.stringify({ ...r, provenance: undefined });
    expect(produced(early)).toBe(produced(plain));
    expect(produced(exact)).toBe(produced(plain));
  });

  it('refuses a start at which the book is not synchronised, naming backtest.start and the value', async () => {
    const start = SNAPSHOT - 100;
    const err = await runBacktest(tickConfig({ start }), { writeOutput: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(new RegExp(`backtest\\.start=${start}: the BTC_USDT book is not synchronised by then`));
  });

  it('refuses a start after the end of the data, naming backtest.start and the value', async () => {
    const start = new Date(LAST_RECEIVED + 1).toISOString();
    const err = await runBacktest(tickConfig({ start }), { writeOutput: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/backtest\.start="2024-08-08T23:56:15\.168Z": after the end of the data \(last event at 2024-08-08T23:56:15\.167Z\)/);
  });
});

describe('backtest.start over the bundled candles', () => {
  it('bars before start reach no strategy; the bar book holds the last close before start', async () => {
    const cfg = loadBacktestConfig(path.join(repoRoot, 'config/sma-crossover.yaml'));
    // 2024-08-03T00:00Z: two days into the five-day file.
    const start = Date.UTC(2024, 7, 3);
    const seen: { type: string; E: number; now: number }[] = [];
    let bookAtStart: string | undefined;
    const spy = defineStrategy({
      name: 'spy',
      description: 'records the bars it sees',
      params: z.object({}),
      create: (ctx) => ({
        onStart() {
          const b = ctx.book('BTC_USDT');
          bookAtStart = `${b?.bestBid()?.price.toFixed()}/${b?.bestAsk()?.price.toFixed()}`;
        },
        onEvent(e: BusEvent) {
          seen.push({ type: e.type, E: e.E, now: ctx.clock.now() });
        },
      }),
    });
    const lastCloseBefore: string[] = [];
    const probe = defineStrategy({
      name: 'probe',
      description: 'records closes of a run from the beginning',
      params: z.object({}),
      create: () => ({
        onEvent(e: BusEvent) {
          if (e.type === 'kline' && e.E < start) lastCloseBefore[0] = e.close.toFixed();
        },
      }),
    });
    const one = (name: string, backtest: Record<string, unknown>): BacktestConfig =>
      ({ ...cfg, strategies: [{ ...cfg.strategies[0], name, plugin: name, params: {} }], backtest: { ...cfg.backtest, ...backtest } }) as BacktestConfig;
    await runBacktest(one('probe', {}), { plugins: { probe }, writeOutput: false });
    const r = await runBacktest(one('spy', { start }), { plugins: { spy }, writeOutput: false });

    expect(seen.length).toBeGreaterThan(1000);
    expect(seen.filter((e) => e.E < start || e.now < start)).toEqual([]);
    // The first bar delivered is the first one closing at or after start (closes at hh:mm:59.999).
    expect(seen[0]).toEqual({ type: 'kline', E: start + 59_999, now: start + 59_999 });
    expect(lastCloseBefore[0]).toBeDefined();
    expect(bookAtStart).toBe(`${lastCloseBefore[0]}/${lastCloseBefore[0]}`);
    expect(r.start).toBe(start + 59_999);

    // The SMA crossover itself trades only after start, deterministically.
    const sma = { ...cfg, backtest: { ...cfg.backtest, start } } as BacktestConfig;
    const a = await runBacktest(sma, { writeOutput: false });
    const b = await runBacktest(sma, { writeOutput: false });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.fills.length).toBeGreaterThan(0);
    expect(a.fills.every((f) => f.t >= start)).toBe(true);
  });
});
