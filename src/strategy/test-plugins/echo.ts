/**
 * Test plugin: buys one lot at the trade price on every trade of its symbols, cancels everything
 * on a timer event, and records what it saw (for routing tests).
 */
import { z } from 'zod';
import { Decimal } from '../../core/decimal.js';
import type { BusEvent } from '../../bus/events.js';
import { defineStrategy } from '../types.js';

/** Events seen, per strategy instance name (tests read it). */
export const seen = new Map<string, BusEvent[]>();

export default defineStrategy({
  name: 'echo',
  description: 'places a one-lot limit buy at each trade price; cancels all on timers',
  params: z.strictObject({ qty: z.string().regex(/^\d+(\.\d+)?$/).default('0.001'), spread: z.number().min(0).default(0) }),
  create(ctx) {
    const log: BusEvent[] = [];
    seen.set(ctx.name, log);
    const qty = new Decimal(ctx.params.qty);
    return {
      onEvent(e) {
        log.push(e);
        if (e.type === 'trade') ctx.place({ symbol: e.symbol, side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: e.price.minus(ctx.params.spread), quantity: qty });
        if (e.type === 'timer') ctx.cancelAll();
      },
    };
  },
});
