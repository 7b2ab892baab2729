/**
 * Nothing about an own order reaches a strategy before the configured latency, and no fill is
 * better than the replayed market allowed at the time the engine made it. The bundled market
 * maker (passive quotes, frequent cancels) and a market taker run over the bundled recording
 * with entryMs 20, cancelMs 30, ackMs 10; a wrapper records, on the strategy's own clock, when
 * each order and cancel was sent and when each report arrived, and the prices every replayed
 * trade and depth diff it was shown reached (at the exchange's time: trade time, event time), and
 * the local book's top after each market event.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../../src/bus/events.js';
import { alternatingTaker } from '../support/alternatingTaker.js';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy, type StrategyContext, type StrategyPlugin } from '../../src/strategy/types.js';
import marketMaker from '../../strategies/market-maker.js';
import { z } from 'zod';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAT = { entryMs: 20, cancelMs: 30, ackMs: 10 };

interface Log {
  sent: Map<string, { at: number; type: string }>;
  cancels: Map<string, number>;
  reports: { now: number; e: BusEvent }[];
  /** Prices the replayed market reached: a trade's, or a diff's lowest ask and highest bid. */
  reached: { E: number; low: Decimal; high: Decimal }[];
  /** The local book's best bid and ask after each market event (what the strategy could read then). */
  tops: { E: number; bid: Decimal | undefined; ask: Decimal | undefined }[];
}

/** Wraps a plugin: its context records sends and cancels; its handler records what arrives. */
function recorded(inner: StrategyPlugin, log: Log): StrategyPlugin {
  return defineStrategy({
    name: `recorded-${inner.name}`,
    description: 'records sends and reports',
    params: inner.params,
    create: (ctx) => {
      const own: StrategyContext<unknown> = {
        ...ctx,
        book: (s) => ctx.book(s),
        openOrders: (s) => ctx.openOrders(s),
        balance: (a) => ctx.balance(a),
        position: (a) => ctx.position(a),
        place: (req) => {
          const id = ctx.place(req);
          log.sent.set(id, { at: ctx.clock.now(), type: req.orderType });
          return id;
        },
        cancel: (s, id) => {
          if (!log.cancels.has(id)) log.cancels.set(id, ctx.clock.now());
          ctx.cancel(s, id);
        },
        cancelAll: (s) => {
          for (const o of ctx.openOrders(s)) if (!log.cancels.has(o.clientId)) log.cancels.set(o.clientId, ctx.clock.now());
          ctx.cancelAll(s);
        },
      };
      const h = inner.create(own as never);
      return {
        onStart: () => h.onStart?.(),
        onEvent(e) {
          if (e.type === 'orderUpdate' || e.type === 'fill' || e.type === 'intentRejected') log.reports.push({ now: ctx.clock.now(), e });
          // At the exchange's time: a trade at its trade time (the simulated exchange applies it then).
          if (e.type === 'trade') log.reached.push({ E: e.tradeTime, low: e.price, high: e.price });
          if (e.type === 'depthDiff') {
            // Crossing: replayed liquidity at or through our price fills a resting order as maker.
            const asks = e.asks.filter((l) => !l.qty.isZero()).map((l) => l.price);
            const bids = e.bids.filter((l) => !l.qty.isZero()).map((l) => l.price);
            if (asks.length > 0 || bids.length > 0) log.reached.push({ E: e.E, low: asks.length > 0 ? Decimal.min(...asks) : new Decimal(Infinity), high: bids.length > 0 ? Decimal.max(...bids) : new Decimal(-Infinity) });
          }
          if (e.type === 'depthDiff' || e.type === 'trade') {
            const b = ctx.book('BTC_USDT');
            if (b?.ready) log.tops.push({ E: e.E, bid: b.bestBid()?.price, ask: b.bestAsk()?.price });
          }
          h.onEvent(e);
        },
        onStop: () => h.onStop?.(),
      };
    },
  });
}

const taker = alternatingTaker();

const newLog = (): Log => ({ sent: new Map(), cancels: new Map(), reports: [], reached: [], tops: [] });

/** The book's top as it was when work due at `t` ran: after every event before `t` (due work runs before the events at `t`). */
function topBefore(log: Log, t: number): Log['tops'][number] | undefined {
  let lo = 0;
  let hi = log.tops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((log.tops[mid] as Log['tops'][number]).E < t) lo = mid + 1;
    else hi = mid;
  }
  return log.tops[lo - 1];
}

