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
 *
 * With a tick and a step of 10^-k (the usual filters), a refresh computes in integers (prices in
 * ticks, quantities in units of the finest of the quantity parameters): the same values as the
 * Decimal rule (quotePrices, room), which it falls back to wherever a value does not fit
 * (market-maker.diff.test.ts holds the two to the same quotes and quantities).
 */
import { z, Decimal, ceilToStep, floorToStep, givenOrRule, splitSymbol, decimalParam, positiveDecimalParam, defineStrategy, unitsOfDecimal, decimalOfScaled, decimalPlacesOfStep, divRound, mulDivRound, type OrderSideName, type OwnOrderView, type BusEvent, type StrategyContext, type StrategyHandlers } from 'kancil';

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

/** Bound of the quantities on the integer path (see roomUnits). */
const LIMIT = 2 ** 50;

/** k when `x` is 10^-k with 0 <= k <= 15 (0.01 gives 2, 1 gives 0), else -1. */
export function powerOfTenPlaces(x: Decimal): number {
  const k = decimalPlacesOfStep(x);
  return k <= 15 ? k : -1;
}

/**
 * The tick of quotePrices' raw bid (floor) or ask (`up`: ceiling) in integers: mid x f rounded to
 * whole ticks of 10^-k, for mid = `sum`/2 ticks (sum = best bid + best ask in ticks) and the
 * factor f = fm x 10^-fs. NaN unless sum and fm are safe integers, fs <= 15 and so is the result.
 *
 * Exact, and equal to the Decimal rule: (bid + ask)/2 has at most 17 significant digits and the
 * factor at most 16, so decimal.js (40 digits) computes mid and mid x f exactly, and floorToStep
 * and ceilToStep to a tick of 10^-k round that exact value to k places; here it is
 * sum x fm / (2 x 10^fs) ticks, rounded the same way.
 */
export function quoteTick(sum: number, fm: number, fs: number, up: boolean): number {
  return fs >= 0 && fs <= 15 ? mulDivRound(sum, fm, 2 * 10 ** fs, up) : NaN;
}

/** What quotes depend on at one position: the factors, as Decimals and as fm x 10^-fs, and which sides quote. */
export interface PositionQuote {
  readonly bid: Decimal;
  readonly ask: Decimal;
  readonly bidOn: boolean;
  readonly askOn: boolean;
  readonly bidFm: number;
  readonly bidFs: number;
  readonly askFm: number;
  readonly askFs: number;
}

/** The quote factors at `position` and what the integer path reads of them (pure). */
export function positionQuote(position: Decimal, p: QuoteParams): PositionQuote {
  const { bid, ask } = quoteFactors(position, p);
  const bidFs = bid.decimalPlaces();
  const askFs = ask.decimalPlaces();
  return {
    bid,
    ask,
    bidOn: !position.gte(p.maxPosition),
    askOn: !position.lte(p.allowShort ? p.maxPosition.neg() : new Decimal(0)),
    bidFm: unitsOfDecimal(bid, bidFs),
    bidFs,
    askFm: unitsOfDecimal(ask, askFs),
    askFs,
  };
}

/** quoteTicks' answer (reused: read it before the next call). */
const TICKS: { bid: number | undefined; ask: number | undefined } = { bid: undefined, ask: undefined };

/**
 * quotePrices in ticks of 10^-k (pure): from the best bid and ask in ticks and the position's
 * quote, the bid and ask in ticks (undefined: no quote), the touch rule included; undefined when a
 * value leaves the safe integers (quotePrices answers then).
 */
export function quoteTicks(bidT: number, askT: number, q: PositionQuote): { readonly bid: number | undefined; readonly ask: number | undefined } | undefined {
  const sum = bidT + askT;
  let bid = q.bidOn ? quoteTick(sum, q.bidFm, q.bidFs, false) : undefined;
  let ask = q.askOn ? quoteTick(sum, q.askFm, q.askFs, true) : undefined;
  if (Number.isNaN(bid) || Number.isNaN(ask)) return undefined;
  // A bid at or above the best ask goes a tick below it, an ask at or below the best bid a tick above.
  if (bid !== undefined && bid >= askT) bid = askT - 1;
  if (ask !== undefined && ask <= bidT) ask = bidT + 1;
  TICKS.bid = bid;
  TICKS.ask = ask;
  return TICKS;
}

/** Whether `id` is among `orders`. */
function isOpen(orders: readonly OwnOrderView[], id: string): boolean {
  for (let i = 0; i < orders.length; i++) if ((orders[i] as OwnOrderView).clientId === id) return true;
  return false;
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
    return makeMarketMaker(ctx, true);
  },
});

/**
 * The market maker's handlers; `integers` false keeps every refresh on the Decimal rule (the
 * reference the integer path is tested against).
 */
