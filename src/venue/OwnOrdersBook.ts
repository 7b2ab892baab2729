/**
 * The book a strategy reads on paper and in a backtest: the local book of the market data plus the
 * account's own resting orders. Live, the exchange's book holds our orders and the depth stream
 * shows them, so `ctx.book()` includes them; the simulated venues keep them in the matching engine,
 * out of the replayed or streamed market data, so this view adds them back: the same world in every
 * mode (src/backtest/README.md, "One world in every mode").
 *
 * An order counts with its unfilled quantity at its limit price while its state is NEW or
 * PARTIALLY_FILLED: LIMIT and LIMIT_MAKER orders only (a stop or take-profit order rests in no book
 * until triggered; a market order never rests). Which orders and states: the source's. In tick mode
 * that is the engine's, shown when the depth stream would show them (ShownOwnOrders.ts), not when
 * the strategy hears of them.
 */
import type { BookView, FillCost } from '../core/bookView.js';
import { Decimal, ZERO, fitsPrecision } from '../core/decimal.js';
import type { OrderSideName } from '../core/enums.js';
import type { BookLevel } from '../core/types.js';
import type { OwnOrderView } from '../strategy/types.js';

/** No open orders. */
const NO_ORDERS: readonly OwnOrderView[] = [];

/**
 * Open orders of the account on a symbol, as the strategies know them. A list given again (the
 * same object) must hold the same orders: the view keeps what it read of it.
 */
export type OwnOrdersOf = (symbol: string) => Iterable<OwnOrderView>;

/** Whether an order rests in the exchange's book (see the header), and its unfilled quantity. */
export function restingQty(o: OwnOrderView): Decimal | undefined {
  if ((o.state !== 'NEW' && o.state !== 'PARTIALLY_FILLED') || (o.orderType !== 'LIMIT' && o.orderType !== 'LIMIT_MAKER')) return undefined;
  const q = o.quantity;
  if (o.price === undefined || q === undefined) return undefined;
  // Nothing filled (most resting quotes): q - 0 is q itself when q has at most 35 digits.
  if (o.cumQty.isZero() && fitsPrecision(q)) return q.s > 0 && !q.isZero() ? q : undefined;
  const left = q.minus(o.cumQty);
  return left.gt(0) ? left : undefined;
}

/** Own resting levels of one side, best first (price-aggregated). */
function ownLevels(orders: Iterable<OwnOrderView>, side: OrderSideName): BookLevel[] {
  const by = new Map<string, BookLevel>();
  for (const o of orders) {
    const left = o.side === side ? restingQty(o) : undefined;
    if (left === undefined) continue;
    const price = o.price as Decimal;
    const k = price.toFixed();
    const l = by.get(k);
    by.set(k, { price, qty: l === undefined ? left : l.qty.plus(left) });
  }
  const out = [...by.values()];
  return out.sort((a, b) => (side === 'BUY' ? b.price.cmp(a.price) : a.price.cmp(b.price)));
}

/** Merges two sides' levels, best first (bids: `desc`), summing equal prices. */
function mergeLevels(market: readonly BookLevel[], own: readonly BookLevel[], desc: boolean): BookLevel[] {
  const out: BookLevel[] = [];
  let i = 0;
  let j = 0;
  while (i < market.length || j < own.length) {
    const m = market[i];
    const o = own[j];
    if (o === undefined || (m !== undefined && (desc ? m.price.gt(o.price) : m.price.lt(o.price)))) {
      out.push(m as BookLevel);
      i++;
    } else if (m === undefined || !m.price.eq(o.price)) {
      out.push(o);
      j++;
    } else {
      out.push({ price: m.price, qty: m.qty.plus(o.qty) });
      i++;
      j++;
    }
  }
  return out;
}

/** A book view over `market` with the resting orders of `own` added. */
export class OwnOrdersBook implements BookView {
  /** The order lists #ownBest last read per side, and what it found in them. */
  #bidsOf: Iterable<OwnOrderView> | undefined;
  #bestBid: BookLevel | undefined;
  #asksOf: Iterable<OwnOrderView> | undefined;
  #bestAsk: BookLevel | undefined;

  constructor(
    readonly market: BookView,
    readonly own: OwnOrdersOf,
  ) {}

  get symbol(): string {
    return this.market.symbol;
  }

  get ready(): boolean {
    return this.market.ready;
  }

  get lastUpdateId(): number {
    return this.market.lastUpdateId;
  }

  bestBid(): BookLevel | undefined {
    return this.#best('BUY', this.market.bestBid());
  }

  bestAsk(): BookLevel | undefined {
    return this.#best('SELL', this.market.bestAsk());
  }

