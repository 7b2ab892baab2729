/**
 * Periodic orders: a load generator for benchmarks and replay tests, not a trading idea.
 *
 * Every `every` market events of its symbol it places one LIMIT order of `quantity`, `offsetTicks`
 * ticks behind the touch (BUY below the best bid and SELL above the best ask, alternating), and
 * cancels its oldest open order once more than `maxOpen` are open. Prices sit on `tickSize`.
 *
 * Parameters: `every` (events), `quantity`, `tickSize` (default: the symbol's tick from `ctx.rules`,
 * 0.01 without filters), `offsetTicks`, `maxOpen`.
 */
import { z, Decimal, decimalParam, positiveDecimalParam, givenOrRule, defineStrategy, CappedOrders, type BusEvent } from 'kancil';

/** Parameters of the periodic-orders load generator. */
export const periodicOrdersParams = z.object({
  every: z.number().int().min(1).default(20),
  quantity: decimalParam.default('0.001'),
  tickSize: positiveDecimalParam.optional(),
  offsetTicks: z.number().int().min(0).default(2),
  maxOpen: z.number().int().min(1).default(10),
});

/** Periodic-orders plugin. */
export default defineStrategy({
  name: 'periodic-orders',
  description: 'Places a passive LIMIT order every N market events and cancels the oldest beyond a maximum (load generator)',
  params: periodicOrdersParams,
  marketEvents: ['depthDiff', 'trade'],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('periodic-orders needs one symbol');
    const qty = new Decimal(p.quantity);
    const offset = givenOrRule(p.tickSize, ctx.rules(symbol).tickSize, '0.01').mul(p.offsetTicks);
    let n = 0;
    let buy = true;
    const mine = new CappedOrders(ctx, symbol, p.maxOpen);
    return {
      onEvent(e: BusEvent): void {
        if (mine.settle(e)) return;
        if ((e.type !== 'depthDiff' && e.type !== 'trade') || e.symbol !== symbol) return;
        if (++n % p.every !== 0) return;
        const book = ctx.book(symbol);
        const touch = buy ? book?.bestBid() : book?.bestAsk();
        if (!book?.ready || touch === undefined) return;
        const price = buy ? touch.price.minus(offset) : touch.price.plus(offset);
        mine.add(ctx.place({ symbol, side: buy ? 'BUY' : 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', quantity: qty, price }));
        buy = !buy;
      },
    };
  },
});
