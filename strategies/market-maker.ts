/**
 * Market maker: quotes one bid and one ask around the mid price of the local book, skewed
 * against inventory, within a maximum position.
 *
 * Each refresh (at most every `refreshMs` of the run's clock, on book activity) it computes
 *   bid = mid x (1 - spread/2 - skew),  ask = mid x (1 + spread/2 - skew),
 *   skew = skewBps/10,000 x position / maxPosition,
 * so a long inventory lowers both quotes (selling becomes likelier, buying less likely) and a
 * short one raises them. Prices are rounded away from mid to `tickSize` (bid down, ask up). No bid is
 * quoted at or above +maxPosition, no ask at or below -maxPosition (spot: the ask side needs
 * inventory unless `allowShort`). A quote never crosses the touch (bid below the best ask, ask above
 * the best bid), however strong the skew. A quote is replaced only when its price moved by at least
 * `requoteTicks` ticks, to keep queue position. Quotes are LIMIT_MAKER (post only), so they never take.
 *
 * The maximum position holds with the orders in flight counted: a new bid is at most
 * maxPosition - position - the unfilled quantity of every open bid (a replaced bid whose cancel
 * is still travelling may fill), and likewise an ask (short limit -maxPosition, or 0 on spot).
 * On spot an ask is also capped by the free base balance. The position is net of commissions
 * charged in the base asset (the strategy context's rule), so selling all of it sells what is held.
 * Quantities are floored to `stepSize`; a quote below `minQuantity` is not sent (set it to the
 * exchange's minimum quantity, or above minNotional / price: an order the exchange would refuse
 * would be refused again at every refresh).
 *
 * Parameters: `spreadBps` (full spread), `skewBps` (skew at a full position), `quantity` (base per
 * quote), `maxPosition` (base), `tickSize` and `stepSize` (default: the symbol's PRICE_FILTER and
 * LOT_SIZE steps from `ctx.rules`; 0.01 and 0.00001 when the run has no filters for it),
 * `minQuantity` (base, default 0: any quantity of at least one step), `refreshMs`, `requoteTicks`,
 * `allowShort`.
 */
import { z, Decimal, ceilToStep, floorToStep, givenOrRule, splitSymbol, decimalParam, positiveDecimalParam, defineStrategy, type OrderSideName, type BusEvent } from 'kancil';

/** Parameters of the market maker. */
export const marketMakerParams = z.object({
  spreadBps: z.number().positive().default(4),
  skewBps: z.number().min(0).default(4),
  quantity: positiveDecimalParam.default('0.001'),
  maxPosition: positiveDecimalParam.default('0.01'),
  tickSize: positiveDecimalParam.optional(),
  stepSize: positiveDecimalParam.optional(),
  minQuantity: decimalParam.default('0'),
  refreshMs: z.number().int().min(0).default(500),
  requoteTicks: z.number().int().min(0).default(10),
  allowShort: z.boolean().default(false),
});

/** What quotes depend on besides mid and position. */
type QuoteParams = { spreadBps: number; skewBps: number; maxPosition: Decimal; tickSize: Decimal; allowShort: boolean };

/**
 * The multipliers of mid that give the raw bid and ask at a position: 1 - spread/2 - skew and
 * 1 + spread/2 - skew (pure). They change with the position only, so a strategy keeps them
 * between fills instead of redoing these divisions at every refresh.
 */
export function quoteFactors(position: Decimal, p: QuoteParams): { bid: Decimal; ask: Decimal } {
  const half = new Decimal(p.spreadBps).div(20_000);
  const skew = p.maxPosition.isZero() ? new Decimal(0) : new Decimal(p.skewBps).div(10_000).mul(position).div(p.maxPosition);
  return { bid: new Decimal(1).minus(half).minus(skew), ask: new Decimal(1).plus(half).minus(skew) };
}

/** Desired quotes for a mid and position, never crossing `touch` when given (pure; exported for tests). */
export function quotePrices(
  mid: Decimal,
  position: Decimal,
  p: QuoteParams,
  touch?: { bestBid: Decimal; bestAsk: Decimal },
  factors: { bid: Decimal; ask: Decimal } = quoteFactors(position, p),
): { bid: Decimal | undefined; ask: Decimal | undefined } {
  const bidRaw = mid.mul(factors.bid);
  const askRaw = mid.mul(factors.ask);
  let bid = position.gte(p.maxPosition) ? undefined : floorToStep(bidRaw, p.tickSize);
  const shortLimit = p.allowShort ? p.maxPosition.neg() : new Decimal(0);
  let ask = position.lte(shortLimit) ? undefined : ceilToStep(askRaw, p.tickSize);
  if (touch !== undefined) {
    if (bid !== undefined && bid.gte(touch.bestAsk)) bid = touch.bestAsk.minus(p.tickSize);
    if (ask !== undefined && ask.lte(touch.bestBid)) ask = touch.bestBid.plus(p.tickSize);
  }
  return { bid, ask };
}