  top(n: number): { bids: BookLevel[]; asks: BookLevel[] } {
    const t = this.market.top(n);
    const orders = [...this.own(this.symbol)];
    if (orders.length === 0) return t;
    return { bids: mergeLevels(t.bids, ownLevels(orders, 'BUY'), true).slice(0, n), asks: mergeLevels(t.asks, ownLevels(orders, 'SELL'), false).slice(0, n) };
  }

  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] } {
    const b = this.market.band(low, high);
    const orders = [...this.own(this.symbol)];
    if (orders.length === 0) return b;
    const inBand = (l: BookLevel): boolean => l.price.gte(low) && l.price.lte(high);
    return { bids: mergeLevels(b.bids, ownLevels(orders, 'BUY').filter(inBand), true), asks: mergeLevels(b.asks, ownLevels(orders, 'SELL').filter(inBand), false) };
  }

  /** Walks the opposite side with our orders in it (live, the exchange's book would show them too). */
  costToFill(side: OrderSideName, qty: Decimal): FillCost {
    const opposite: OrderSideName = side === 'BUY' ? 'SELL' : 'BUY';
    const own = ownLevels(this.own(this.symbol), opposite);
    if (own.length === 0) return this.market.costToFill(side, qty);
    // Enough market levels to fill qty on their own suffice: ours only add to them.
    for (let n = 64; ; n *= 4) {
      const t = this.market.top(n);
      const market = side === 'BUY' ? t.asks : t.bids;
      const r = walk(mergeLevels(market, own, opposite === 'BUY'), qty);
      if (r.filledQty.gte(qty) || market.length < n) return r;
    }
  }

  /** The better of the market's best level and ours (read on every event by quoting strategies). */
  #best(side: OrderSideName, market: BookLevel | undefined): BookLevel | undefined {
    const own = this.#ownBest(side);
    if (own === undefined) return market;
    if (market === undefined) return own;
    const c = market.price.cmp(own.price);
    if (c === 0) return { price: market.price, qty: market.qty.plus(own.qty) };
    return (side === 'BUY' ? c < 0 : c > 0) ? own : market;
  }

  /**
   * Our best level of a side, in one pass over the orders; kept while `own` gives the same list
   * (a strategy book hands out one list until its orders change, and the records never change).
   */
  #ownBest(side: OrderSideName): BookLevel | undefined {
    const orders = this.own(this.symbol);
    const buy = side === 'BUY';
    if (orders === (buy ? this.#bidsOf : this.#asksOf)) return buy ? this.#bestBid : this.#bestAsk;
    let own: BookLevel | undefined;
    for (const o of orders) {
      const left = o.side === side ? restingQty(o) : undefined;
      if (left === undefined) continue;
      const price = o.price as Decimal;
      if (own === undefined || (buy ? price.gt(own.price) : price.lt(own.price))) own = { price, qty: left };
      else if (price.eq(own.price)) own = { price, qty: own.qty.plus(left) };
    }
    if (buy) {
      this.#bidsOf = orders;
      this.#bestBid = own;
    } else {
      this.#asksOf = orders;
      this.#bestAsk = own;
    }
    return own;
  }
}

/** The cost of taking `qty` from `levels`, best first. */
function walk(levels: readonly BookLevel[], qty: Decimal): FillCost {
  let filled = ZERO;
  let quote = ZERO;
  let worst: Decimal | undefined;
  for (const l of levels) {
    if (filled.gte(qty)) break;
    const take = Decimal.min(l.qty, qty.minus(filled));
    filled = filled.plus(take);
    quote = quote.plus(take.mul(l.price));
    worst = l.price;
  }
  return { filledQty: filled, quoteQty: quote, avgPrice: filled.isZero() ? undefined : quote.div(filled), worstPrice: worst };
}

/** What a strategy runner exposes of its strategies' open orders. */
export interface OwnOrdersSource {
  readonly names: readonly string[];
  book(name: string): { openCount(): number; openOrders(symbol?: string): readonly OwnOrderView[] };
}

/**
 * The open orders of every strategy of a runner as the strategies know them (one account, as
 * live): a candle backtest's own orders, which rest in no engine (CandleVenue).
 */
export function ownOrdersOfRunner(runner: () => OwnOrdersSource | undefined): OwnOrdersOf {
  // One strategy's list as it is (the same list until its orders change: OwnOrdersBook keeps
  // its best levels while it gets the same list); several strategies' lists joined.
  return (symbol) => {
    const r = runner();
    if (r === undefined) return NO_ORDERS;
    let one: readonly OwnOrderView[] | undefined;
    let all: OwnOrderView[] | undefined;
    for (const n of r.names) {
      const b = r.book(n);
      if (b.openCount() === 0) continue;
      const list = b.openOrders(symbol);
      if (one === undefined) one = list;
      else (all ??= [...one]).push(...list);
    }
    return all ?? one ?? NO_ORDERS;
  };
}

/**
 * The books strategies read on paper and in a backtest: `market`'s book of each symbol with the
 * account's resting orders `own` added (ShownOwnOrders.ts: as the depth stream would show them).
 * One view per market book.
 */
export function booksWithOwnOrders(market: (symbol: string) => BookView | undefined, own: OwnOrdersOf): (symbol: string) => BookView | undefined {
  const views = new WeakMap<BookView, OwnOrdersBook>();
  return (symbol) => {
    const m = market(symbol);
    if (m === undefined) return undefined;
    let v = views.get(m);
    if (v === undefined) views.set(m, (v = new OwnOrdersBook(m, own)));
    return v;
  };
}
