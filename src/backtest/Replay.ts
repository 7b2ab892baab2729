/**
 * The replay loop: feeds recorded market data into the same bus that a live run uses, on a virtual
 * clock, on two clocks (twoClocks.ts): each item moves the simulated exchange (the matching
 * engine's replayed liquidity, the trades consuming it, our resting orders' queue and fills) at its
 * exchange time, and the strategy's side (local books, bars, last prices, the published event) at
 * its receive time (feedTime.ts). Every step at time t first runs everything the scheduler has due
 * up to t (orders reaching the engine, acknowledgements, fills, timers); a local step then updates
 * the local books, publishes the event and runs the work that event caused at the same instant.
 * An order reaching the engine at t meets the book as the exchange had it at t; nothing a strategy
 * sees is later than the clock.
 *
 * With a `start`, items before it move the market state only (local books, the engine's replayed
 * liquidity and trade window, last prices, bar books, the candle venue's last bar) and reach
 * neither the bus nor the collector; no timer is armed. The run goes live at the first item at or
 * after `start` (see {@link Replay.step}). With a `warmupMs`, the items of the span that long
 * before `start` are delivered as well (the strategies' warm-up: the caller refuses their orders
 * and keeps the collector out), still with no timer and no sample.
 */
import type { Bus } from '../bus/Bus.js';
import type { BookView } from '../core/bookView.js';
import type { Decimal } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { timeText } from '../config/timeBound.js';
import { symbolKey } from '../core/symbols.js';
import type { AggTradeEvent, BookStatusEvent, KlineEvent, MarketEvent, TradeEvent } from '../core/marketEvents.js';
import { BarBuilder, type BarTrade } from '../core/bars.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { RecordedItem } from '../record/reader.js';
import { rawTrade, scaledTradeOf } from '../record/trade.js';
import type { MatchingEngine } from '../sim/engine.js';
import { BarBook } from '../venue/BarBook.js';
import type { CandleVenue } from '../venue/CandleVenue.js';
import type { ResultCollector } from './ResultCollector.js';
import type { VirtualScheduler } from '../venue/Scheduler.js';
import { ReplayedBook } from './ReplayedBook.js';
import { StepClock, type ClockedBatch } from './twoClocks.js';

/** Longest stretch of replay between two turns of the event loop (signals, timers), in ms. */
const TURN_MS = 50;

/**
 * Where a symbol's last price is read from: the last trade (whose price a lazily read trade
 * parses only when someone asks) or the last bar's close. Keeping the event costs nothing per trade.
 */
type PriceSource = TradeEvent | AggTradeEvent | KlineEvent;

function priceOf(s: PriceSource): Decimal {
  return s.type === 'kline' ? s.close : s.price;
}

/** Options of a replay. */
export interface ReplayOptions {
  readonly bus: Bus;
  readonly scheduler: VirtualScheduler;
  /** Tick mode: the engine whose replayed liquidity follows the recording. */
  readonly engine?: MatchingEngine;
  /** Candle mode: the venue that executes against bars. */
  readonly candleVenue?: CandleVenue;
  /** Symbols whose local books are maintained (tick mode). */
  readonly bookSymbols?: readonly string[];
  readonly collector?: ResultCollector;
  /** Runs after each event's own work (e.g. publishing queued risk rejections). */
  readonly afterEvent?: () => void;
  /** Runs when a depth diff of `symbol` has moved the books, before it is published (ShownOwnOrders.ts). */
  readonly onDepth?: (symbol: string) => void;
  /** Publishes a timer event every `timerMs` of virtual time (0/undefined: none). */
  readonly timerMs?: number;
  /**
   * Epoch ms of the first item delivered (backtest.start); earlier items only warm up the market
   * state. Undefined: every item is delivered.
   */
  readonly start?: number;
  /** How `start` is named in errors: the config file and the value as written (default: none and the number). */
  readonly startSource?: { readonly file: string; readonly value: unknown; readonly warmup?: unknown };
  /** Called once when the run goes live, before the first item at or after `start` (e.g. starts the strategies). */
  readonly onLive?: () => void;
  /**
   * Length (ms) of the warm-up delivered before `start` (backtest.warmup); without a `start`, the
   * run's start is the first item's time plus this. Undefined: nothing is delivered before `start`.
   */
  readonly warmupMs?: number;
  /** Called once before the first item of the warm-up (e.g. starts the strategies, refusing their orders). */
  readonly onWarm?: () => void;
  /**
   * Bars built from the replayed trades (core/bars.ts, the rule the sandbox's klines of a replay
   * follow): each closed bar is published as a closed kline before the trade that closed it.
   * Whole bars only; recorded klines of the same symbol and interval are not delivered.
   */
  readonly bars?: readonly { readonly symbol: string; readonly interval: KlineIntervalName }[];
}