/** Market maker plugin. */
export default defineStrategy({
  name: 'market-maker',
  description: 'Quotes a bid and an ask around mid with inventory skew and a maximum position (post-only)',
  params: marketMakerParams,
  // Quotes come from the depth book: a depth diff or a trade is the cue to look again (a book
  // ticker repeats the book's top and is not read, so a backtest skips those lines unread).
  marketEvents: ['depthDiff', 'trade'],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('market-maker needs one symbol');
    const { base } = splitSymbol(symbol);
    const rules = ctx.rules(symbol);
    const cfg = { spreadBps: p.spreadBps, skewBps: p.skewBps, maxPosition: new Decimal(p.maxPosition), tickSize: givenOrRule(p.tickSize, rules.tickSize, '0.01'), allowShort: p.allowShort };
    const qty = new Decimal(p.quantity);
    const minMove = cfg.tickSize.mul(p.requoteTicks);
    const step = givenOrRule(p.stepSize, rules.stepSize, '0.00001');
    const minQty = new Decimal(p.minQuantity);
    let lastRefresh = -Infinity;
    /** The quote factors and the position they were computed at. */
    let factors = quoteFactors(new Decimal(0), cfg);
    let factorsAt = new Decimal(0);
    /** Orders we asked to cancel: never asked twice, and not counted as our quote any more. */
    const cancelling = new Set<string>();

    /** Unfilled quantity of every open order on a side, those being cancelled included (they may still fill). */
    function inFlight(side: OrderSideName): Decimal {
      let sum = new Decimal(0);
      for (const o of ctx.openOrders(symbol)) if (o.side === side && o.quantity !== undefined) sum = sum.plus(o.quantity.minus(o.cumQty));
      return sum;
    }

    /** What a new order on `side` may add without passing the position limit. */
    function room(side: OrderSideName): Decimal {
      const pos = ctx.position(base);
      if (side === 'BUY') return cfg.maxPosition.minus(pos).minus(inFlight('BUY'));
      if (cfg.allowShort) return cfg.maxPosition.plus(pos).minus(inFlight('SELL'));
      // Spot: only what is held, less what open asks already offer (the free balance excludes it too).
      return Decimal.min(pos.minus(inFlight('SELL')), ctx.balance(base).free);
    }

    function refreshSide(side: OrderSideName, want: Decimal | undefined): void {
      const mine = ctx.openOrders(symbol).filter((o) => o.side === side && !cancelling.has(o.clientId));
      let keep = false;
      for (const o of mine) {
        const stale = want === undefined || o.price === undefined || o.price.minus(want).abs().gte(minMove) || keep;
        if (stale) {
          if (o.state !== 'PENDING') {
            cancelling.add(o.clientId);
            ctx.cancel(symbol as string, o.clientId);
          }
        } else keep = true;
      }
      // A PENDING order may still be on its way; one order per side at most.
      if (!keep && want !== undefined && mine.every((o) => o.state !== 'PENDING')) {
        const q = floorToStep(Decimal.min(qty, room(side)), step);
        if (q.gt(0) && q.gte(minQty)) ctx.place({ symbol: symbol as string, side, orderType: 'LIMIT_MAKER', quantity: q, price: want });
      }
    }

    return {
      onEvent(e: BusEvent): void {
        if (e.type !== 'depthDiff' && e.type !== 'trade' && e.type !== 'fill') return;
        if (e.symbol !== symbol) return;
        const now = ctx.clock.now();
        if (e.type !== 'fill' && now - lastRefresh < p.refreshMs) return;
        const book = ctx.book(symbol);
        const bb = book?.bestBid();
        const ba = book?.bestAsk();
        if (!book?.ready || bb === undefined || ba === undefined) return;
        lastRefresh = now;
        if (cancelling.size > 0) {
          const open = new Set(ctx.openOrders(symbol).map((o) => o.clientId));
          for (const id of cancelling) if (!open.has(id)) cancelling.delete(id);
        }
        const mid = bb.price.plus(ba.price).div(2);
        const position = ctx.position(base);
        if (!position.eq(factorsAt)) {
          factors = quoteFactors(position, cfg);
          factorsAt = position;
        }
        const { bid, ask } = quotePrices(mid, position, cfg, { bestBid: bb.price, bestAsk: ba.price }, factors);
        refreshSide('BUY', bid);
        refreshSide('SELL', ask);
      },
      onStop(): void {
        ctx.cancelAll(symbol);
      },
    };
  },
});
