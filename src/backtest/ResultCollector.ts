/**
 * Collects what a run did from the bus (fills, order updates, risk rejections) plus marks from
 * the replay, and turns it into a {@link BacktestResult}. Everything is keyed and iterated in a
 * fixed order (strategy name, symbol) so the same run always serializes to the same bytes.
 */
import type { StrategyFailure } from '../strategy/StrategyRunner.js';
import { isTerminalState, type BusEvent, type OrderUpdateEvent, type TrackedOrderStateName } from '../bus/events.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { decimalToNumber } from '../core/decimalNumber.js';
import { applyFill, netPnlBig, newPosition, unrealized, type PositionState } from './positions.js';
import { bigOf, bigPlus, bigToNumber, type BigDec } from '../core/bigDecimal.js';
import { maxDrawdown, riskRatios, roundStat, type EquityPoint } from './metrics.js';
import { reasonCode, Rejections } from './rejections.js';
import { OrderCounts } from './orderCounts.js';
import { pricedTripsOfValued } from './roundTrips.js';
import { NumberSpool } from './spool.js';
import { registerStreams, type ResultStreams } from './resultStreams.js';
import { curveOf, equityRowsOf, firstOf, lazyResult, pricesOf } from './sampleLists.js';
import { TradeStatsBuilder } from './tearsheet.js';
import { SpreadCaptureBuilder } from './spreadCapture.js';
import { QuoteTouchTracker, type BookTop } from './quoteTouch.js';
import { FillStore } from './fillStore.js';
import { TripStore } from './tripStore.js';
import { MarkoutBuilder } from './markouts.js';
import type { RunProvenance } from './provenance.js';
import type { Bar, PlotSeries } from './chartSeries.js';

import type { BacktestResult, ReportFill, ReportOpenOrder, StrategyMetrics } from './result.js';

export type { StrategyMetrics, ReportFill, ReportOpenOrder, BacktestResult } from './result.js';

/** What the collector needs to know about each strategy. */
export interface CollectorStrategy {
  readonly name: string;
  readonly symbols: readonly string[];
  /** Starting capital in quote currency (the strategy's budget), used for returns and equity. */
  readonly initialEquity: Decimal;
}

interface OrderTrack {
  qty: Decimal | undefined;
  cumQty: Decimal;
  state: TrackedOrderStateName;
  /** The order's first update: what an order still open at the end is reported with. */
  readonly first: OrderUpdateEvent;
}

/** Aggregates bus events into metrics; call `onEvent` for each bus event and `sample(t)` as time moves. */
export class ResultCollector {
  readonly #strategies: readonly CollectorStrategy[];
  readonly #positions = new Map<string, PositionState>();
  /** #positionsOf's answers, kept until a position is added (equity is sampled far more often). */
  readonly #positionsByStrategy = new Map<string, readonly PositionState[]>();
  /** Orders not ended yet, by strategy; an order that ends is folded into #ended and dropped. */
  readonly #orders = new Map<string, Map<string, OrderTrack>>();
  readonly #ended = new Map<string, OrderCounts>();
  readonly #rejections = new Rejections();
  readonly #marks = new Map<string, Decimal>();
  /**
   * Equity samples: the time, one value per strategy (in #strategies order) and the total last.
   * The result's curve, and each strategy's own curve read from it at the end; spooled (bounded
   * memory, spilled to disk past it) like the prices and fills.
   */
  readonly #equity: NumberSpool;
  /** Scratch list of #equityNumber's marks. */
  readonly #markRow: (BigDec | undefined)[] = [];
  /** Scratch row of #takeSample. */
  readonly #row: number[] = [];
  /** Scratch row of a price sample. */
  readonly #priceRow: number[] = [0, 0];
  /**
   * Each strategy's equity as last sampled, with the marks it was valued at (one per position of
   * #positionsOf, undefined for a flat one): the equity is a function of the positions and those
   * marks alone, so it holds while the marks are the same values, until the strategy's next fill
   * (which deletes it). About half of a tick replay's 1-second samples see the same mid as the one
   * before and no fill; a strategy with every position flat reads no mark at all.
   */
  readonly #lastEquity = new Map<string, { eq: number; marks: (BigDec | undefined)[] }>();
  #lastPosition: PositionState | undefined;
  /** Marks read during the sample being taken (#sampleMark). */
  readonly #sampleMarks = new Map<string, Decimal | undefined>();
  /** Initial equity of each strategy as a BigDec (#equityNumber). */
  readonly #initialBigs = new Map<string, BigDec>();
  readonly #prices = new Map<string, NumberSpool>();
  /** The keys of #prices in insertion order (iterated per sample without entry arrays). */
  readonly #priceSymbols: string[] = [];
  readonly #fills = new FillStore();
  readonly #spread = new SpreadCaptureBuilder();
  /** Quote time at the touch, with a book to compare against (tick data). */
  readonly #touch: QuoteTouchTracker | undefined;
  readonly #interval: number;
  #nextSample: number | undefined;
  #first: number | undefined;
  #last = 0;
  #events = 0;

