/**
 * Grid trader: a ladder of `levels` evenly spaced prices between `lowerPrice` and `upperPrice`.
 *
 * On the first ready book it places a BUY of `quantity` at every grid price below the mid (LIMIT,
 * GTC), except the top one (a buy there would have no level above to be sold at). Each time a buy at grid level i fills completely, it places a SELL of the same quantity at
 * level i+1; each time that sell fills, a BUY goes back at level i. The grid therefore earns one
 * step per round trip and holds at most one level's quantity per filled buy. Prices outside the
 * grid are never quoted; nothing is ever sold that was not bought first (spot, no shorting).
 *
 * Parameters: `lowerPrice`, `upperPrice` (decimal strings), `levels` (number of grid prices, >= 2,
 * at least one tick apart),
 * `quantity` (base per order), `tickSize` (grid prices are floored to it), `stepSize` (a sell is capped
 * by the free base balance, floored to it: base-asset commissions leave slightly less than was bought).
 * `tickSize` and `stepSize` default to the symbol's own PRICE_FILTER and LOT_SIZE steps (`ctx.rules`),
 * so the grid fits any market, BTC_IDR's whole-rupiah ticks as well as BTC_USDT's cents; a run with
 * no filters for the symbol falls back to 0.01 and 0.00001.
 */
import { z, Decimal, floorToStep, givenOrRule, splitSymbol, positiveDecimalParam, defineStrategy, type BusEvent } from 'kancil';

const LEVELS_TOO_CLOSE = 'levels are closer than one tickSize: (upperPrice - lowerPrice) / (levels - 1) must be at least tickSize';

/** Whether the grid's levels are at least one tick apart. */
function levelsApart(p: { lowerPrice: string; upperPrice: string; levels: number }, tick: Decimal): boolean {
  return new Decimal(p.upperPrice).minus(p.lowerPrice).div(p.levels - 1).gte(tick);
}

/** Parameters of the grid trader. */
export const gridTraderParams = z
  .object({
    lowerPrice: positiveDecimalParam,
    upperPrice: positiveDecimalParam,
    levels: z.number().int().min(2).max(500).default(10),
    quantity: positiveDecimalParam.default('0.001'),
    tickSize: positiveDecimalParam.optional(),
    stepSize: positiveDecimalParam.optional(),
  })
  .refine((p) => new Decimal(p.lowerPrice).lt(p.upperPrice), { message: 'lowerPrice must be below upperPrice', path: ['lowerPrice'] })
  // Levels closer than a tick would be floored onto the same price: two orders where one was meant.
  // The symbol's own tick is known only at create (ctx.rules), where the same check runs.
  .refine((p) => p.tickSize === undefined || levelsApart(p, new Decimal(p.tickSize)), { message: LEVELS_TOO_CLOSE, path: ['levels'] });

/** The grid prices, lowest first (pure; exported for tests). */
export function gridPrices(lower: Decimal, upper: Decimal, levels: number, tick: Decimal): Decimal[] {
  const step = upper.minus(lower).div(levels - 1);
  const out: Decimal[] = [];
  for (let i = 0; i < levels; i++) out.push(floorToStep(lower.plus(step.mul(i)), tick));
  return out;
}

/** Grid trader plugin. */
export default defineStrategy({
  name: 'grid-trader',
  description: 'Buys at grid levels below mid, sells one level up after each buy fills, and re-buys after each sell',
  params: gridTraderParams,
  // Starts on the first depth diff with a ready book; afterwards it reads only its own orders.
  marketEvents: ['depthDiff'],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('grid-trader needs one symbol');
    const rules = ctx.rules(symbol);
    const tick = givenOrRule(p.tickSize, rules.tickSize, '0.01');
    const step = givenOrRule(p.stepSize, rules.stepSize, '0.00001');
    if (!levelsApart(p, tick)) throw new RangeError(`levels=${p.levels}: ${LEVELS_TOO_CLOSE} (${tick.toFixed()}, the tickSize of ${symbol})`);
    const grid = gridPrices(new Decimal(p.lowerPrice), new Decimal(p.upperPrice), p.levels, tick);
    const qty = new Decimal(p.quantity);
    const { base } = splitSymbol(symbol);
    /** clientId -> grid level and side of each order we placed. */
    const levelOf = new Map<string, { level: number; side: 'BUY' | 'SELL' }>();
    let started = false;

    function place(level: number, side: 'BUY' | 'SELL'): void {
      const price = grid[level];
      if (price === undefined) return;
      const q = side === 'SELL' ? floorToStep(Decimal.min(qty, ctx.balance(base).free), step) : qty;
      if (!q.gt(0)) return;
      const clientId = ctx.place({ symbol: symbol as string, side, orderType: 'LIMIT', timeInForce: 'GTC', quantity: q, price });
      levelOf.set(clientId, { level, side });
    }

    return {
      onEvent(e: BusEvent): void {
        if (!started) {
          if (e.type === 'depthDiff' && e.symbol === symbol) {
            const book = ctx.book(symbol);
            const bb = book?.bestBid();
            const ba = book?.bestAsk();
            if (!book?.ready || bb === undefined || ba === undefined) return;
            started = true;
            const mid = bb.price.plus(ba.price).div(2);
            grid.forEach((price, i) => {
              if (price.lt(mid) && i < grid.length - 1) place(i, 'BUY');
            });
          }
          return;
        }
        if (e.type === 'orderUpdate' && e.state === 'FILLED') {
          const o = levelOf.get(e.clientId);
          if (o === undefined) return;
          levelOf.delete(e.clientId);
          if (o.side === 'BUY') place(o.level + 1, 'SELL');
          else place(o.level - 1, 'BUY');
        } else if (e.type === 'orderUpdate' && (e.state === 'CANCELED' || e.state === 'REJECTED' || e.state === 'EXPIRED')) {
          levelOf.delete(e.clientId);
        } else if (e.type === 'intentRejected' && e.intent.kind === 'place') {
          // Refused before it was sent (risk, budget): that level is not traded any more; say so.
          const o = levelOf.get(e.intent.clientId);
          if (o === undefined) return;
          levelOf.delete(e.intent.clientId);
          ctx.log.warn({ level: o.level, side: o.side, reason: e.reason, message: e.message }, 'grid order refused: level left unarmed');
        }
      },
      onStop(): void {
        ctx.cancelAll(symbol);
      },
    };
  },
});
