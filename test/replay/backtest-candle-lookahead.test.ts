/**
 * Candle mode must not fill an order at a price from before the order existed. A bar's open,
 * high and low all happened between its openTime and closeTime; an order that arrives after the
 * bar opened (sent on a bar of another symbol closing at the same instant, or on a timer inside
 * the bar) can only trade from the next bar of its symbol on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-candle-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2024, 7, 1);
const MIN = 60_000;

/** A 1m kline CSV line of bar `i`: open, high, low, close as given. */
function line(i: number, o: number, h: number, l: number, c: number): string {
  return `${T0 + i * MIN},${o},${h},${l},${c},1.0,${T0 + i * MIN + MIN - 1},1.0,1,0.5,0.5,0`;
}

/** Places one ETH_USDT buy at the first event `when` accepts, and records when it did. */
function oneOrder(when: (e: { type: string; symbol?: string; closeTime?: number }) => boolean, order: 'MARKET' | 'LIMIT', placedAt: number[]): StrategyPlugin {
  return defineStrategy({
    name: 'one-order',
    description: 'places one ETH_USDT buy',
    params: z.object({}),
    create: (ctx) => {
      let done = false;
      return {
        onEvent(e) {
          if (done || !when(e as { type: string; symbol?: string; closeTime?: number })) return;
          done = true;
          placedAt.push(ctx.clock.now());
          ctx.place({ symbol: 'ETH_USDT', side: 'BUY', orderType: order, quantity: new Decimal('1'), ...(order === 'LIMIT' ? { price: new Decimal('250'), timeInForce: 'GTC' as const } : {}) });
        },
      };
    },
  });
}

async function run(plugin: StrategyPlugin, timerMs?: number) {
  // ETH bar 0 opens at 100 and trades down to 90; bar 1 opens at 200, bar 2 at 300, neither below 190.
  writeFileSync(path.join(dir, 'btc.csv'), `${[line(0, 10, 11, 9, 10), line(1, 10, 11, 9, 10)].join('\n')}\n`);
  writeFileSync(path.join(dir, 'eth.csv'), `${[line(0, 100, 101, 90, 100), line(1, 200, 201, 190, 200), line(2, 300, 301, 290, 300)].join('\n')}\n`);
  const cfg = parseBacktestConfig(
    {
      strategies: [{ name: 's', plugin: 'p', symbols: ['BTC_USDT', 'ETH_USDT'], budget: { USDT: '10000' } }],
      // BTC is listed first: at an equal close time its bar is replayed before ETH's.
      backtest: { candles: [{ symbol: 'BTC_USDT', interval: '1m', files: ['btc.csv'] }, { symbol: 'ETH_USDT', interval: '1m', files: ['eth.csv'] }], fees: { makerBps: 0, takerBps: 0 }, ...(timerMs ? { timerMs } : {}) },
    },
    path.join(dir, 'bt.yaml'),
  );
  const result = await runBacktest(cfg, { plugins: { p: plugin }, writeOutput: false });
  return result.fills.map((f) => ({ t: f.t, price: f.price, maker: f.maker }));
}

/** The second BTC bar (ETH's first bar is known by then, so the risk checker has a price). */
const onBtcBar1 = (e: { type: string; symbol?: string; closeTime?: number }): boolean => e.type === 'kline' && e.symbol === 'BTC_USDT' && e.closeTime === T0 + 2 * MIN - 1;

describe('candle mode: no fill from a bar that opened before the order', () => {
  it('a market order sent on a BTC bar is not filled at the open of the ETH bar closing at the same instant', async () => {
    const placedAt: number[] = [];
    const fills = await run(oneOrder(onBtcBar1, 'MARKET', placedAt));
    expect(placedAt).toEqual([T0 + 2 * MIN - 1]);
    // ETH bar 1 opened at 200 a minute before the order; bar 2 is the first to open after it.
    expect(fills).toEqual([{ t: T0 + 2 * MIN, price: '300', maker: false }]);
  });

  it('a limit order sent on a BTC bar is not filled by the ETH bar closing at the same instant', async () => {
    const fills = await run(oneOrder(onBtcBar1, 'LIMIT', []));
    // ETH bar 1 opened at 200, under the 250 limit, before the order existed; bar 2 never comes down to 250.
    expect(fills).toEqual([]);
  });

  it('a market order sent on a timer inside a bar fills at the open of the next bar, not of the bar it was sent in', async () => {
    const placedAt: number[] = [];
    const fills = await run(oneOrder((e) => e.type === 'timer', 'MARKET', placedAt), 30_000);
    // The timer is armed when the run goes live (the first bar's close): it fires inside ETH bar 1.
    expect(placedAt).toEqual([T0 + MIN - 1 + 30_000]);
    expect(fills).toEqual([{ t: T0 + 2 * MIN, price: '300', maker: false }]);
  });

  it('a bar reaches strategies only once it has closed, and the book read inside a bar is the previous close', async () => {
    const seen: string[] = [];
    const spy = defineStrategy({
      name: 'spy',
      description: 'records bars and the ETH book',
      params: z.object({}),
      create: (ctx) => ({
        onEvent(e) {
          const now = ctx.clock.now();
          if (e.type === 'kline') seen.push(`${e.symbol} bar closing ${e.closeTime - T0} seen at ${now - T0}, close ${e.close.toFixed()}`);
          if (e.type === 'timer') seen.push(`timer at ${now - T0}: ETH book ${ctx.book('ETH_USDT')?.bestBid()?.price.toFixed()}`);
        },
      }),
    });
    await run(spy, 30_000);
    expect(seen).toEqual([
      'BTC_USDT bar closing 59999 seen at 59999, close 10',
      'ETH_USDT bar closing 59999 seen at 59999, close 100',
      // Inside ETH bar 1 (which closes at 200): the book is still bar 0's close.
      'timer at 89999: ETH book 100',
      // A timer due at a bar's close runs before the bars of that instant (due work first): it
      // cannot see them yet.
      'timer at 119999: ETH book 100',
      'BTC_USDT bar closing 119999 seen at 119999, close 10',
      'ETH_USDT bar closing 119999 seen at 119999, close 200',
      'timer at 149999: ETH book 200',
      'timer at 179999: ETH book 200',
      'ETH_USDT bar closing 179999 seen at 179999, close 300',
    ]);
  });
});