  readonly #markOf: ((symbol: string) => Decimal | undefined) | undefined;

  /**
   * `markOf` (optional) is asked for a symbol's mark at each sample (e.g. the book mid); when it
   * has none, the last price given to `mark()` is used.
   */
  constructor(strategies: readonly CollectorStrategy[], equityIntervalMs: number, markOf?: (symbol: string) => Decimal | undefined, topOf?: BookTop) {
    this.#markOf = markOf;
    this.#touch = topOf === undefined ? undefined : new QuoteTouchTracker(topOf);
    if (!(equityIntervalMs > 0)) throw new RangeError(`equityIntervalMs must be > 0, got ${equityIntervalMs}`);
    this.#strategies = [...strategies].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#interval = equityIntervalMs;
    this.#equity = new NumberSpool(this.#strategies.length + 2);
    for (const s of this.#strategies) {
      this.#orders.set(s.name, new Map());
      this.#ended.set(s.name, new OrderCounts());
      for (const sym of s.symbols) {
        this.#positions.set(`${s.name}\u0000${sym}`, newPosition(s.name, sym));
        if (!this.#prices.has(sym)) {
          this.#prices.set(sym, new NumberSpool(2));
          this.#priceSymbols.push(sym);
        }
      }
    }
  }

  /**
   * How many records the collector holds for the run (orders not ended yet): bounded by what is
   * open at a time, not by the run's length (tests hold it to that).
   */
  held(): { openOrders: number } {
    let openOrders = 0;
    for (const m of this.#orders.values()) openOrders += m.size;
    return { openOrders };
  }

  /** Samples and fills taken so far. */
  counts(): { samples: number; fills: number } {
    return { samples: this.#equity.length, fills: this.#fills.length };
  }

  /** Sets the mark price of a symbol (book mid, last trade or bar close: the replay decides). */
  mark(symbol: string, price: Decimal): void {
    this.#marks.set(symbol, price);
  }

  /** Feeds one bus event. */
  onEvent(e: BusEvent): void {
    this.#events++;
    switch (e.type) {
      case 'fill': {
        const p = this.#position(e.strategy, e.symbol);
        applyFill(p, e);
        this.#lastEquity.delete(e.strategy);
        this.#fills.push(e);
        // The mark when it filled (the book mid on tick data), for the spread it captured: one number per fill.
        const mark = this.#markFor(e.symbol);
        this.#spread.mark(mark === undefined ? undefined : decimalToNumber(mark));
        break;
      }
      case 'orderUpdate': {
        this.#touch?.order(e);
        const m = this.#orders.get(e.strategy);
        if (!m) break;
        let o = m.get(e.clientId);
        // A venue's reason reads `CODE: message`: counted by its code, the first message kept as the example.
        if (e.state === 'REJECTED') this.#rejections.add(e.strategy, 'venue', reasonCode(e.reason ?? 'REJECTED'), e.reason ?? 'rejected by the venue');
        if (o) {
          o.state = e.state;
          o.cumQty = e.cumQty;
          if (o.qty === undefined && e.quantity !== undefined) o.qty = e.quantity;
        } else m.set(e.clientId, (o = { qty: e.quantity, cumQty: e.cumQty, state: e.state, first: e }));
        if (isTerminalState(o.state)) {
          m.delete(e.clientId);
          this.#ended.get(e.strategy)?.add(o);
        }
        break;
      }
      case 'intentRejected':
        this.#rejections.add(e.strategy, 'risk', e.reason, e.message);
        break;
      default:
        break;
    }
  }

  /** Records equity and price samples for every interval boundary passed up to time `t`. */
  sample(t: number): void {
    this.observe(t);
    while (this.#nextSample !== undefined && t >= this.#nextSample) {
      this.#takeSample(this.#nextSample);
      this.#nextSample += this.#interval;
    }
  }

  /** Time of the next equity sample due, once the first event has been observed. */
  nextDue(): number | undefined {
    return this.#nextSample;
  }

  /**
   * Notes that the run has reached `t` without sampling: the first call starts the sample grid
   * there. Samples due at `t` are taken later, once every event at `t` has been applied.
   */
  observe(t: number): void {
    if (this.#first === undefined) {
      this.#first = t;
      this.#nextSample = t;
    }
    if (t > this.#last) this.#last = t;
  }

  #takeSample(t: number): void {
    this.#touch?.sample();
    // A symbol's mark is read once per sample (a book mid builds a Decimal) for its equity and its price.
    this.#sampleMarks.clear();
    const row = this.#row;
    row.length = 0;
    row.push(t);
    let total = 0;
    // Indexed loops: a for...of here left two array iterators and their results per sample.
    const strategies = this.#strategies;
    for (let i = 0; i < strategies.length; i++) {
      const eq = this.#equityNumber(strategies[i] as CollectorStrategy);
      row.push(eq);
      total += eq;
    }
    row.push(total);
    this.#equity.push(row);
    const px = this.#priceRow;
    px[0] = t;
    const symbols = this.#priceSymbols;
    for (let i = 0; i < symbols.length; i++) {
      const sym = symbols[i] as string;
      const m = this.#sampleMark(sym);
      if (m === undefined) continue;
      px[1] = decimalToNumber(m);
      (this.#prices.get(sym) as NumberSpool).push(px);
    }
  }

  #markFor(symbol: string): Decimal | undefined {
    return this.#markOf?.(symbol) ?? this.#marks.get(symbol);
  }

  /** #markFor within one sample, read once per symbol. */
  #sampleMark(symbol: string): Decimal | undefined {
    const marks = this.#sampleMarks;
    let m = marks.get(symbol);
    if (m === undefined && !marks.has(symbol)) marks.set(symbol, (m = this.#markFor(symbol)));
    return m;
  }

  #position(strategy: string, symbol: string): PositionState {
    // Fills mostly come for the position of the previous fill: no key string built for them.
    const last = this.#lastPosition;
    if (last !== undefined && last.strategy === strategy && last.symbol === symbol) return last;
    const k = `${strategy}\u0000${symbol}`;
    let p = this.#positions.get(k);
    if (!p) {
      p = newPosition(strategy, symbol);
      this.#positions.set(k, p);
      this.#positionsByStrategy.clear();
      this.#lastEquity.clear();
    }
    this.#lastPosition = p;
    return p;
  }

  #positionsOf(name: string): readonly PositionState[] {
    let l = this.#positionsByStrategy.get(name);
    if (l === undefined) {
      l = [...this.#positions.values()].filter((p) => p.strategy === name).sort((a, b) => (a.symbol < b.symbol ? -1 : 1));
      this.#positionsByStrategy.set(name, l);
    }
    return l;
  }

  /**
   * The nearest double of the Decimal formula init + sum of netPnl(position, mark), each step
   * rounded to 40 digits as decimal.js rounds it: computed with core/bigDecimal.ts, which gives
   * the same values (a long average price after adding to a position costs no decimal.js division
   * or product here). The last sample's value when no fill came since and every open position's
   * mark is the same value (#lastEquity).
   */
  #equityNumber(s: CollectorStrategy): number {
    const positions = this.#positionsOf(s.name);
    const last = this.#lastEquity.get(s.name);
    // Kept (copied) only when the value is computed: a sample at unchanged marks allocates nothing here.
    const marks = this.#markRow;
    marks.length = 0;
    let same = last !== undefined;
    for (let i = 0; i < positions.length; i++) {
      const p = positions[i] as PositionState;
      // Each mark is read once per sample (a book mid builds a Decimal); a flat position needs none.
      const m = p.flat ? undefined : this.#sampleMark(p.symbol);
      const b = m === undefined ? undefined : bigOf(m);
      marks.push(b);
      if (same && !sameBig(b, last?.marks[i])) same = false;
    }
    if (same && last !== undefined) return last.eq;
    let eq = this.#initialBig(s);
    for (let i = 0; i < positions.length; i++) {
      const p = positions[i] as PositionState;
      eq = bigPlus(eq, netPnlBig(p, marks[i]));
    }
    const n = bigToNumber(eq);
    this.#lastEquity.set(s.name, { eq: n, marks: marks.slice() });
    return n;
  }

  #initialBig(s: CollectorStrategy): BigDec {
    let b = this.#initialBigs.get(s.name);
    if (b === undefined) this.#initialBigs.set(s.name, (b = bigOf(s.initialEquity)));
    return b;
  }