export function makeMarketMaker(ctx: StrategyContext<z.infer<typeof marketMakerParams>>, integers: boolean): StrategyHandlers {
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
  /** Orders we asked to cancel: never asked twice, and not counted as our quote any more. */
  const cancelling = new Set<string>();

  // The integer path: prices in ticks (tick 10^-tickK), quantities in units of 10^-qtyK, the
  // finest of the step and the quantity parameters (all of them safe integers there).
  const tickK = powerOfTenPlaces(cfg.tickSize);
  const stepK = powerOfTenPlaces(step);
  const qtyK = Math.max(stepK, qty.decimalPlaces(), cfg.maxPosition.decimalPlaces(), minQty.decimalPlaces());
  const qtyU = unitsOfDecimal(qty, qtyK);
  const maxU = unitsOfDecimal(cfg.maxPosition, qtyK);
  const minQtyU = unitsOfDecimal(minQty, qtyK);
  const units = integers && tickK >= 0 && stepK >= 0 && qtyK <= 15 && Math.abs(qtyU) <= LIMIT && Math.abs(maxU) <= LIMIT && Math.abs(minQtyU) <= LIMIT;
  /** The position's quote and the position it was computed at. */
  let quote = positionQuote(new Decimal(0), cfg);
  let quoteAt = new Decimal(0);
  /** Quotes of the positions seen, by position in units (positions come back: a book of ~qtyK grid points). */
  const quotes = new Map<number, PositionQuote>();

  /** The quote at `position`, from the map when the position is on the unit grid. */
  function quoteOf(position: Decimal): PositionQuote {
    const u = units ? unitsOfDecimal(position, qtyK) : NaN;
    if (u !== u) return positionQuote(position, cfg);
    let q = quotes.get(u);
    if (q === undefined) {
      if (quotes.size >= 4096) quotes.clear();
      quotes.set(u, (q = positionQuote(position, cfg)));
    }
    return q;
  }

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

  /**
   * room(side) in units of 10^-qtyK; NaN where a value is not such an integer. Exact: every
   * value and partial sum is kept within 2^50, so no sum of three of them leaves the safe integers.
   */
  function roomUnits(side: OrderSideName): number {
    let held = 0;
    const open = ctx.openOrders(symbol);
    for (let i = 0; i < open.length; i++) {
      const o = open[i] as OwnOrderView;
      if (o.side !== side || o.quantity === undefined) continue;
      held += unitsOfDecimal(o.quantity, qtyK) - unitsOfDecimal(o.cumQty, qtyK);
      if (!(Math.abs(held) <= LIMIT)) return NaN;
    }
    const pos = unitsOfDecimal(ctx.position(base), qtyK);
    if (!(Math.abs(pos) <= LIMIT)) return NaN;
    if (side === 'BUY') return maxU - pos - held;
    if (cfg.allowShort) return maxU + pos - held;
    const free = unitsOfDecimal(ctx.balance(base).free, qtyK);
    return Math.abs(free) <= LIMIT ? Math.min(pos - held, free) : NaN;
  }

  /** The quantity of a new order on `side`: min(quantity, room) floored to the step, if it is worth sending. */
  function placeQty(side: OrderSideName): Decimal | undefined {
    const r = units ? roomUnits(side) : NaN;
    if (r === r) {
      const scale = 10 ** (qtyK - stepK);
      const q = divRound(Math.min(qtyU, r), scale, false);
      return q > 0 && q * scale >= minQtyU ? decimalOfScaled(q, stepK) : undefined;
    }
    const q = floorToStep(Decimal.min(qty, room(side)), step);
    return q.gt(0) && q.gte(minQty) ? q : undefined;
  }

  /** The side's quote: `want` a price, or a number of ticks on the integer path, or undefined for none. */
  function refreshSide(side: OrderSideName, want: Decimal | number | undefined): void {
    let keep = false;
    let pending = false;
    // Indexed loops over the open orders here, in roomUnits and isOpen: a for...of left an array
    // iterator and its results on the heap at every refresh (sampled heap profile of a backtest).
    const open = ctx.openOrders(symbol);
    for (let i = 0; i < open.length; i++) {
      const o = open[i] as OwnOrderView;
      if (o.side !== side || cancelling.has(o.clientId)) continue;
      if (o.state === 'PENDING') pending = true;
      const stale = keep || want === undefined || o.price === undefined || moved(o.price, want);
      if (stale) {
        if (o.state !== 'PENDING') {
          cancelling.add(o.clientId);
          ctx.cancel(symbol as string, o.clientId);
        }
      } else keep = true;
    }
    // A PENDING order may still be on its way; one order per side at most.
    if (!keep && want !== undefined && !pending) {
      const q = placeQty(side);
      if (q !== undefined) ctx.place({ symbol: symbol as string, side, orderType: 'LIMIT_MAKER', quantity: q, price: typeof want === 'number' ? decimalOfScaled(want, tickK) : want });
    }
  }

  /** Whether a resting price is at least requoteTicks away from the wanted one. */
  function moved(price: Decimal, want: Decimal | number): boolean {
    if (typeof want === 'number') {
      const t = unitsOfDecimal(price, tickK);
      if (t === t) return Math.abs(t - want) >= p.requoteTicks;
      want = decimalOfScaled(want, tickK);
    }
    return price.minus(want).abs().gte(minMove);
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
        const open = ctx.openOrders(symbol);
        for (const id of cancelling) if (!isOpen(open, id)) cancelling.delete(id);
      }
      const position = ctx.position(base);
      if (position !== quoteAt && !position.eq(quoteAt)) {
        quote = quoteOf(position);
        quoteAt = position;
      }
      if (units) {
        // NaN from a price off the tick grid (or sums past 2^53) gives undefined: the Decimal rule.
        const t = quoteTicks(unitsOfDecimal(bb.price, tickK), unitsOfDecimal(ba.price, tickK), quote);
        if (t !== undefined) {
          const ask = t.ask; // (t is reused by the next call)
          refreshSide('BUY', t.bid);
          refreshSide('SELL', ask);
          return;
        }
      }
      const mid = bb.price.plus(ba.price).div(2);
      const { bid, ask } = quotePrices(mid, position, cfg, { bestBid: bb.price, bestAsk: ba.price }, quote);
      refreshSide('BUY', bid);
      refreshSide('SELL', ask);
    },
    onStop(): void {
      ctx.cancelAll(symbol);
    },
  };
}
