/**
 * Trade fader: after each large aggressive trade, rests a small passive order a few ticks away on
 * the other side of it (a seller hit the bids at p: BUY at p - offset; a buyer lifted the asks:
 * SELL at p + offset), betting on a partial reversion. Oldest orders are cancelled beyond `maxOpen`.
 *
 * Its decisions depend only on the content of public trades (price, quantity, aggressor side), not
 * on timing or ids, which makes it the probe of the backtest/paper parity test.
 *
 * Parameters: `minQty` (a trade at least this large triggers), `quantity`, `offsetTicks`, `tickSize`
 * (default: the symbol's PRICE_FILTER tick from `ctx.rules`, 0.01 when the run has no filters for it),
 * `maxOpen`.
 */
import { z, Decimal, decimalParam, positiveDecimalParam, givenOrRule, defineStrategy, CappedOrders, type BusEvent } from 'kancil';

/** Parameters of the trade fader. */
export const tradeFaderParams = z.object({
  minQty: decimalParam.default('0.1'),
  quantity: decimalParam.default('0.0002'),
  offsetTicks: z.number().int().min(0).default(100),
  tickSize: positiveDecimalParam.optional(),
  maxOpen: z.number().int().min(1).default(5),
});

/** Trade-fader plugin. */
export default defineStrategy({
  name: 'trade-fader',
  description: 'Rests a small passive order against each large aggressive trade (content-driven; parity probe)',
  params: tradeFaderParams,
  marketEvents: ['trade'],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('trade-fader needs one symbol');
    const minQty = new Decimal(p.minQty);
    const qty = new Decimal(p.quantity);
    const offset = givenOrRule(p.tickSize, ctx.rules(symbol).tickSize, '0.01').mul(p.offsetTicks);
    const mine = new CappedOrders(ctx, symbol, p.maxOpen);
    return {
      onEvent(e: BusEvent): void {
        if (mine.settle(e)) return;
        if (e.type !== 'trade' || e.symbol !== symbol || e.qty.lt(minQty)) return;
        const buy = e.isBuyerMaker;
        const price = buy ? e.price.minus(offset) : e.price.plus(offset);
        mine.add(ctx.place({ symbol, side: buy ? 'BUY' : 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', quantity: qty, price }));
      },
    };
  },
});