  /** Column `col` of the equity samples as a curve (readable any number of times). */
  #curve(col: number): Iterable<EquityPoint> {
    const spool = this.#equity;
    return { [Symbol.iterator]: () => curveOf(spool, col) };
  }

  /**
   * Builds the result; takes a final sample at the last time seen so the curve ends at the end.
   * Its equity, prices, fills and round trips stay in spools (see resultStreams.ts).
   */
  finish(name: string, failures: readonly StrategyFailure[] = [], chart: { bars: Record<string, Bar[]>; plots: PlotSeries[] } = { bars: {}, plots: [] }, provenance?: RunProvenance, warnings: readonly string[] = []): BacktestResult {
    const end = this.#last;
    const lastT = this.#equity.last(0);
    if (this.#first !== undefined && (lastT === undefined || lastT < end)) this.#takeSample(end);
    const strategies: Record<string, StrategyMetrics> = {};
    const all: { pos: readonly PositionState[]; init: Decimal; orders: OrderCounts; risk: number }[] = [];
    for (const [i, s] of this.#strategies.entries()) {
      const pos = this.#positionsOf(s.name);
      const orders = (this.#ended.get(s.name) ?? new OrderCounts()).withOpen([...(this.#orders.get(s.name)?.values() ?? [])]);
      const risk = this.#rejections.count(s.name, 'risk');
      strategies[s.name] = this.#metrics(pos, this.#curve(i + 1), s.initialEquity, orders, risk);
      all.push({ pos, init: s.initialEquity, orders, risk });
    }
    const quotes = new Set(all.flatMap((a) => a.pos.map((p) => p.quoteAsset)));
    let total: StrategyMetrics | undefined;
    const only = all.length === 1 ? this.#strategies[0] : undefined;
    // One strategy: the total has the same positions, orders, initial equity (0 + init) and curve
    // (each sample's total is 0 + its equity), so its metrics are the strategy's own.
    if (quotes.size <= 1 && only !== undefined) total = strategies[only.name];
    else if (quotes.size <= 1 && all.length > 0) {
      total = this.#metrics(
        all.flatMap((a) => a.pos),
        this.#curve(this.#equity.width - 1),
        all.reduce((acc, a) => acc.plus(a.init), ZERO),
        all.reduce((acc, a) => (acc.merge(a.orders), acc), new OrderCounts()),
        all.reduce((acc, a) => acc + a.risk, 0),
      );
    }
    const openOrders: ReportOpenOrder[] = [];
    for (const s of this.#strategies) {
      for (const [clientId, o] of this.#orders.get(s.name) ?? []) {
        if (isTerminalState(o.state)) continue;
        const f = o.first;
        openOrders.push({ strategy: s.name, clientId, symbol: f.symbol, side: f.side, orderType: f.orderType, state: o.state, price: f.price?.toFixed(), quantity: o.qty?.toFixed(), filledQty: o.cumQty.toFixed(), since: f.E });
      }
    }
    const symbols = [...this.#prices.keys()].sort();
    const fills = this.#fills;
    // One pass over the fills builds the round trips and every strategy's trade statistics.
    const span = { start: this.#first ?? 0, end };
    const builders = new Map(this.#strategies.map((s) => [s.name, new TradeStatsBuilder(span)]));
    const trips = new TripStore();
    const markouts = new MarkoutBuilder(this.#interval, (sym) => ({ [Symbol.iterator]: () => pricesOf(this.#prices.get(sym)) }));
    const onFill = (f: ReportFill, change: BigDec): void => {
      builders.get(f.strategy)?.fill(f, change);
      markouts.fill(f);
      this.#spread.fill(f);
    };
    for (const { trip, pnl, amounts } of pricedTripsOfValued(fills.valued(), onFill)) {
      trips.push(trip, amounts);
      builders.get(trip.strategy)?.trip(trip, pnl);
    }
    const tearsheet = Object.fromEntries(
      this.#strategies.map((s, i) => {
        const px = s.symbols[0] === undefined ? undefined : this.#prices.get(s.symbols[0]);
        const marks = { first: px === undefined ? undefined : firstOf(px.column(1)), last: px?.last(1) };
        const equity = { curve: this.#curve(i + 1), intervalMs: this.#interval };
        const stats = (builders.get(s.name) as TradeStatsBuilder).stats(strategies[s.name] as StrategyMetrics, s.symbols[0], marks, equity);
        return [s.name, { ...stats, markouts: markouts.of(s.name, roundStat), spreadCaptured: this.#spread.of(s.name, roundStat), ...(this.#touch !== undefined ? { quoteTouch: this.#touch.of(s.name) } : {}) }];
      }),
    );
    const spool = this.#equity;
    const priceSpools = new Map(symbols.map((sym) => [sym, this.#prices.get(sym) as NumberSpool]));
    const streams: ResultStreams = {
      equityCount: spool.length,
      equity: () => ({ [Symbol.iterator]: () => equityRowsOf(spool) }),
      priceCounts: Object.fromEntries(symbols.map((sym) => [sym, priceSpools.get(sym)?.length ?? 0])),
      prices: (sym) => ({ [Symbol.iterator]: () => pricesOf(priceSpools.get(sym)) }),
      fillCount: fills.length,
      fills: () => fills,
      roundTripCount: trips.length,
      roundTrips: () => trips,
      dispose: () => {
        spool.dispose();
        for (const p of priceSpools.values()) p.dispose();
        fills.dispose();
        trips.dispose();
      },
    };
    const result = lazyResult([
      ['name', name],
      ['start', this.#first ?? 0],
      ['end', end],
      ['events', this.#events],
      ['equityIntervalMs', this.#interval],
      ['strategies', strategies],
      ['total', total],
      ['equity', () => [...streams.equity()]],
      ['prices', () => Object.fromEntries(symbols.map((sym) => [sym, [...streams.prices(sym)]]))],
      ['fills', () => [...fills]],
      ['openOrders', openOrders],
      ['rejections', Object.fromEntries(this.#strategies.map((s) => [s.name, this.#rejections.of(s.name)]))],
      ['failures', [...failures]],
      ['warnings', [...warnings]],
      ['roundTrips', () => [...trips]],
      ['tearsheet', tearsheet],
      ['bars', chart.bars],
      ['plots', chart.plots],
      ['provenance', provenance],
    ]);
    registerStreams(result, streams);
    return result;
  }

  #metrics(pos: readonly PositionState[], curve: Iterable<EquityPoint>, init: Decimal, orders: OrderCounts, riskRejections: number): StrategyMetrics {
    let realized = ZERO;
    let unreal = ZERO;
    let fees = ZERO;
    let turnover = ZERO;
    let trades = 0;
    // Net PnL from cash flows is exact; the realized/unrealized split divides by quantities
    // (average cost), so those two are shown to 10 decimals.
    let net = ZERO;
    const positions: Record<string, string> = {};
    for (const p of pos) {
      const m = this.#markFor(p.symbol);
      net = net.plus(p.cash).plus(m === undefined ? ZERO : p.qty.mul(m));
      realized = realized.plus(p.realized);
      unreal = unreal.plus(unrealized(p, this.#markFor(p.symbol)));
      fees = fees.plus(p.fees);
      turnover = turnover.plus(p.turnover);
      trades += p.trades;
      positions[p.symbol] = p.qty.plus(positions[p.symbol] ?? 0).toFixed();
    }
    const finalEquity = init.plus(net);
    const dd = maxDrawdown(curve);
    const ratios = riskRatios(curve, this.#interval);
    const open = orders.orders - orders.filled - orders.canceled - orders.rejected;
    return {
      quoteAsset: pos[0]?.quoteAsset ?? '',
      initialEquity: init.toFixed(),
      finalEquity: finalEquity.toFixed(),
      realizedPnl: realized.toDecimalPlaces(10).toFixed(),
      unrealizedPnl: unreal.toDecimalPlaces(10).toFixed(),
      fees: fees.toFixed(),
      netPnl: net.toFixed(),
      returnPct: init.isZero() ? 0 : roundStat(net.div(init).mul(100).toNumber()),
      maxDrawdown: new Decimal(roundStat(dd.abs)).toFixed(),
      maxDrawdownPct: roundStat(dd.pct * 100),
      sharpePerPeriod: ratios.sharpePerPeriod,
      sortinoPerPeriod: ratios.sortinoPerPeriod,
      sharpe: ratios.sharpe,
      sortino: ratios.sortino,
      ratioSample: ratios.sample,
      ratioNotes: ratios.notes,
      turnover: turnover.toFixed(),
      turnoverRatio: init.isZero() ? 0 : roundStat(turnover.div(init).toNumber()),
      orders: orders.orders,
      ordersFilled: orders.filled,
      ordersCanceled: orders.canceled,
      ordersRejected: orders.rejected,
      ordersOpen: open,
      riskRejections,
      trades,
      fillRatio: orders.orders === 0 ? 0 : roundStat(orders.withFill / orders.orders),
      qtyFillRatio: orders.qtyOrdered.value.isZero() ? 0 : roundStat(orders.qtyFilled.value.div(orders.qtyOrdered.value).toNumber()),
      positions,
    };
  }
}

/** Whether two optional BigDecs hold the same value in the same form (bigOf gives one form per value). */
function sameBig(a: BigDec | undefined, b: BigDec | undefined): boolean {
  return a === undefined ? b === undefined : b !== undefined && a.m === b.m && a.e === b.e;
}