/** Counters of a replay. */
export interface ReplayStats {
  events: number;
  snapshots: number;
  firstTime: number | undefined;
  lastTime: number | undefined;
  /** Items replayed before `start` (market state, and the warm-up's also delivered). */
  warmUpItems: number;
  /** Time of the first item delivered in the warm-up (undefined: none was). */
  warmTime: number | undefined;
  /** Time of the first delivered item (undefined until the run is live). */
  liveTime: number | undefined;
}

/** Drives one replay. Use `step` per item (or `run` over a merged source), then `finish`. */
export class Replay {
  readonly stats: ReplayStats = { events: 0, snapshots: 0, firstTime: undefined, lastTime: undefined, warmUpItems: 0, warmTime: undefined, liveTime: undefined };
  readonly #o: ReplayOptions;
  /** The strategy's local books, moved at receive time. */
  readonly #books = new Map<string, ReplayedBook>();
  /** The simulated exchange's books, moved at exchange time, the engine's replayed liquidity following each. */
  readonly #exchangeBooks = new Map<string, ReplayedBook>();
  /** Last price source per symbol, in a holder so that a trade updates it without a map write. */
  readonly #lastPrice = new Map<string, { src: PriceSource }>();
  /** The symbol and holder of the last update (a recording's events nearly all share one symbol). */
  #lastSym: string | undefined;
  #lastHolder: { src: PriceSource } | undefined;
  readonly #barBooks = new Map<string, BarBook>();
  /** The symbol of the last closed bar and its bar book (#barBookOf). */
  #barSym: string | undefined;
  #barBook: BarBook | undefined;
  /** Bar builders by symbol key (any spelling), and by the spelling events carry once seen. */
  readonly #barsByKey = new Map<string, BarBuilder[]>();
  readonly #barsBySymbol = new Map<string, readonly BarBuilder[]>();
  /** Bars the last trade closed, published before it (dropped during the warm-up). */
  readonly #closedBars: KlineEvent[] = [];
  #timerId: number | undefined;
  /** Items reach the bus, collector and timers only once live (see {@link ReplayOptions.start}). */
  #live = false;
  /** Set in the warm-up: items reach the bus (not the collector, no timer). */
  #warm = false;
  /** backtest.start, or without one the first item's time plus the warm-up (set at the first item). */
  #start: number | undefined;

  constructor(opts: ReplayOptions) {
    this.#o = opts;
    for (const b of opts.bars ?? []) {
      const list = this.#barsByKey.get(symbolKey(b.symbol)) ?? [];
      if (!list.some((x) => x.interval === b.interval)) list.push(new BarBuilder(b.interval, true));
      this.#barsByKey.set(symbolKey(b.symbol), list);
    }
    const now = (): number => opts.scheduler.clock.now();
    for (const sym of opts.bookSymbols ?? []) {
      // During the warm-up nobody may see a status; going live reports each book's state instead.
      this.#books.set(sym, new ReplayedBook(sym, (ev) => (this.#live || this.#warm) && opts.bus.publish(ev), undefined, now));
      if (opts.engine) this.#exchangeBooks.set(sym, new ReplayedBook(sym, () => undefined, opts.engine, now));
    }
  }

  /**
   * The local book of a symbol: the replayed market data only (strategies read it with the
   * account's resting orders added, OwnOrdersBook.ts); in candle mode a {@link BarBook} at the last close.
   */
  book(symbol: string): BookView | undefined {
    return this.#books.get(symbol)?.sync.book ?? this.#barBooks.get(symbol);
  }

  /** Mark price: book mid when the book is ready, else the last trade or bar close. */
  mark(symbol: string): Decimal | undefined {
    const b = this.#books.get(symbol)?.sync.book;
    return (b?.ready ? b.midPrice() : undefined) ?? this.lastPrice(symbol);
  }

  /** The best bid and ask of a symbol's local book as numbers (quote time at the touch); undefined without a ready book. */
  top(symbol: string): { bid: number | undefined; ask: number | undefined } | undefined {
    const b = this.#books.get(symbol)?.sync.book;
    return b?.ready === true ? { bid: b.bestBid()?.price.toNumber(), ask: b.bestAsk()?.price.toNumber() } : undefined;
  }

  /** Last trade price (or bar close) of a symbol. */
  lastPrice(symbol: string): Decimal | undefined {
    const src = this.#lastPrice.get(symbol)?.src;
    return src === undefined ? undefined : priceOf(src);
  }

