/**
 * A live local order book: feeds a BookSync from a stream client's diff events, fetches REST
 * snapshots when the procedure asks (with retry), and invalidates on connection loss, when
 * the diff stream goes silent, or when trades arrive that no diff follows. Strategies read it through the BookView contract; `ready` is
 * false whenever the book is known to be wrong.
 */
import { type Logger, pino } from 'pino';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { BookView, FillCost } from '../../core/bookView.js';
import { type Decimal, ZERO } from '../../core/decimal.js';
import type { OrderSideName, SymbolTypeCode } from '../../core/enums.js';
import type { BookStatusEvent, ConnectionStatusEvent, MarketEvent } from '../../core/marketEvents.js';
import type { BookLevel } from '../../core/types.js';
import type { DepthSnapshotSource } from '../stream/apis.js';
import type { DroppedPayload } from '../stream/dropped-depth.js';
import { type TimerHandle, type TimingDeps, backoffDelay, timing } from '../stream/timing.js';
import { BookSync, type BookSyncOptions } from './book-sync.js';
import type { OrderBook } from './order-book.js';
import { scrubSecretText } from '../../core/secretScrub.js';

/** Options of a live book. */
export interface LiveOrderBookOptions extends TimingDeps, BookSyncOptions {
  /** Symbol as events carry it (after the stream client's symbolOf mapping). */
  readonly symbol: string;
  /** Symbol for the REST snapshot request (BASE_QUOTE form) and its type. */
  readonly restSymbol: string;
  readonly symbolType: SymbolTypeCode;
  readonly snapshots: DepthSnapshotSource;
  /** Snapshot depth (spec: 1000). */
  readonly limit?: number;
  /** No diff for this long marks the book stale and resyncs it from a fresh snapshot (default 5 min; 0 disables). */
  readonly staleAfterMs?: number;
  /**
   * A trade of the symbol on the same connection with no depth update at or after its time within
   * this long marks the book stale (default 3000 ms; 0 disables). See {@link LiveOrderBook.onTradeEvent}.
   */
  readonly staleTradeMs?: number;
  readonly logger?: Logger;
}

/** Sources a live book listens to. */
export interface BookFeed {
  readonly events$: Observable<MarketEvent>;
  readonly status$: Observable<ConnectionStatusEvent>;
  /** Payloads the feed dropped as malformed (a StreamClient's dropped$). */
  readonly dropped$?: Observable<DroppedPayload>;
}

/** A self-synchronising order book for one symbol. */
export class LiveOrderBook implements BookView {
  readonly sync: BookSync;
  readonly #status = new Subject<BookStatusEvent>();
  readonly #t: ReturnType<typeof timing>;
  readonly #log: Logger;
  #subs: Subscription[] = [];
  #fetchGen = 0;
  #fetchAttempt = 0;
  #retryTimer: TimerHandle | undefined;
  #staleTimer: TimerHandle | undefined;
  #lastDiffAt = 0;
  /** Exchange event time of the newest diff seen. */
  #lastDiffE = Number.NEGATIVE_INFINITY;
  /** Armed while a trade waits for a diff at or after its time `#tradeT`. */
  #tradeTimer: TimerHandle | undefined;
  #tradeT = 0;
  #closed = false;

  constructor(private readonly opts: LiveOrderBookOptions) {
    this.#t = timing(opts);
    this.#log = opts.logger ?? pino({ hooks: { streamWrite: scrubSecretText }, name: 'kancil.book' });
    this.sync = new BookSync(opts.symbol, { requestSnapshot: (r) => this.#fetch(r), onStatus: (s) => this.#onStatus(s) }, opts);
  }

  /** Ready / not-ready transitions with reasons. */
  get status$(): Observable<BookStatusEvent> {
    return this.#status.asObservable();
  }

  /** The underlying book (fast scaled accessors). */
  get book(): OrderBook {
    return this.sync.book;
  }

  /** Starts consuming a feed (a StreamClient subscribed to the symbol's diff depth stream). */
  attach(feed: BookFeed): void {
    this.#subs.push(
      feed.events$.subscribe((ev) => {
        if (ev.type === 'depthDiff' && ev.symbol === this.opts.symbol) this.onDiffEvent(ev);
        else if (ev.type === 'trade' && ev.symbol === this.opts.symbol) this.onTradeEvent(ev);
      }),
      feed.status$.subscribe((s) => this.onConnectionStatus(s)),
    );
    const dropped = feed.dropped$;
    if (dropped) {
      this.#subs.push(
        dropped.subscribe((d) => {
          if (d.depthSymbols.includes(this.opts.symbol)) this.onDroppedDiff(d);
        }),
      );
    }
  }

