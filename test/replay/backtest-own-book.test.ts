/**
 * One world in every mode: live, the exchange's book holds our resting orders and the depth stream
 * shows them, so `ctx.book()` includes them; a backtest keeps them in the matching engine, and the
 * strategy's book view adds them back (src/backtest/OwnOrdersBook.ts). Over the bundled recording a
 * strategy rests a buy below the touch and reads its level while the order rests and after it is
 * cancelled, beside the replayed market's own book.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { prepareRun, sourcesOf, type PreparedRun } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { PROJECT_ROOT } from '../../src/strategy/loader.js';
import { defineStrategy } from '../../src/strategy/types.js';

const SYM = 'BTC_USDT';
const QTY = new Decimal('0.003');

describe("a backtest strategy's book holds its own resting orders, as live", () => {
  it('the level of a resting buy shows the market quantity plus ours until the cancel is acknowledged', async () => {
    const seen: { state: string; view: string; market: string }[] = [];
    const late: { run?: PreparedRun } = {};
    let price: Decimal | undefined;
    const levelAt = (b: { band(l: Decimal, h: Decimal): { bids: { qty: Decimal }[] } } | undefined): string => (price === undefined || b === undefined ? '-' : (b.band(price, price).bids[0]?.qty ?? new Decimal(0)).toFixed());
    const probe = defineStrategy({
      name: 'probe',
      description: 'rests one buy, then cancels it',
      params: z.object({}),
      create: (ctx) => ({
        onEvent(e: BusEvent) {
          const book = ctx.book(SYM);
          if (price === undefined && e.type === 'depthDiff' && book?.ready) {
            // Ten dollars under the best bid: a level the market may or may not hold, never crossed here.
            price = book.bestBid()!.price.minus(10).toDecimalPlaces(2);
            ctx.place({ symbol: SYM, side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price, quantity: QTY });
          }
          if (e.type === 'orderUpdate') {
            seen.push({ state: e.state, view: levelAt(book), market: levelAt(late.run?.replay.book(SYM)) });
            if (e.state === 'NEW') ctx.cancel(SYM, e.clientId);
          }
        },
      }),
    });
    const cfg = loadBacktestConfig(path.join(PROJECT_ROOT, 'config/market-maker.yaml'));
    const c = { ...cfg, strategies: [{ ...cfg.strategies[0]!, plugin: 'probe', params: {} }], backtest: { ...cfg.backtest, output: undefined } } as BacktestConfig;
    const run = await prepareRun(c, { plugins: { probe } });
    late.run = run;
    await run.replay.run(sourcesOf(c));
    run.finish();
    expect(seen.map((s) => s.state)).toEqual(['PENDING', 'NEW', 'CANCELED']);
    const [pending, resting, cancelled] = seen as [(typeof seen)[0], (typeof seen)[0], (typeof seen)[0]];
    // Sent, not yet on the exchange: not in the book.
    expect(pending.view).toBe(pending.market);
    // Resting: the market's quantity at that price plus ours.
    expect(new Decimal(resting.view).minus(resting.market).toFixed()).toBe(QTY.toFixed());
    // Cancelled: gone again.
    expect(cancelled.view).toBe(cancelled.market);
  });
});