  /**
   * Replays one step of an item at time `t` (non-decreasing across calls) on the clock `clock`
   * drives (twoClocks.ts; default both: the exchange's part, then the strategy's, at one instant).
   * Before `start` the item only warms up the market state; the first local step at or after
   * `start` (the first one when there is none) makes the run live first (see #goLive).
   */
  step(t: number, item: RecordedItem, clock: StepClock = StepClock.both): void {
    const o = this.#o;
    if (clock === StepClock.exchange) {
      this.#advance(t);
      this.#toExchange(item);
      o.scheduler.runUntil(t);
      o.afterEvent?.();
      return;
    }
    if (this.stats.firstTime === undefined) {
      this.stats.firstTime = t;
      this.#start = o.start ?? (o.warmupMs === undefined ? undefined : t + o.warmupMs);
    }
    if (!this.#live) {
      const start = this.#start;
      if (start === undefined || t >= start) this.#goLive(t);
      else if (this.#warm || (o.warmupMs !== undefined && t >= start - o.warmupMs)) {
        if (!this.#warm) this.#goWarm(t);
        this.stats.warmUpItems++;
      } else {
        this.#warmUp(t, item, clock);
        return;
      }
    }
    this.#advance(t);
    this.stats.lastTime = t;
    if (clock === StepClock.both) this.#toExchange(item);
    if (item.kind === 'snapshot') {
      this.stats.snapshots++;
      this.#books.get(item.symbol)?.snapshot(item.snapshot, t);
      o.afterEvent?.();
      return;
    }
    const e = item.event;
    // Candle data builds no bars (#barsByKey is empty): no lookup per bar.
    if (e.type === 'kline' && this.#barsByKey.size > 0 && this.#builtBars(e.symbol).some((b) => b.interval === e.interval)) return;
    this.#apply(e);
    if (e.type === 'depthDiff') o.onDepth?.(e.symbol);
    this.stats.events++;
    if (this.#closedBars.length > 0) {
      for (const k of this.#closedBars) o.bus.publish(k);
      this.#closedBars.length = 0;
    }
    o.bus.publish(e);
    if (this.#live) o.collector?.observe(t);
    o.scheduler.runUntil(t);
    o.afterEvent?.();
  }

  /**
   * Moves the clock to `t`: everything due up to it runs. Once live, equity samples due before t
   * see every event up to their time and nothing later: which streams a run reads (or skips
   * unread) cannot change what a sample saw.
   */
  #advance(t: number): void {
    const s = this.#o.scheduler;
    const c = this.#o.collector;
    if (c && this.#live) for (let due = c.nextDue(); due !== undefined && due < t; due = c.nextDue()) {
      s.runUntil(due);
      c.sample(due);
    }
    s.runUntil(t);
  }

  /**
   * The simulated exchange's part of an item, at the clock's time: a snapshot or diff moves the
   * exchange's book and the engine's replayed liquidity behind it, a trade consumes that liquidity
   * and fills our resting orders. Diffs and trades are handed their own event and trade times,
   * which decide whether a diff already shows a trade (src/sim/README.md, rule 4).
   */
  #toExchange(item: RecordedItem): void {
    const engine = this.#o.engine;
    if (engine === undefined) return;
    if (item.kind === 'snapshot') {
      this.#exchangeBooks.get(item.symbol)?.snapshot(item.snapshot, this.#o.scheduler.clock.now());
      return;
    }
    const e = item.event;
    if (e.type === 'depthDiff') {
      this.#exchangeBooks.get(e.symbol)?.diff(e);
    } else if (e.type === 'trade') {
      // Scaled integers when the reader had them (a binary recording: no string is read), else
      // wire strings when the reader kept them, which the engine scales directly.
      const st = scaledTradeOf(e);
      if (st === undefined || !engine.applyTradeScaled(e.symbol, st.scaledPrice, st.priceScale, st.scaledQty, st.qtyScale, st.isBuyerMaker, e.E, e.tradeTime)) engine.applyTrade(e.symbol, rawTrade(e) ?? e, e.E, e.tradeTime);
    }
  }

  /** Replays a merged source to its end. `onProgress` is called every `every` items. */
  async run(source: AsyncIterable<{ t: number; item: RecordedItem; clock?: StepClock }>, onProgress?: (stats: ReplayStats) => void, every = 10_000): Promise<void> {
    let n = 0;
    for await (const { t, item, clock } of source) {
      this.step(t, item, clock);
      if (onProgress && ++n % every === 0) onProgress(this.stats);
    }
  }

  /** {@link run} over a source in batches (Backtest's sourceBatchesOf): the same steps, one async step per batch. */
  async runBatches(source: AsyncIterable<ClockedBatch<RecordedItem>>, onProgress?: (stats: ReplayStats) => void, every = 10_000): Promise<void> {
    let n = 0;
    let turned = Date.now();
    let k = 0;
    for await (const { times, items, clocks } of source) {
      for (let i = 0; i < items.length; i++) {
        this.step(times[i] as number, items[i] as RecordedItem, clocks?.[i]);
        if (onProgress && ++n % every === 0) onProgress(this.stats);
        // Awaiting the batches only runs microtasks: without a turn of the event loop now and then,
        // a Ctrl-C (its listener) would wait for the end of the run. The steps are the same either way.
        if ((++k & 127) === 0 && Date.now() - turned >= TURN_MS) {
          await new Promise(setImmediate);
          turned = Date.now();
        }
      }
    }
  }

  /**
   * Stops timers and delivers everything still in flight (at its due time). Throws a ConfigError
   * naming backtest.start when the data ended before `start` (nothing was delivered).
   */
  finish(): void {
    const o = this.#o;
    if (!this.#live && this.#start !== undefined && this.stats.firstTime !== undefined) {
      throw this.#startError(`after the end of the data (last event at ${timeText(this.stats.lastTime ?? this.stats.firstTime)})`);
    }
    if (this.#timerId !== undefined) o.scheduler.cancel(this.#timerId);
    o.scheduler.drain();
    o.afterEvent?.();
    if (this.#live) o.collector?.sample(o.scheduler.clock.now());
  }

  /** A local (or both) step before `start`: market state only. Nothing is scheduled yet (no strategy has run), so no work can be due. */
  #warmUp(t: number, item: RecordedItem, clock: StepClock): void {
    this.#o.scheduler.runUntil(t);
    this.stats.lastTime = t;
    this.stats.warmUpItems++;
    if (clock === StepClock.both) this.#toExchange(item);
    if (item.kind === 'snapshot') {
      this.stats.snapshots++;
      this.#books.get(item.symbol)?.snapshot(item.snapshot, t);
    } else {
      this.#apply(item.event);
      this.#closedBars.length = 0;
      this.stats.events++;
    }
  }

  /**
   * Starts the warm-up at time `t`: the strategies get control (their orders refused by the
   * caller) and, after items that only moved the market, each book's state is published first.
   */
  #goWarm(t: number): void {
    const o = this.#o;
    o.scheduler.runUntil(t);
    this.#warm = true;
    this.stats.warmTime = t;
    o.onWarm?.();
    if (this.stats.warmUpItems > 0) this.#publishBookStates(t, 'synchronised before the warm-up');
  }

  /**
   * Hands control to the strategies at time `t`. After a warm-up every local book must be
   * synchronised: a strategy that gets control at `start` is promised the market as it was then,
   * and waiting for a later sync would silently move the window, so an unsynchronised book is a
   * configuration error naming backtest.start. Each book's state is then published (the warm-up
   * kept its bookStatus events from the bus), so strategies and the trading state see a ready book
   * announced before they read it, exactly as in a run from the beginning.
   */
  #goLive(t: number): void {
    const o = this.#o;
    o.scheduler.runUntil(t);
    if (this.stats.warmUpItems > 0) {
      for (const [sym, { sync }] of this.#books) {
        if (sync.state !== 'ready') throw this.#startError(`the ${sym} book is not synchronised by then (state ${sync.state}: no snapshot replayed before it, or a gap since); choose a later start`);
      }
    }
    // Strategies that warmed up have heard every book status as it came.
    const heard = this.#warm;
    this.#live = true;
    this.#warm = false;
    this.stats.liveTime = t;
    o.onLive?.();
    if (this.stats.warmUpItems > 0 && !heard) this.#publishBookStates(t, 'synchronised during the warm-up before backtest.start');
    if (o.timerMs !== undefined && o.timerMs > 0) this.#armTimer(o.timerMs);
  }

  /** Publishes each local book's state (strategies given control after items they did not see). */
  #publishBookStates(t: number, reason: string): void {
    for (const [sym, { sync }] of this.#books) {
      const status: BookStatusEvent = { type: 'bookStatus', E: t, symbol: sym, ready: sync.book.ready, reason };
      this.#o.bus.publish(status);
    }
    this.#o.afterEvent?.();
  }

