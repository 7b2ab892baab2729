/**
 * A strategy plugin for backtest tests that takes liquidity: a market buy, then a market sell,
 * and so on, of `qty` BTC_USDT on every `every`-th trade it hears (so fills are takers, with a
 * buy's fee in the base asset and a sell's in the quote asset).
 */
import { z } from 'zod';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';

/** The alternating market taker (no parameters). */
export function alternatingTaker(every = 150, qty = '0.0003'): StrategyPlugin {
  const quantity = new Decimal(qty);
  return defineStrategy({
    name: 'taker',
    description: 'alternating market orders',
    params: z.object({}),
    create: (ctx) => {
      let n = 0;
      return {
        onEvent(e) {
          if (e.type !== 'trade' || ++n % every !== 0) return;
          ctx.place({ symbol: 'BTC_USDT', side: (n / every) % 2 === 1 ? 'BUY' : 'SELL', orderType: 'MARKET', quantity });
        },
      };
    },
  });
}
