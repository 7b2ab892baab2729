/**
 * Strategy used by the SIGKILL restart test (loaded by path from a generated config): on every
 * timer it sends a small taker order (alternating sides) that fills against the sandbox's
 * synthetic book, keeps up to three resting orders far from the market, and cancels the oldest
 * one, so at any instant there are orders in flight, resting, being cancelled and being filled.
 */
import { z } from 'zod';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy } from '../../src/strategy/types.js';

export default defineStrategy({
  name: 'churn',
  description: 'test: taker fills, resting orders and cancels on every timer',
  params: z.object({ symbol: z.string().default('BTC_IDR') }),
  create(ctx) {
    const sym = ctx.params.symbol;
    let n = 0;
    return {
      onEvent(e) {
        if (e.type !== 'timer') return;
        const book = ctx.book(sym);
        const bid = book?.ready ? book.bestBid() : undefined;
        const ask = book?.ready ? book.bestAsk() : undefined;
        if (!bid || !ask) return;
        n++;
        const buy = n % 2 === 0;
        ctx.place({ symbol: sym, side: buy ? 'BUY' : 'SELL', orderType: 'LIMIT', timeInForce: 'IOC', price: buy ? ask.price.plus(1000) : bid.price.minus(1000), quantity: new Decimal('0.0001') });
        const open = ctx.openOrders(sym).filter((o) => o.orderType === 'LIMIT' && o.state === 'NEW');
        if (open.length < 3) ctx.place({ symbol: sym, side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: bid.price.mul('0.9').floor(), quantity: new Decimal('0.001') });
        const oldest = open[0];
        if (open.length >= 3 && oldest) ctx.cancel(sym, oldest.clientId);
      },
    };
  },
});