  #startError(rule: string): ConfigError {
    const src = this.#o.startSource;
    const start = this.#start ?? 0;
    // Without a backtest.start, the start is the warm-up's end: the warm-up is what moved it.
    if (this.#o.start === undefined) return new ConfigError(src?.file ?? '<config>', 'backtest.warmup', src?.warmup ?? this.#o.warmupMs, `${rule} (the warm-up ends at ${timeText(start)}, the run's start)`);
    return new ConfigError(src?.file ?? '<config>', 'backtest.start', src?.value ?? this.#o.start, `${rule} (start ${timeText(start)})`);
  }

  /** The strategy's side of a market event: local books, last prices, bars, the candle venue. */
  #apply(e: MarketEvent): void {
    const o = this.#o;
    switch (e.type) {
      case 'depthDiff':
        this.#books.get(e.symbol)?.diff(e);
        return;
      case 'trade':
        this.#setLastPrice(e.symbol, e);
        if (this.#barsByKey.size > 0) this.#addToBars(e.symbol, { price: e.price, qty: e.qty, isBuyerMaker: e.isBuyerMaker, time: e.tradeTime, id: e.tradeId });
        return;
      case 'aggTrade':
        this.#setLastPrice(e.symbol, e);
        // A recording of aggregate trades (kancil download aggTrades) builds the bars a strategy reads as trades do.
        if (this.#barsByKey.size > 0) this.#addToBars(e.symbol, { price: e.price, qty: e.qty, isBuyerMaker: e.isBuyerMaker, time: e.tradeTime, id: e.firstTradeId, lastId: e.lastTradeId, count: tradeCount(e) });
        return;
      case 'kline': {
        this.#setLastPrice(e.symbol, e);
        if (e.closed) this.#barBookOf(e.symbol)?.update(e);
        if (o.candleVenue) {
          o.candleVenue.onBar(e);
          // Fills at this bar reach the strategy before the bar itself.
          o.scheduler.runUntil(o.scheduler.clock.now());
        }
        return;
      }
      case 'bookTicker':
      case 'miniTicker':
      case 'partialDepth':
        return;
      default: {
        const never: never = e;
        throw new Error(`unhandled market event ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The bar book of a symbol without a local book (made at its first bar), else undefined; that of
   * the bar before when the symbol is the same (bar data is nearly always one symbol's: no map read per bar).
   */
  #barBookOf(symbol: string): BarBook | undefined {
    if (symbol === this.#barSym) return this.#barBook;
    let bb: BarBook | undefined;
    if (!this.#books.has(symbol)) {
      bb = this.#barBooks.get(symbol);
      if (!bb) this.#barBooks.set(symbol, (bb = new BarBook(symbol)));
    }
    this.#barSym = symbol;
    this.#barBook = bb;
    return bb;
  }

  /** The bar builders of `symbol` (none when no bars are built for it). */
  #builtBars(symbol: string): readonly BarBuilder[] {
    let list = this.#barsBySymbol.get(symbol);
    if (list === undefined) this.#barsBySymbol.set(symbol, (list = this.#barsByKey.get(symbolKey(symbol)) ?? []));
    return list;
  }

  /** Adds a replayed trade to its symbol's bars at its trade time; the bars it closed wait in #closedBars. */
  #addToBars(symbol: string, trade: BarTrade): void {
    const builders = this.#builtBars(symbol);
    if (builders.length === 0) return;
    const now = this.#o.scheduler.clock.now();
    for (const b of builders) {
      for (const bar of b.add(trade)) this.#closedBars.push({ type: 'kline', E: now, symbol, interval: b.interval, ...bar, closed: true });
    }
  }

  /**
   * Records `src` as the last price source of `symbol`: the holder of the previous update's symbol
   * is written directly (~20k trades a run, each a Map.set before), any other goes through the map.
   */
  #setLastPrice(symbol: string, src: PriceSource): void {
    if (symbol === this.#lastSym) {
      (this.#lastHolder as { src: PriceSource }).src = src;
      return;
    }
    let h = this.#lastPrice.get(symbol);
    if (h === undefined) this.#lastPrice.set(symbol, (h = { src }));
    else h.src = src;
    this.#lastSym = symbol;
    this.#lastHolder = h;
  }

  #armTimer(every: number): void {
    const s = this.#o.scheduler;
    const tick = (): void => {
      this.#o.bus.publish({ type: 'timer', E: s.clock.now() });
      this.#timerId = s.schedule(every, tick);
    };
    this.#timerId = s.schedule(every, tick);
  }
}

/** How many trades an aggregate trade holds (its id span; 1 when the ids do not read as integers). */
function tradeCount(e: AggTradeEvent): number {
  try {
    const n = Number(BigInt(e.lastTradeId) - BigInt(e.firstTradeId)) + 1;
    return Number.isSafeInteger(n) && n >= 1 ? n : 1;
  } catch {
    return 1;
  }
}
