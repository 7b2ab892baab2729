/** Test plugin: places one order, then throws on its `failAt`-th event. */
import { z } from 'zod';
import { Decimal } from '../../core/decimal.js';
import { defineStrategy } from '../types.js';

export default defineStrategy({
  name: 'thrower',
  description: 'fails on purpose',
  params: z.object({ failAt: z.number().int().positive() }),
  create(ctx) {
    let n = 0;
    return {
      onStart() {
        ctx.place({ symbol: ctx.symbols[0] ?? 'BTC_IDR', side: 'SELL', orderType: 'LIMIT', price: new Decimal(2), quantity: new Decimal(1) });
      },
      onEvent() {
        if (++n === ctx.params.failAt) throw new Error('boom');
      },
    };
  },
});
