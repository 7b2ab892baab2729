/**
 * The venue of candle mode: a simple, documented fill model over bars for strategies that only
 * need candles (no order book is replayed).
 *
 * - MARKET orders fill completely at the open of the first bar that opens after they arrive,
 *   at the taker fee.
 * - A bar that opened before an order arrived never executes it (not its open, high or low): all
 *   of them may have happened before the order existed. Such an order was sent on a bar of another
 *   symbol closing at the same instant (replayed first) or on a timer inside the bar.
 * - LIMIT / LIMIT_MAKER orders rest. On each bar that opens after they arrive: if the bar opens through the limit
 *   (buy: open <= price; sell: open >= price) a LIMIT fills at the open as taker (a LIMIT_MAKER
 *   expires instead, it would have taken); otherwise it fills completely at its limit price as
 *   maker when the bar trades strictly through it (buy: low < price; sell: high > price). A touch
 *   alone does not fill: the queue ahead of us is unknown, so this errs on the safe side.
 * - A LIMIT_MAKER that crosses the last close when it arrives is rejected (it would take).
 * - Other order types are rejected (ORDER_TYPE_NOT_SUPPORTED); cancels act at once.
 * - Commissions are charged as the matching engine and the exchange charge them, in the asset
 *   received: a buy's in the base asset (qty x fee rate), a sell's in the quote asset (quoteQty x
 *   fee rate). So a position bought here holds what it would hold in tick mode, paper and live.
 * Exchange filters are the risk checker's job before an intent reaches any venue.
 * Results come back as orderUpdate and fill events, after the current event (scheduler, delay 0).
 */
import { isTerminalState, type BusEvent } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import { Decimal, isAboveZero, ZERO } from '../core/decimal.js';
import type { KlineEvent } from '../core/marketEvents.js';
import type { Scheduler } from './Scheduler.js';
import { fillOf, orderUpdateOf, type VenueOrder } from './orderEvents.js';
import { UsedIds } from './usedIds.js';

/** Options of the candle venue. */
export interface CandleVenueOptions {
  readonly scheduler: Scheduler;
  readonly publish: (e: BusEvent) => void;
  /** Fee rates as fractions (0.001 = 0.1 %). */
  readonly makerFee: Decimal;
  readonly takerFee: Decimal;
}

const SUPPORTED = new Set(['MARKET', 'LIMIT', 'LIMIT_MAKER']);

/** An order of this venue and the time it arrived (the first bar that may execute it opens at or after it). */
interface CandleOrder extends VenueOrder {
  readonly arrivedAt: number;
}

/** What the venue keeps per symbol. */
interface SymbolState {
  /** Resting orders in arrival order. */
  readonly open: CandleOrder[];
  /** The last bar seen (undefined before the first): its close is read only when an order needs it. */
  lastBar: KlineEvent | undefined;
  /** The base asset, in which a buy's commission is charged. */
  readonly base: string;
  /** The quote asset, in which a sell's commission is charged. */
  readonly quote: string;
}

/** Candle-mode venue. Call `onBar` with each bar before the bar's kline event is published. */
export class CandleVenue implements Venue {
  readonly name = 'candle-sim';
  readonly #opts: CandleVenueOptions;
  /** Per symbol: resting orders and the last bar. */
  readonly #symbols = new Map<string, SymbolState>();
  /** Orders not yet final, by clientId (a final order is dropped: nothing can change it any more). */
  readonly #byClient = new Map<string, CandleOrder>();
  /**
   * Every clientId ever placed, for the duplicate check: the runner's own ids as one number per
   * strategy (UsedIds), so the check holds no string per order for the whole run.
   */
  readonly #usedClientIds = new UsedIds();
  /** Publishes the event it is given: scheduled with each report as its argument, no closure per report. */
  readonly #publishOne = (e: BusEvent): void => this.#opts.publish(e);
  #lastSymbol: string | undefined;
  #lastState: SymbolState | undefined;
  #orderSeq = 0;
  #tradeSeq = 0;

  constructor(opts: CandleVenueOptions) {
    this.#opts = opts;
  }

