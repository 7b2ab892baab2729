/**
 * Quote time at the touch: the share of a run, sampled at each equity sample (every second on tick
 * data), during which a strategy's best resting bid was at or above the market's best bid (and
 * its best ask at or below the best ask): where a market maker's quotes stand first in line for
 * the flow. Only samples at which it had a resting order on that side, and the book had that side,
 * count. The market's book is the replayed one (without our orders), so a quote inside the spread
 * counts as at the touch. Only on tick data (candles have no book). Prices as numbers, compared
 * once per sample per resting side: descriptive, they decide no order.
 */
import type { OrderUpdateEvent } from '../bus/events.js';
import { isTerminalState } from '../bus/events.js';
import { roundStat } from './metrics.js';

/** The market's best bid and ask of a symbol, when its book has them. */
export type BookTop = (symbol: string) => { readonly bid: number | undefined; readonly ask: number | undefined } | undefined;

/** A strategy's quote time at the touch. */
export interface QuoteTouch {
  /** Samples with a resting bid (ask) and a market bid (ask), and the share of them at the touch, percent; null without such samples. */
  readonly bidSamples: number;
  readonly bidAtTouchPct: number | null;
  readonly askSamples: number;
  readonly askAtTouchPct: number | null;
}

interface Side {
  samples: number;
  atTouch: number;
}

/** Tracks resting limit orders from order updates and scores them against the book at each sample. */
export class QuoteTouchTracker {
  /** strategy -> symbol -> clientId -> [buy, price] of each resting order with a price. */
  readonly #resting = new Map<string, Map<string, Map<string, readonly [boolean, number]>>>();
  readonly #sums = new Map<string, { bid: Side; ask: Side }>();

  constructor(readonly topOf: BookTop) {}

  /** An order update: a resting priced order is kept until it ends. */
  order(e: OrderUpdateEvent): void {
    let bySymbol = this.#resting.get(e.strategy);
    if (bySymbol === undefined) this.#resting.set(e.strategy, (bySymbol = new Map()));
    let orders = bySymbol.get(e.symbol);
    if (orders === undefined) bySymbol.set(e.symbol, (orders = new Map()));
    if (isTerminalState(e.state) || e.price === undefined || e.state === 'PENDING') orders.delete(e.clientId);
    // An order's price never changes under its clientId (a new price is a new order): a partial
    // fill's update finds the order kept and converts nothing.
    else if (!orders.has(e.clientId)) orders.set(e.clientId, [e.side === 'BUY', e.price.toNumber()]);
  }

  /** One sample: each strategy's best resting bid and ask against the book's. */
  sample(): void {
    for (const [strategy, bySymbol] of this.#resting) {
      for (const [symbol, orders] of bySymbol) {
        if (orders.size === 0) continue;
        const top = this.topOf(symbol);
        if (top === undefined) continue;
        let bid = -Infinity;
        let ask = Infinity;
        for (const [buy, price] of orders.values()) {
          if (buy) bid = Math.max(bid, price);
          else ask = Math.min(ask, price);
        }
        let s = this.#sums.get(strategy);
        if (s === undefined) this.#sums.set(strategy, (s = { bid: { samples: 0, atTouch: 0 }, ask: { samples: 0, atTouch: 0 } }));
        if (bid > -Infinity && top.bid !== undefined) score(s.bid, bid >= top.bid);
        if (ask < Infinity && top.ask !== undefined) score(s.ask, ask <= top.ask);
      }
    }
  }

  /** A strategy's figures. */
  of(strategy: string): QuoteTouch {
    const s = this.#sums.get(strategy);
    const pct = (x: Side | undefined): number | null => (x === undefined || x.samples === 0 ? null : roundStat((x.atTouch / x.samples) * 100));
    return { bidSamples: s?.bid.samples ?? 0, bidAtTouchPct: pct(s?.bid), askSamples: s?.ask.samples ?? 0, askAtTouchPct: pct(s?.ask) };
  }
}

function score(side: Side, atTouch: boolean): void {
  side.samples++;
  if (atTouch) side.atTouch++;
}
