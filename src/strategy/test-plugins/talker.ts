/** Test plugin: logs at info and debug on start, and places one order off the LOT_SIZE grid (a risk rejection). */
import { z } from 'zod';
import { Decimal } from '../../core/decimal.js';
import { defineStrategy } from '../types.js';

export default defineStrategy({
  name: 'talker',
  description: 'logs, and sends one order the risk checker refuses',
  params: z.object({}),
  create(ctx) {
    const symbol = ctx.symbols[0] ?? 'BTC_USDT';
    return {
      onStart() {
        ctx.log.info({ step: ctx.rules(symbol).stepSize.toFixed() }, 'talker started');
        ctx.log.debug('talker debug line');
        ctx.place({ symbol, side: 'BUY', orderType: 'LIMIT', price: new Decimal(1), quantity: new Decimal('0.0000001') });
      },
      onEvent() {},
    };
  },
});
