/**
 * The replay loop: feeds recorded market data, in replay-time order (when the recorder received
 * it, by default; see feedTime.ts), into the same bus that a live run uses, on a virtual clock. For each item at time t it first runs everything the
 * scheduler has due up to t (venue acknowledgements, fills, timers), then updates the matching
 * engine's replayed liquidity and the local books, then publishes the event, then runs the work
 * that event caused at the same instant. Nothing can observe data later than the clock.
 *
 * With a `start`, items before it are a warm-up: they move the market state only (local books,
 * the engine's replayed liquidity and trade window, last prices, bar books, the candle venue's
 * last bar) and reach neither the bus nor the collector; no timer is armed. The run goes live at
 * the first item at or after `start` (see {@link Replay.step}).
 */
import type { Bus } from '../bus/Bus.js';
import type { BookView } from '../core/bookView.js';
import type { Decimal } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { parseDepthSides, reserveLevels, scaledLevels, type ScaledLevels } from '../core/scaledLevels.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';
import { symbolKey } from '../core/symbols.js';
import type { AggTradeEvent, BookStatusEvent, KlineEvent, MarketEvent, TradeEvent } from '../core/marketEvents.js';
import { BarBuilder } from '../core/bars.js';
import type { KlineIntervalName } from '../core/enums.js';
import { BookSync } from '../exchange/book/book-sync.js';
import { flatDepthLevels, rawDepthLevels, scaledDepthSides, type RawDepthLevels, type ScaledDepthSides } from '../record/depth-diff.js';
import type { RecordedItem } from '../record/reader.js';
import { snapshotInput } from '../record/snapshot.js';
import { rawTrade, scaledTradeOf } from '../record/trade.js';
import type { MatchingEngine } from '../sim/engine.js';
import { BarBook } from './BarBook.js';
import type { CandleVenue } from './CandleVenue.js';
import type { ResultCollector } from './ResultCollector.js';
import type { VirtualScheduler } from './Scheduler.js';
import type { TimedBatch } from './merge.js';

/** Core's powers of ten under a local const (see core/pow10.ts). */
const POW10 = CORE_POW10;

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
  readonly startSource?: { readonly file: string; readonly value: unknown };
  /** Called once when the run goes live, before the first delivered item (e.g. starts the strategies). */
  readonly onLive?: () => void;
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
  /** Items replayed before `start` (warm-up: market state only, nothing delivered). */
  warmUpItems: number;
  /** Time of the first delivered item (undefined until the run is live). */
  liveTime: number | undefined;
}

/** Drives one replay. Use `step` per item (or `run` over a merged source), then `finish`. */
export class Replay {
  readonly stats: ReplayStats = { events: 0, snapshots: 0, firstTime: undefined, lastTime: undefined, warmUpItems: 0, liveTime: undefined };
  readonly #o: ReplayOptions;
  readonly #syncs = new Map<string, BookSync>();
  /** Last price source per symbol, in a holder so that a trade updates it without a map write. */
  readonly #lastPrice = new Map<string, { src: PriceSource }>();
  /** The symbol and holder of the last update (a recording's events nearly all share one symbol). */
  #lastSym: string | undefined;
  #lastHolder: { src: PriceSource } | undefined;
  readonly #barBooks = new Map<string, BarBook>();
  /** A diff's sides parsed once for the local book and the engine (reused buffers, see #parseDiff). */
  readonly #bids = scaledLevels();
  readonly #asks = scaledLevels();
  /** The same buffers as a pair, for a binary recording's diff brought to the book's scales (see #atBookScales). */
  readonly #rescaled: ScaledDepthSides = { bids: this.#bids, asks: this.#asks };
  /** The local book's levels for seeding the engine (see #seedEngine); grown to the book's size. */
  readonly #seedBids = scaledLevels(0);
  readonly #seedAsks = scaledLevels(0);
  /** Bar builders by symbol key (any spelling), and by the spelling events carry once seen. */
  readonly #barsByKey = new Map<string, BarBuilder[]>();
  readonly #barsBySymbol = new Map<string, readonly BarBuilder[]>();
  /** Bars the last trade closed, published before it (dropped during the warm-up). */
  readonly #closedBars: KlineEvent[] = [];
  #timerId: number | undefined;
  /** Items reach the bus, collector and timers only once live (see {@link ReplayOptions.start}). */
  #live = false;

