/**
 * Market data of a live or paper run: one stream connection per symbol type (diff depth and
 * trades of every strategy symbol, and the klines its strategies read), a self-synchronising local book per symbol, everything merged
 * into the bus. In paper mode the matching engine's replayed liquidity follows the synchronised
 * books exactly as in a backtest: a snapshot on every (re)sync, then only the diffs the book applied.
 */
import { merge } from 'rxjs';
import type { Logger } from 'pino';
import type { Bus } from '../bus/Bus.js';
import type { BookView } from '../core/bookView.js';
import type { Decimal } from '../core/decimal.js';
import type { SymbolTypeCode } from '../core/enums.js';
import type { MarketEvent } from '../core/marketEvents.js';
import type { SymbolInfo } from '../core/types.js';
import { marketSymbol, symbolKey } from '../core/symbols.js';
import { LiveOrderBook } from '../exchange/book/live-book.js';
import type { DepthSnapshotSource } from '../exchange/stream/apis.js';
import { StreamClient } from '../exchange/stream/stream-client.js';
import { depthStream, klineStream, streamHostFor, tradeStream, type StreamHosts } from '../exchange/stream/stream-names.js';
import type { KlineSubscription } from '../strategy/klines.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { MatchingEngine } from '../sim/engine.js';
import type { AveragePrices } from '../execution/AveragePrices.js';
import { StartupStopped } from './startupRetry.js';

/** Options of the market-data side. */
export interface RunMarketOptions {
  readonly bus: Bus;
  readonly hosts: StreamHosts;
  readonly symbols: readonly SymbolInfo[];
  readonly snapshots: DepthSnapshotSource;
  readonly log: Logger;
  /** Paper mode: the engine whose liquidity follows the books. */
  readonly engine?: MatchingEngine;
  /** The kline streams the strategies read (their symbols as configured, any spelling). */
  readonly klines?: readonly KlineSubscription[];
  /** The risk gate's trade windows, fed every stream trade before the bus sees it. */
  readonly averages?: AveragePrices;
  readonly now: () => number;
  /** Paper mode: runs when a depth diff of `symbol` has moved the books, before it is published. */
  readonly onDepth?: (symbol: string) => void;
}

/** Streams, books and (paper) the engine feed. */
export class RunMarket {
  readonly #books = new Map<string, LiveOrderBook>();
  readonly #clients: StreamClient[] = [];
  readonly #lastPrice = new Map<string, Decimal>();
  readonly #subs: { unsubscribe(): void }[] = [];

  constructor(o: RunMarketOptions) {
    const byType = new Map<SymbolTypeCode, SymbolInfo[]>();
    for (const s of o.symbols) {
      const l = byType.get(s.type) ?? [];
      l.push(s);
      byType.set(s.type, l);
    }
    for (const [type, syms] of byType) {
      // Streams spell type 1 without the underscore; events are mapped back to BASE_QUOTE.
      const wireToName = new Map(syms.map((s) => [marketSymbol(s.symbol, type).toUpperCase(), s.symbol]));
      const client = new StreamClient({
        url: streamHostFor(o.hosts, type),
        streams: syms.flatMap((s) => [depthStream(s.symbol, type), tradeStream(s.symbol, type), ...klinesOf(o.klines, s.symbol).map((i) => klineStream(s.symbol, type, i))]),
        name: `market:type${type}`,
        symbolOf: (wire) => wireToName.get(wire.toUpperCase()) ?? wire,
        // Live: an order's request is written before the frames behind its trade are handled.
        holdFramesForOrders: o.engine === undefined,
        logger: o.log.child({ part: 'stream' }),
      });
      this.#clients.push(client);
      for (const s of syms) {
        const book = new LiveOrderBook({
          symbol: s.symbol,
          restSymbol: s.symbol,
          symbolType: type,
          snapshots: o.snapshots,
          limit: 1000,
          logger: o.log.child({ part: 'book', symbol: s.symbol }),
        });
        book.attach(client);
        this.#books.set(s.symbol, book);
        this.#subs.push(
          book.status$.subscribe((ev) => {
            if (ev.ready && o.engine) o.engine.applyDepthSnapshot(s.symbol, book.top(Number.MAX_SAFE_INTEGER), o.now());
            o.bus.publish(ev);
          }),
        );
      }
      // Subscribed after the books, so by the time an event reaches the bus its book has applied it.
      this.#subs.push(client.events$.subscribe((ev) => this.#onEvent(ev, o)));
      this.#subs.push(o.bus.attach(merge(client.status$)));
      const averages = o.averages;
      if (averages) {
        const names = syms.map((s) => s.symbol);
        // Trades sent while the connection was down never arrive: the windows fetch them by id.
        this.#subs.push(client.status$.subscribe((ev) => {
          if (ev.status === 'up' && ev.reason === 'reconnected') void averages.backfill(names);
        }));
      }
    }
  }

  /** Opens the connections. */
  start(): void {
    for (const c of this.#clients) c.start();
  }

  /** The local book of a symbol. */
  book(symbol: string): BookView | undefined {
    return this.#books.get(symbol);
  }

  /** True when every book is synchronised. */
  get ready(): boolean {
    return [...this.#books.values()].every((b) => b.ready);
  }

  /** Mark price: book mid when ready, else the last trade. */
  mark(symbol: string): Decimal | undefined {
    const b = this.#books.get(symbol);
    const bid = b?.ready ? b.bestBid() : undefined;
    const ask = b?.ready ? b.bestAsk() : undefined;
    if (bid && ask) return bid.price.plus(ask.price).div(2);
    return this.#lastPrice.get(symbol);
  }

  /** Last trade price of a symbol. */
  lastPrice(symbol: string): Decimal | undefined {
    return this.#lastPrice.get(symbol);
  }

  /**
   * Resolves when every book is ready, or rejects after `timeoutMs`; `signal` aborted meanwhile
   * (an in-process sandbox that failed and will never send the books) rejects at once with
   * {@link StartupStopped}.
   */
  async whenReady(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ready) {
      if (signal?.aborted === true) throw new StartupStopped('the order books', String(signal.reason ?? 'stop requested'), 0, true);
      if (Date.now() > deadline) throw new Error(`order books not ready after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Closes connections and books. */
  async close(): Promise<void> {
    for (const s of this.#subs) s.unsubscribe();
    for (const b of this.#books.values()) b.close();
    await Promise.all(this.#clients.map((c) => c.close()));
  }

  #onEvent(ev: MarketEvent, o: RunMarketOptions): void {
    const engine = o.engine;
    if (ev.type === 'trade') {
      this.#lastPrice.set(ev.symbol, ev.price);
      o.averages?.onTrade(ev);
      engine?.applyTrade(ev.symbol, ev, ev.E, ev.tradeTime);
    } else if (ev.type === 'depthDiff' && engine) {
      const b = this.#books.get(ev.symbol);
      // Only diffs the synchronised book really applied move the engine (as in a backtest replay).
      if (b?.ready && b.lastUpdateId === ev.finalUpdateId) engine.applyDepthDiff(ev.symbol, ev, ev.E);
      o.onDepth?.(ev.symbol);
    }
    o.bus.publish(ev);
  }
}

/** The intervals subscribed for `symbol` (matched whatever the spelling). */
function klinesOf(subs: readonly KlineSubscription[] | undefined, symbol: string): KlineIntervalName[] {
  const key = symbolKey(symbol);
  return (subs ?? []).filter((k) => symbolKey(k.symbol) === key).map((k) => k.interval);
}
