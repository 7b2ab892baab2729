/**
 * Strategy used by the interrupt tests of `kancil backtest`: it trades nothing and spends `ms`
 * milliseconds on each bar, so a run of the bundled candles lasts long enough to be
 * interrupted. `point` only tells a sweep's points apart.
 */
import { z } from 'zod';
import { defineStrategy } from '../../src/strategy/types.js';
import type { BusEvent } from '../../src/index.js';

export default defineStrategy({
  name: 'slow',
  description: 'test: a strategy that takes its time over every event',
  params: z.object({ ms: z.number().min(0), point: z.number().int().default(0) }),
  create(ctx) {
    process.stderr.write(`slow strategy started (point ${ctx.params.point})\n`);
    return {
      onEvent(e: BusEvent): void {
        if (e.type !== 'kline') return;
        const until = performance.now() + ctx.params.ms;
        while (performance.now() < until);
      },
    };
  },
});