  submit(intent: Intent): void {
    const now = this.#opts.scheduler.clock.now();
    switch (intent.kind) {
      case 'place':
        this.#place(intent, now);
        return;
      case 'cancel': {
        const o = this.#byClient.get(intent.clientId);
        if (o && !isTerminalState(o.state) && o.intent.strategy === intent.strategy) this.#cancel(o, now);
        else this.#later({ type: 'intentRejected', E: now, strategy: intent.strategy, intent, reason: 'UNKNOWN_ORDER', message: `no open order with clientId ${intent.clientId}` });
        return;
      }
      case 'cancelAll':
        for (const st of this.#symbols.values())
          for (const o of [...st.open]) if (o.intent.strategy === intent.strategy && (intent.symbol === undefined || o.intent.symbol === intent.symbol)) this.#cancel(o, now);
        return;
      default: {
        const never: never = intent;
        throw new Error(`unknown intent ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The place intents of the orders not final yet, for the risk gate's account-wide order counts
   * (MAX_NUM_ORDERS and friends), which must hold in candle mode as they do live.
   */
  liveIntents(): PlaceIntent[] {
    const out: PlaceIntent[] = [];
    for (const o of this.#byClient.values()) out.push(o.intent);
    return out;
  }

  /** Executes resting orders against a bar (see the class comment). Call before publishing the bar. */
  onBar(bar: KlineEvent): void {
    const st = this.#state(bar.symbol);
    st.lastBar = bar;
    const list = st.open;
    if (list.length === 0) return;
    // A copy: fills and expiries remove orders from the list while it is walked.
    for (const o of list.length === 1 ? [list[0] as CandleOrder] : [...list]) {
      if (o.arrivedAt > bar.openTime) continue;
      const i = o.intent;
      const buy = i.side === 'BUY';
      if (i.orderType === 'MARKET') {
        this.#fill(o, bar.open, false, bar.openTime);
        continue;
      }
      const price = i.price as Decimal;
      const opensThrough = buy ? bar.open.lte(price) : bar.open.gte(price);
      if (opensThrough) {
        if (i.orderType === 'LIMIT_MAKER') this.#finish(o, 'EXPIRED', bar.openTime, 'would take at the open');
        else this.#fill(o, bar.open, false, bar.openTime);
      } else if (buy ? bar.low.lt(price) : bar.high.gt(price)) this.#fill(o, price, true, bar.closeTime);
    }
  }

  #place(i: PlaceIntent, now: number): void {
    const o: CandleOrder = { intent: i, orderId: undefined, state: 'PENDING', cumQty: ZERO, cumQuoteQty: ZERO, arrivedAt: now };
    if (this.#usedClientIds.has(i.clientId)) {
      this.#later({ type: 'intentRejected', E: now, strategy: i.strategy, intent: i, reason: 'DUPLICATE_CLIENT_ID', message: `clientId ${i.clientId} already used` });
      return;
    }
    this.#usedClientIds.add(i.clientId);
    this.#byClient.set(i.clientId, o);
    if (!SUPPORTED.has(i.orderType)) return this.#finish(o, 'REJECTED', now, 'ORDER_TYPE_NOT_SUPPORTED: candle mode supports MARKET, LIMIT and LIMIT_MAKER');
    if (i.quantity === undefined || !isAboveZero(i.quantity)) return this.#finish(o, 'REJECTED', now, 'MISSING_PARAMETER: candle mode needs a positive quantity');
    if (i.orderType !== 'MARKET' && (i.price === undefined || !isAboveZero(i.price))) return this.#finish(o, 'REJECTED', now, 'MISSING_PARAMETER: price');
    const st = this.#state(i.symbol);
    // The last close is read only for the one check that needs it.
    const last = i.orderType === 'LIMIT_MAKER' ? st.lastBar?.close : undefined;
    if (last !== undefined && (i.side === 'BUY' ? i.price?.gte(last) : i.price?.lte(last))) {
      return this.#finish(o, 'REJECTED', now, `LIMIT_MAKER_WOULD_TAKE: price ${i.price?.toFixed()} crosses the last close ${last.toFixed()}`);
    }
    o.orderId = `c${++this.#orderSeq}`;
    o.state = 'NEW';
    st.open.push(o);
    this.#later(orderUpdateOf(o, now));
  }

  #cancel(o: CandleOrder, now: number): void {
    this.#finish(o, 'CANCELED', now);
  }

  #finish(o: CandleOrder, state: 'CANCELED' | 'REJECTED' | 'EXPIRED', E: number, reason?: string): void {
    o.state = state;
    this.#remove(o);
    this.#later(orderUpdateOf(o, E, reason));
  }

  #fill(o: CandleOrder, price: Decimal, isMaker: boolean, E: number): void {
    // Orders fill completely, once: with nothing filled yet (cumQty is 0) the fill is the whole
    // quantity and the cumulative amounts are the fill's own (0 + x is x), so no Decimal is built
    // for them.
    const first = o.cumQty.isZero();
    const qty = first ? (o.intent.quantity as Decimal) : (o.intent.quantity as Decimal).minus(o.cumQty);
    const quoteQty = price.mul(qty);
    const buy = o.intent.side === 'BUY';
    const commission = (buy ? qty : quoteQty).mul(isMaker ? this.#opts.makerFee : this.#opts.takerFee);
    o.cumQty = first ? qty : o.cumQty.plus(qty);
    o.cumQuoteQty = first ? quoteQty : o.cumQuoteQty.plus(quoteQty);
    o.state = 'FILLED';
    const st = this.#remove(o);
    // One scheduler entry for both events: the two would run back to back anyway (same time,
    // consecutive sequence numbers), and one entry is half the queue work per fill.
    const fill = fillOf(o, E, { tradeId: String(++this.#tradeSeq), price, qty, quoteQty, commission, commissionAsset: buy ? st.base : st.quote, isMaker });
    const update = orderUpdateOf(o, E);
    const publish = this.#opts.publish;
    this.#opts.scheduler.schedule(0, () => {
      publish(fill);
      publish(update);
    });
  }

  /** Takes `o`, now final, off the live orders and its symbol's resting orders; returns the symbol's state. */
  #remove(o: CandleOrder): SymbolState {
    this.#byClient.delete(o.intent.clientId);
    const st = this.#state(o.intent.symbol);
    const list = st.open;
    const k = list[0] === o ? 0 : list.indexOf(o);
    if (k >= 0) list.splice(k, 1);
    return st;
  }

  #state(symbol: string): SymbolState {
    // Bars mostly come for the symbol of the previous call: no map read for them.
    if (symbol === this.#lastSymbol && this.#lastState !== undefined) return this.#lastState;
    let st = this.#symbols.get(symbol);
    if (st === undefined) {
      const u = symbol.indexOf('_');
      this.#symbols.set(symbol, (st = { open: [], lastBar: undefined, base: symbol.slice(0, u), quote: symbol.slice(u + 1) }));
    }
    this.#lastSymbol = symbol;
    this.#lastState = st;
    return st;
  }

  #later(e: BusEvent): void {
    this.#opts.scheduler.schedule(0, this.#publishOne, e);
  }
}

/** Fee helper: parses a fee rate given in basis points. */
export function bpsToRate(bps: number): Decimal {
  return new Decimal(bps).div(10_000);
}