  constructor(opts: ReplayOptions) {
    this.#o = opts;
    for (const b of opts.bars ?? []) {
      const list = this.#barsByKey.get(symbolKey(b.symbol)) ?? [];
      if (!list.some((x) => x.interval === b.interval)) list.push(new BarBuilder(b.interval, true));
      this.#barsByKey.set(symbolKey(b.symbol), list);
    }
    for (const sym of opts.bookSymbols ?? []) {
      const sync: BookSync = new BookSync(sym, {
        // The recording supplies its own snapshots; a replay cannot fetch one.
        requestSnapshot: () => undefined,
        onStatus: (ev) => {
          if (ev.ready) this.#seedEngine(sym, sync);
          // During the warm-up nobody may see it; going live reports each book's state instead.
          if (this.#live) opts.bus.publish(ev);
        },
      });
      this.#syncs.set(sym, sync);
    }
  }

  /**
   * The local book of a symbol: the replayed market data only (strategies read it with the
   * account's resting orders added, OwnOrdersBook.ts); in candle mode a {@link BarBook} at the last close.
   */
  book(symbol: string): BookView | undefined {
    return this.#syncs.get(symbol)?.book ?? this.#barBooks.get(symbol);
  }

  /** Mark price: book mid when the book is ready, else the last trade or bar close. */
  mark(symbol: string): Decimal | undefined {
    const b = this.#syncs.get(symbol)?.book;
    return (b?.ready ? b.midPrice() : undefined) ?? this.lastPrice(symbol);
  }

  /** Last trade price (or bar close) of a symbol. */
  lastPrice(symbol: string): Decimal | undefined {
    const src = this.#lastPrice.get(symbol)?.src;
    return src === undefined ? undefined : priceOf(src);
  }

  /**
   * Replays one item at time `t` (non-decreasing across calls). Before `start` the item only warms
   * up the market state; the first item at or after `start` (the first item when there is none)
   * makes the run live first (see #goLive).
   */
  step(t: number, item: RecordedItem): void {
    const o = this.#o;
    const s = o.scheduler;
    if (this.stats.firstTime === undefined) this.stats.firstTime = t;
    if (!this.#live) {
      if (o.start !== undefined && t < o.start) {
        this.#warmUp(t, item);
        return;
      }
      this.#goLive(t);
    }
    // Equity samples due before t see every event up to their time and nothing later: which
    // streams a run reads (or skips unread) cannot change what a sample saw.
    const c = o.collector;
    if (c) for (let due = c.nextDue(); due !== undefined && due < t; due = c.nextDue()) {
      s.runUntil(due);
      c.sample(due);
    }
    s.runUntil(t);
    this.stats.lastTime = t;
    if (item.kind === 'snapshot') {
      this.stats.snapshots++;
      this.#syncs.get(item.symbol)?.onSnapshot(snapshotInput(item.snapshot), t);
      o.afterEvent?.();
      return;
    }
    const e = item.event;
    if (e.type === 'kline' && this.#builtBars(e.symbol).some((b) => b.interval === e.interval)) return;
    this.#apply(e);
    if (e.type === 'depthDiff') o.onDepth?.(e.symbol);
    this.stats.events++;
    if (this.#closedBars.length > 0) {
      for (const k of this.#closedBars) o.bus.publish(k);
      this.#closedBars.length = 0;
    }
    o.bus.publish(e);
    c?.observe(t);
    s.runUntil(t);
    o.afterEvent?.();
  }

  /** Replays a merged source to its end. `onProgress` is called every `every` items. */
  async run(source: AsyncIterable<{ t: number; item: RecordedItem }>, onProgress?: (stats: ReplayStats) => void, every = 10_000): Promise<void> {
    let n = 0;
    for await (const { t, item } of source) {
      this.step(t, item);
      if (onProgress && ++n % every === 0) onProgress(this.stats);
    }
  }

  /** {@link run} over a source in batches (Backtest's sourceBatchesOf): the same steps, one async step per batch. */
  async runBatches(source: AsyncIterable<TimedBatch<RecordedItem>>, onProgress?: (stats: ReplayStats) => void, every = 10_000): Promise<void> {
    let n = 0;
    for await (const { times, items } of source) {
      for (let i = 0; i < items.length; i++) {
        this.step(times[i] as number, items[i] as RecordedItem);
        if (onProgress && ++n % every === 0) onProgress(this.stats);
      }
    }
  }

  /**
   * Stops timers and delivers everything still in flight (at its due time). Throws a ConfigError
   * naming backtest.start when the data ended before `start` (nothing was delivered).
   */
  finish(): void {
    const o = this.#o;
    if (!this.#live && o.start !== undefined && this.stats.firstTime !== undefined) {
      throw this.#startError(`after the end of the data (last event at ${iso(this.stats.lastTime ?? this.stats.firstTime)})`);
    }
    if (this.#timerId !== undefined) o.scheduler.cancel(this.#timerId);
    o.scheduler.drain();
    o.afterEvent?.();
    if (this.#live) o.collector?.sample(o.scheduler.clock.now());
  }

  /** An item before `start`: market state only. Nothing is scheduled yet (no strategy has run), so no work can be due. */
  #warmUp(t: number, item: RecordedItem): void {
    this.#o.scheduler.runUntil(t);
    this.stats.lastTime = t;
    this.stats.warmUpItems++;
    if (item.kind === 'snapshot') {
      this.stats.snapshots++;
      this.#syncs.get(item.symbol)?.onSnapshot(snapshotInput(item.snapshot), t);
    } else {
      this.#apply(item.event);
      this.#closedBars.length = 0;
      this.stats.events++;
    }
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
      for (const [sym, sync] of this.#syncs) {
        if (sync.state !== 'ready') throw this.#startError(`the ${sym} book is not synchronised by then (state ${sync.state}: no snapshot replayed before it, or a gap since); choose a later start`);
      }
    }
    this.#live = true;
    this.stats.liveTime = t;
    o.onLive?.();
    if (this.stats.warmUpItems > 0) {
      for (const [sym, sync] of this.#syncs) {
        const status: BookStatusEvent = { type: 'bookStatus', E: t, symbol: sym, ready: sync.book.ready, reason: 'synchronised during the warm-up before backtest.start' };
        o.bus.publish(status);
      }
      o.afterEvent?.();
    }
    if (o.timerMs !== undefined && o.timerMs > 0) this.#armTimer(o.timerMs);
  }

  #startError(rule: string): ConfigError {
    const src = this.#o.startSource;
    return new ConfigError(src?.file ?? '<config>', 'backtest.start', src?.value ?? this.#o.start, `${rule} (start ${iso(this.#o.start ?? 0)})`);
  }

  #apply(e: MarketEvent): void {
    const o = this.#o;
    switch (e.type) {
      case 'depthDiff': {
        const sync = this.#syncs.get(e.symbol);
        if (sync === undefined) return;
        const raw = rawDepthLevels(e);
        // The bulk of a replay: a diff with wire strings that is the next one for a ready book.
        // Its levels are parsed once into scaled integers for both the local book and the engine.
        if (raw !== undefined && sync.isNext(e.firstUpdateId, e.finalUpdateId) && this.#parseDiff(raw, sync.book.priceScale, sync.book.qtyScale)) {
          // The engine follows the synchronised book: only diffs the book really applied move it.
          if (sync.applyNextScaled(e.firstUpdateId, e.finalUpdateId, e.E, this.#bids, this.#asks)) o.engine?.applyDepthDiffScaled(e.symbol, this.#bids, this.#asks, e.E);
          return;
        }
        // A binary recording's diff: the sides are scaled already, at the smallest exact scales;
        // brought to the scales the parse above would have reached, nothing is parsed.
        if (raw === undefined && sync.isNext(e.firstUpdateId, e.finalUpdateId)) {
          // At the book's scales already (nearly every diff): the levels as the reader left them,
          // both sides in one buffer whose place the diff's state holds, not read through the
          // ScaledLevels objects and array views (cache misses a diff on a pre-loaded recording).
          const flat = flatDepthLevels(e);
          if (flat !== undefined && flat.priceScale === sync.book.priceScale && flat.qtyScale === sync.book.qtyScale) {
            if (sync.applyNextFlat(e.firstUpdateId, e.finalUpdateId, e.E, flat)) o.engine?.applyDepthDiffFlat(e.symbol, flat, e.E);
            return;
          }
          const pre = scaledDepthSides(e);
          const sides = pre && this.#atBookScales(pre, sync.book.priceScale, sync.book.qtyScale);
          if (sides !== undefined) {
            if (sync.applyNextScaled(e.firstUpdateId, e.finalUpdateId, e.E, sides.bids, sides.asks)) o.engine?.applyDepthDiffScaled(e.symbol, sides.bids, sides.asks, e.E);
            return;
          }
        }
        // Everything else (buffering, bridging, gaps, stale diffs, eagerly parsed events, levels
        // the parse refused) takes the synchroniser's own path, which decides as the spec says.
        const before = sync.book.lastUpdateId;
        const wasReady = sync.state === 'ready';
        sync.onDiff({ U: e.firstUpdateId, u: e.finalUpdateId, E: e.E, bids: raw?.bids ?? e.bids, asks: raw?.asks ?? e.asks });
        if (wasReady && sync.state === 'ready' && sync.book.lastUpdateId !== before) o.engine?.applyDepthDiff(e.symbol, e, e.E);
        return;
      }
      case 'trade': {
        this.#setLastPrice(e.symbol, e);
        if (this.#barsByKey.size > 0) this.#addToBars(e);
        const engine = o.engine;
        if (engine === undefined) return;
        // Scaled integers when the reader had them (a binary recording: no string is read), else
        // wire strings when the reader kept them, which the engine scales directly.
        const st = scaledTradeOf(e);
        if (st === undefined || !engine.applyTradeScaled(e.symbol, st.scaledPrice, st.priceScale, st.scaledQty, st.qtyScale, st.isBuyerMaker, e.E, e.tradeTime)) engine.applyTrade(e.symbol, rawTrade(e) ?? e, e.E, e.tradeTime);
        return;
      }
      case 'aggTrade':
        this.#setLastPrice(e.symbol, e);
        return;
      case 'kline': {
        this.#setLastPrice(e.symbol, e);
        if (e.closed && !this.#syncs.has(e.symbol)) {
          let bb = this.#barBooks.get(e.symbol);
          if (!bb) this.#barBooks.set(e.symbol, (bb = new BarBook(e.symbol)));
          bb.update(e.close, e.closeTime);
        }
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

  /** The bar builders of `symbol` (none when no bars are built for it). */
  #builtBars(symbol: string): readonly BarBuilder[] {
    let list = this.#barsBySymbol.get(symbol);
    if (list === undefined) this.#barsBySymbol.set(symbol, (list = this.#barsByKey.get(symbolKey(symbol)) ?? []));
    return list;
  }

  /** Adds a replayed trade to its symbol's bars at its trade time; the bars it closed wait in #closedBars. */
  #addToBars(e: TradeEvent): void {
    const builders = this.#builtBars(e.symbol);
    if (builders.length === 0) return;
    const trade = { price: e.price, qty: e.qty, isBuyerMaker: e.isBuyerMaker, time: e.tradeTime, id: e.tradeId };
    const now = this.#o.scheduler.clock.now();
    for (const b of builders) {
      for (const bar of b.add(trade)) this.#closedBars.push({ type: 'kline', E: now, symbol: e.symbol, interval: b.interval, ...bar, closed: true });
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

  /**
   * Parses a diff's wire levels into the reused #bids/#asks buffers, starting at the local book's
   * scales (so the book needs no conversion; see core/scaledLevels for the scale policy). False
   * when a string does not parse there: the caller then hands the strings to the synchroniser,
   * whose own parse reports or applies them exactly as without this path.
   */
  #parseDiff(raw: RawDepthLevels, priceScale: number, qtyScale: number): boolean {
    try {
      parseDepthSides(raw.bids, raw.asks, this.#bids, this.#asks, priceScale, qtyScale);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A binary recording's sides at the scales {@link parseDepthSides} would give their strings when
   * starting at the book's (the larger of the book's and the record's, which holds the smallest
   * exact ones): the sides themselves when they are there already, else converted exactly into the
   * #bids/#asks buffers. Undefined when a level would leave the safe-integer range, where the parse
   * would refuse the strings too; the caller then takes the synchroniser's path.
   */
  #atBookScales(pre: ScaledDepthSides, priceScale: number, qtyScale: number): ScaledDepthSides | undefined {
    const ps = Math.max(priceScale, pre.bids.priceScale);
    const qs = Math.max(qtyScale, pre.bids.qtyScale);
    if (ps === pre.bids.priceScale && qs === pre.bids.qtyScale) return pre;
    const pf = POW10[ps - pre.bids.priceScale] as number;
    const qf = POW10[qs - pre.bids.qtyScale] as number;
    if (!rescaleInto(pre.bids, this.#bids, ps, qs, pf, qf) || !rescaleInto(pre.asks, this.#asks, ps, qs, pf, qf)) return undefined;
    return this.#rescaled;
  }

  /** On (re)synchronisation the engine's replayed liquidity is replaced by the local book. */
  #seedEngine(symbol: string, sync: BookSync): void {
    const engine = this.#o.engine;
    if (!engine) return;
    const now = this.#o.scheduler.clock.now();
    // Scaled integers when the engine keeps the book's scales (no text per level of the whole book);
    // otherwise wire strings, which the engine scales itself (and whose misfit it reports).
    sync.book.scaledLevels(this.#seedBids, this.#seedAsks);
    if (!engine.applyDepthSnapshotScaled(symbol, this.#seedBids, this.#seedAsks, now)) engine.applyDepthSnapshot(symbol, sync.book.wireLevels(), now);
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

/** Copies `from` into `to` at scales `ps`/`qs` (factors `pf`/`qf`); false when a value would pass 2^53. */
function rescaleInto(from: ScaledLevels, to: ScaledLevels, ps: number, qs: number, pf: number, qf: number): boolean {
  const n = from.n;
  reserveLevels(to, n);
  const fp = from.prices;
  const fq = from.qtys;
  const tp = to.prices;
  const tq = to.qtys;
  for (let i = 0; i < n; i++) {
    const p = (fp[i] as number) * pf;
    const q = (fq[i] as number) * qf;
    if (p > Number.MAX_SAFE_INTEGER || q > Number.MAX_SAFE_INTEGER) return false;
    tp[i] = p;
    tq[i] = q;
  }
  to.n = n;
  to.priceScale = ps;
  to.qtyScale = qs;
  return true;
}

/** An epoch-ms time as ISO 8601 text for messages. */
function iso(t: number): string {
  return new Date(t).toISOString();
}