  /**
   * A diff-depth update of this symbol (or one that may have been) was dropped as malformed: the
   * book misses a change, so it is not ready from now and resynchronises from a fresh snapshot at
   * once, instead of at the next diff (which shows the gap, but may be minutes away in a quiet
   * market). When the dropped update's id could be read, a snapshot older than it is refused.
   */
  onDroppedDiff(d: DroppedPayload): void {
    if (this.#closed) return;
    // Already resynchronising: the snapshot asked for may predate this drop, so ask again, but
    // backing off from the last attempt, so a run of bad payloads cannot spend the REST weight.
    const again = this.sync.awaitingSnapshot;
    this.#invalidate(`dropped depth update: ${d.reason}`, true, again, d.finalUpdateId);
  }

  /** Feeds one diff event. */
  onDiffEvent(ev: Extract<MarketEvent, { type: 'depthDiff' }>): void {
    if (this.#closed) return;
    this.#lastDiffAt = this.#t.clock.now();
    if (ev.E > this.#lastDiffE) this.#lastDiffE = ev.E;
    if (this.#tradeTimer !== undefined && ev.E >= this.#tradeT) {
      this.#t.timers.clearTimeout(this.#tradeTimer);
      this.#tradeTimer = undefined;
    }
    this.sync.onDiff({ U: ev.firstUpdateId, u: ev.finalUpdateId, E: ev.E, bids: ev.bids, asks: ev.asks });
    this.#armStale();
  }

  /**
   * A trade of this symbol. A trade takes liquidity from the book, so the depth stream reports a
   * change at or after the trade's time; trades arriving while no such diff does mean the depth
   * subscription went quiet on a connection that is otherwise alive (pings answered, trades
   * flowing), and the book shows levels that are gone. It is then made not ready at once (no
   * strategy quotes or risk check reads it) and is synchronised again when diffs come back; no
   * snapshot is fetched meanwhile, since one would only be as fresh as the moment it was taken.
   */
  onTradeEvent(ev: Extract<MarketEvent, { type: 'trade' }>): void {
    const ms = this.opts.staleTradeMs ?? 3000;
    if (this.#closed || ms <= 0 || !this.sync.book.ready || this.#tradeTimer !== undefined || ev.tradeTime <= this.#lastDiffE) return;
    this.#tradeT = ev.tradeTime;
    this.#tradeTimer = this.#t.timers.setTimeout(() => {
      this.#tradeTimer = undefined;
      if (this.#closed || this.#lastDiffE >= this.#tradeT || !this.sync.book.ready) return;
      this.#log.warn({ symbol: this.opts.symbol, tradeTime: this.#tradeT, lastDiffE: this.#lastDiffE }, 'trades without depth updates: the depth stream is stale');
      this.#invalidate(`stale: a trade at ${this.#tradeT} and no depth update at or after it for ${ms} ms`);
    }, ms);
  }

  /** A dropped connection means diffs were lost: the book is wrong until resynchronised. */
  onConnectionStatus(s: ConnectionStatusEvent): void {
    if (s.status === 'down') this.#invalidate(`connection down: ${s.reason ?? ''}`.trim());
  }

  #invalidate(reason: string, fetchNow = false, keepBackoff = false, mustCover?: number): void {
    this.#fetchGen++; // any snapshot in flight belongs to the old session
    if (!keepBackoff) this.#fetchAttempt = 0;
    if (this.#retryTimer !== undefined) this.#t.timers.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (fetchNow) this.sync.resync(reason, this.#t.clock.now(), mustCover);
    else this.sync.invalidate(reason, this.#t.clock.now());
  }

  #armStale(): void {
    const ms = this.opts.staleAfterMs ?? 300_000;
    if (ms <= 0 || this.#staleTimer !== undefined) return;
    this.#staleTimer = this.#t.timers.setTimeout(() => {
      this.#staleTimer = undefined;
      if (this.#closed) return;
      const idle = this.#t.clock.now() - this.#lastDiffAt;
      if (idle >= ms) {
        // Buffering waits for the next diff anyway; a ready or bridging book may be silently wrong.
        // The connection itself is watched by the stream client's pings; a quiet market is normal,
        // so resynchronise from REST at once instead of waiting for the next diff.
        if (this.sync.state !== 'buffering') this.#invalidate(`stale: no depth update for ${idle} ms`, true);
      } else {
        this.#armStale();
      }
    }, ms);
  }

  #fetch(reason: string): void {
    if (this.#closed) return;
    const gen = ++this.#fetchGen;
    const attempt = this.#fetchAttempt++;
    const run = (): void => {
      this.#retryTimer = undefined;
      this.opts.snapshots.depth({ symbol: this.opts.restSymbol, symbolType: this.opts.symbolType, limit: this.opts.limit ?? 1000 }).then(
        (snap) => {
          if (this.#closed || gen !== this.#fetchGen) return;
          this.sync.onSnapshot(snap, this.#t.clock.now());
          // A refused snapshot (older than the buffer or a dropped update) has already asked for
          // the next one, which backs off; only a used one starts the count again.
          if (!this.sync.awaitingSnapshot) this.#fetchAttempt = 0;
        },
        (err: unknown) => {
          if (this.#closed || gen !== this.#fetchGen) return;
          this.#log.warn({ symbol: this.opts.symbol, err: (err as Error).message }, 'depth snapshot failed; retrying');
          this.#fetch(`retry after error: ${(err as Error).message}`);
        },
      );
    };
    this.#log.debug({ symbol: this.opts.symbol, reason, attempt }, 'fetching depth snapshot');
    // The first request goes at once; repeats (old snapshot, errors) back off to respect weights.
    if (attempt === 0) run();
    else this.#retryTimer = this.#t.timers.setTimeout(run, backoffDelay(attempt - 1, { initialMs: 250, maxMs: 10_000 }, this.#t.random));
  }

  #onStatus(s: BookStatusEvent): void {
    this.#log.info({ symbol: s.symbol, ready: s.ready, reason: s.reason }, 'book status');
    this.#status.next(s);
  }

  /** Stops timers and subscriptions. */
  close(): void {
    this.#closed = true;
    for (const s of this.#subs) s.unsubscribe();
    this.#subs = [];
    if (this.#retryTimer !== undefined) this.#t.timers.clearTimeout(this.#retryTimer);
    if (this.#staleTimer !== undefined) this.#t.timers.clearTimeout(this.#staleTimer);
    if (this.#tradeTimer !== undefined) this.#t.timers.clearTimeout(this.#tradeTimer);
    this.#status.complete();
  }

  // BookView: every view is empty while the book is not ready, so no strategy reads a known-wrong book.

  /** The symbol. */
  get symbol(): string {
    return this.opts.symbol;
  }
  /** True only while synchronised. */
  get ready(): boolean {
    return this.sync.book.ready;
  }
  /** Update id of the last applied event. */
  get lastUpdateId(): number {
    return this.sync.book.lastUpdateId;
  }
  /** Best bid, undefined when not ready or empty. */
  bestBid(): BookLevel | undefined {
    return this.ready ? this.sync.book.bestBid() : undefined;
  }
  /** Best ask, undefined when not ready or empty. */
  bestAsk(): BookLevel | undefined {
    return this.ready ? this.sync.book.bestAsk() : undefined;
  }
  /** Top n levels per side, best first. */
  top(n: number): { bids: BookLevel[]; asks: BookLevel[] } {
    return this.ready ? this.sync.book.top(n) : { bids: [], asks: [] };
  }
  /** Levels within [low, high]. */
  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] } {
    return this.ready ? this.sync.book.band(low, high) : { bids: [], asks: [] };
  }
  /** Cost of taking qty; nothing fills on a book that is not ready. */
  costToFill(side: OrderSideName, qty: Decimal): FillCost {
    if (!this.ready) return { filledQty: ZERO, quoteQty: ZERO, avgPrice: undefined, worstPrice: undefined };
    return this.sync.book.costToFill(side, qty);
  }
}