describe('own orders over the bundled recording: latency and prices', () => {
  it('no report before entry + ack (or cancel + ack) latency, no fill after the cancel reached the engine, maker fills only at prices the replayed market reached, taker fills never better than the book then', async () => {
    const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
    const mm = cfg.strategies[0]!;
    const logs = { mm: newLog(), taker: newLog() };
    const c = {
      ...cfg,
      strategies: [
        { ...mm, plugin: 'mm' },
        { ...mm, name: 'taker', plugin: 'taker', params: {} },
      ],
      backtest: { ...cfg.backtest, output: undefined, latency: LAT },
    } as BacktestConfig;
    const r = await runBacktest(c, { plugins: { mm: recorded(marketMaker, logs.mm), taker: recorded(taker, logs.taker) }, writeOutput: false });
    expect(r.strategies.mm!.trades).toBeGreaterThan(10);
    expect(r.strategies.taker!.trades).toBeGreaterThan(3);

    let makerFills = 0;
    let takerFills = 0;
    let afterCancelSent = 0;
    for (const log of Object.values(logs)) {
      expect(log.sent.size).toBeGreaterThan(3);
      for (const { now, e } of log.reports) {
        // Every report is stamped with the time it reached the bus (a risk rejection: at once).
        expect(e.E, JSON.stringify({ type: e.type, state: e.type === 'orderUpdate' ? e.state : '', reason: 'reason' in e ? e.reason : '' })).toBe(now);
        if (e.type !== 'fill' && e.type !== 'orderUpdate') continue;
        const sent = log.sent.get(e.clientId);
        expect(sent, e.clientId).toBeDefined();
        const at = sent!.at;
        if (e.type === 'orderUpdate' && (e.state === 'PENDING' || (e.state === 'REJECTED' && e.reason === undefined))) continue;
        expect(now, `${e.clientId} ${e.type} ${e.type === 'orderUpdate' ? e.state : ''}`).toBeGreaterThanOrEqual(at + LAT.entryMs + LAT.ackMs);
        const cancelAt = log.cancels.get(e.clientId);
        if (e.type === 'orderUpdate' && e.state === 'CANCELED') {
          expect(cancelAt).toBeDefined();
          expect(now).toBeGreaterThanOrEqual(cancelAt! + LAT.cancelMs + LAT.ackMs);
        }
        if (e.type !== 'fill') continue;
        const engineAt = now - LAT.ackMs;
        // A fill can still happen while the cancel travels, never once it reached the engine.
        if (cancelAt !== undefined && engineAt > cancelAt) {
          afterCancelSent++;
          expect(engineAt).toBeLessThanOrEqual(cancelAt + LAT.cancelMs);
        }
        if (!e.isMaker) {
          takerFills++;
          // A taker never gets a better price than the book offered when its order reached the engine.
          const top = topBefore(log, (log.sent.get(e.clientId)?.at ?? 0) + LAT.entryMs);
          const best = e.side === 'BUY' ? top?.ask : top?.bid;
          expect(best, `${e.clientId}: no book when it reached the engine`).toBeDefined();
          expect(e.side === 'BUY' ? e.price.gte(best!) : e.price.lte(best!), `${e.clientId} taker ${e.side} ${e.price.toFixed()} vs best ${best!.toFixed()}`).toBe(true);
        } else {
          makerFills++;
          // A passive fill comes from a replayed trade or level that reached its price while the order rested.
          const reached = log.reached.some((t) => t.E >= at + LAT.entryMs && t.E <= engineAt && (e.side === 'BUY' ? t.low.lte(e.price) : t.high.gte(e.price)));
          expect(reached, `${e.clientId} maker ${e.side} ${e.price.toFixed()} at ${engineAt}`).toBe(true);
        }
      }
    }
    expect(makerFills).toBeGreaterThan(10);
    expect(takerFills).toBeGreaterThan(3);
    // The case the cancel latency is about did occur in this run.
    expect(afterCancelSent).toBeGreaterThan(0);
  });
});

describe('feed latency over the bundled recording', () => {
  /** now - E of every depth diff and trade a strategy is shown, with backtest.feed as given. */
  async function lateness(feed: Record<string, unknown>): Promise<{ depth: number[]; trade: number[] }> {
    const cfg = loadBacktestConfig(path.join(repoRoot, 'config/market-maker.yaml'));
    const seen = { depth: [] as number[], trade: [] as number[] };
    const spy = defineStrategy({
      name: 'spy',
      description: 'records when each market event arrives',
      params: z.object({}),
      create: (ctx) => ({
        onEvent(e: BusEvent) {
          if (e.type === 'depthDiff') seen.depth.push(ctx.clock.now() - e.E);
          if (e.type === 'trade') seen.trade.push(ctx.clock.now() - e.E);
        },
      }),
    });
    const c = { ...cfg, strategies: [{ ...cfg.strategies[0]!, plugin: 'spy', params: {} }], backtest: { ...cfg.backtest, output: undefined, feed: { ...cfg.backtest.feed, ...feed } } } as BacktestConfig;
    await runBacktest(c, { plugins: { spy }, writeOutput: false });
    return seen;
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

  it('a strategy sees each event when the recorder received it (on the exchange clock), or at its event time with feed.time exchange', async () => {
    const received = await lateness({});
    expect(received.depth.length).toBeGreaterThan(1000);
    expect(received.trade.length).toBeGreaterThan(1000);
    expect([...received.depth, ...received.trade].every((x) => x >= 0)).toBe(true);
    // This recording: depth diffs 2.6 ms after their event time at the median, trades 2 ms (src/backtest/README.md).
    expect(median(received.depth)).toBeGreaterThanOrEqual(2);
    expect(median(received.trade)).toBeGreaterThanOrEqual(1);
    const exchange = await lateness({ time: 'exchange' });
    expect(exchange.depth.length).toBe(received.depth.length);
    // At the event time (an item whose time steps back in the file waits for the one before it: the merge's clamp).
    expect(median(exchange.depth)).toBe(0);
    expect(median(exchange.trade)).toBe(0);
  });
});
