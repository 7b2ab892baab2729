/**
 * The spec's six-step local order book procedure, as a synchronous state machine with no I/O:
 *   1. buffer diff events, 2. take a REST snapshot, 3. drop buffered events with u <= lastUpdateId,
 *   4. the first applied event must have U <= lastUpdateId+1 <= u, 5. each later U must equal the
 *   previous u + 1, 6. quantities are absolute and 0 removes a level.
 * Any violation (gap, reconnect, stale stream, bad payload) clears the book, marks it not ready,
 * reports it, and starts over from step 1 by asking the owner for a new snapshot.
 * The owner (LiveOrderBook live, the replayer in backtests) supplies snapshots and timing.
 */
import type { BookStatusEvent } from '../../core/marketEvents.js';
import type { FlatDepthLevels, ScaledLevels } from '../../core/scaledLevels.js';
import { type LevelsInput, OrderBook, type OrderBookOptions } from './order-book.js';

/** A diff as the synchroniser needs it: first/final update id and absolute levels. */
export interface DiffInput {
  readonly U: number;
  readonly u: number;
  readonly E: number;
  readonly bids: LevelsInput;
  readonly asks: LevelsInput;
}

/** A snapshot as the synchroniser needs it. */
export interface SnapshotInput {
  readonly lastUpdateId: number;
  readonly bids: LevelsInput;
  readonly asks: LevelsInput;
}

/** Callbacks from the synchroniser to its owner. */
export interface BookSyncHooks {
  /** Step 2: a (new) snapshot is needed; the owner fetches it and calls onSnapshot. */
  requestSnapshot(reason: string): void;
  /** Readiness changed. */
  onStatus(ev: BookStatusEvent): void;
}

/** Options of the synchroniser. */
export interface BookSyncOptions extends OrderBookOptions {
  /** Buffered diffs kept while waiting for a snapshot; the oldest are dropped beyond this (default 20,000). */
  readonly maxBuffer?: number;
}

/** Where the synchroniser is in the procedure. */
export type BookSyncState = 'buffering' | 'bridging' | 'ready';

/** Counters for monitoring and tests. */
export interface BookSyncStats {
  applied: number;
  droppedStale: number;
  gaps: number;
  snapshotsUsed: number;
  snapshotsRejected: number;
}

/** Keeps one OrderBook correct per the spec's procedure. */
export class BookSync {
  readonly book: OrderBook;
  readonly stats: BookSyncStats = { applied: 0, droppedStale: 0, gaps: 0, snapshotsUsed: 0, snapshotsRejected: 0 };
  #state: BookSyncState = 'buffering';
  #buffer: DiffInput[] = [];
  #snapshotRequested = false;
  /** Lowest snapshot lastUpdateId that can be used when nothing newer is buffered (a dropped update's u). */
  #mustCover = -1;
  readonly #maxBuffer: number;

  constructor(
    readonly symbol: string,
    private readonly hooks: BookSyncHooks,
    opts: BookSyncOptions = {},
  ) {
    this.book = new OrderBook(symbol, opts);
    this.#maxBuffer = opts.maxBuffer ?? 20_000;
  }

  /** Current procedure state. */
  get state(): BookSyncState {
    return this.#state;
  }

  /** Whether a snapshot has been asked for and not yet supplied. */
  get awaitingSnapshot(): boolean {
    return this.#snapshotRequested;
  }

  /** Feeds one diff event (steps 1, 4, 5). */
  onDiff(d: DiffInput): void {
    switch (this.#state) {
      case 'buffering':
        this.#buffer.push(d);
        if (this.#buffer.length > this.#maxBuffer) this.#buffer.shift();
        if (!this.#snapshotRequested) this.#request('initial sync');
        return;
      case 'bridging':
        this.#bridge(d, d.E);
        return;
      case 'ready': {
        const last = this.book.lastUpdateId;
        if (d.u <= last) {
          // Already contained in the book (a duplicate delivered around a reconnect).
          this.stats.droppedStale++;
          return;
        }
        if (d.U !== last + 1) {
          this.stats.gaps++;
          this.invalidate(`sequence gap: expected U=${last + 1}, got U=${d.U} u=${d.u}`, d.E, d);
          return;
        }
        this.#apply(d);
        return;
      }
      default: {
        const never: never = this.#state;
        throw new Error(`unreachable state ${String(never)}`);
      }
    }
  }

  /**
   * True when a diff with these update ids would be applied as it is by {@link onDiff} in the
   * ready state (step 5 holds: U is the book's update id + 1, and u >= U). Such a diff may be
   * applied with {@link applyNextScaled} from levels its owner parsed once; any other diff goes
   * through onDiff, which drops, buffers or invalidates as the procedure says.
   */
  isNext(U: number, u: number): boolean {
    return this.#state === 'ready' && U === this.book.lastUpdateId + 1 && u >= U;
  }

  /**
   * Step 6 for a diff for which {@link isNext} holds, from levels already parsed into scaled
   * integers (the replay parses each diff once for the local book and the matching engine).
   * Same effect as onDiff with the levels' strings; returns false when the levels could not be
   * applied (a rescale beyond the safe-integer range), after invalidating the book as onDiff would.
   */
  applyNextScaled(U: number, u: number, E: number, bids: ScaledLevels, asks: ScaledLevels): boolean {
    if (!this.isNext(U, u)) throw new Error(`applyNextScaled: diff U=${U} u=${u} is not the next one (state ${this.#state}, lastUpdateId ${this.book.lastUpdateId})`);
    try {
      this.book.applyScaled(bids, asks);
    } catch (err) {
      return this.#rejected(U, u, E, err);
    }
    return this.#applied(u);
  }

  /** {@link applyNextScaled} for a binary recording's diff levels as its reader left them (see OrderBook.applyFlat). */
  applyNextFlat(U: number, u: number, E: number, f: FlatDepthLevels): boolean {
    if (!this.isNext(U, u)) throw new Error(`applyNextFlat: diff U=${U} u=${u} is not the next one (state ${this.#state}, lastUpdateId ${this.book.lastUpdateId})`);
    try {
      this.book.applyFlat(f);
    } catch (err) {
      return this.#rejected(U, u, E, err);
    }
    return this.#applied(u);
  }

  /**
   * Step 5 alone, for a diff for which {@link isNext} holds and whose levels its owner keeps
   * elsewhere (a replay's matching engine follows the exchange's book): the book's update id moves
   * on and its levels do not, so they are the exchange's no longer, until the next snapshot loads
   * them again. Only for an owner that reads the levels at (re)synchronisation alone.
   */
  advanceNext(U: number, u: number): void {
    if (!this.isNext(U, u)) throw new Error(`advanceNext: diff U=${U} u=${u} is not the next one (state ${this.#state}, lastUpdateId ${this.book.lastUpdateId})`);
    this.#applied(u);
  }

  /** Feeds a REST snapshot (steps 2, 3, 4). Ignored while the book is ready (a periodic snapshot in a recording). */
  onSnapshot(s: SnapshotInput, at: number): void {
    if (this.#state === 'ready') return;
    this.#snapshotRequested = false;
    const L = s.lastUpdateId;
    // Step 3: drop what the snapshot already contains.
    const pending = this.#buffer.filter((d) => d.u > L);
    this.stats.droppedStale += this.#buffer.length - pending.length;
    this.#buffer = [];
    const first = pending[0];
    if (first !== undefined && first.U > L + 1) {
      // The snapshot is older than the oldest event we hold: events in between are lost. Retry.
      this.stats.snapshotsRejected++;
      this.#buffer = pending;
      this.#request(`snapshot lastUpdateId ${L} older than buffered U=${first.U}`);
      return;
    }
    if (first === undefined && L < this.#mustCover) {
      // Nothing buffered bridges it and it predates the dropped update: loading it would make a
      // book ready without that change. (A buffered diff that bridges proves it newer.)
      this.stats.snapshotsRejected++;
      this.#request(`snapshot lastUpdateId ${L} older than the dropped update u=${this.#mustCover}`);
      return;
    }
    try {
      this.book.loadSnapshot(L, s.bids, s.asks);
    } catch (err) {
      this.stats.snapshotsRejected++;
      this.#buffer = pending;
      this.#request(`bad snapshot: ${(err as Error).message}`);
      return;
    }
    this.stats.snapshotsUsed++;
    this.#mustCover = -1;
    this.#state = 'bridging';
    for (const d of pending) {
      // After the bridge, onDiff applies step 5; if a gap restarted the procedure it re-buffers.
      if (this.#state === 'bridging') this.#bridge(d, at);
      else this.onDiff(d);
    }
    if (this.#state === 'bridging' && !this.book.ready) {
      // Nothing buffered is newer than the snapshot: the book is the exchange's state at
      // lastUpdateId. In a quiet market the next diff may be far off, so the book is usable now;
      // step 4 still applies to that next diff, and a diff that does not bridge invalidates it.
      this.book.setReady(true);
      this.hooks.onStatus({ type: 'bookStatus', E: at, symbol: this.symbol, ready: true, reason: 'snapshot loaded; no newer event yet' });
    }
  }

  /** Marks the book wrong (gap, reconnect, stale stream), clears it and restarts the procedure. */
  invalidate(reason: string, at: number, firstOfNewBuffer?: DiffInput): void {
    const wasReady = this.book.ready;
    this.#state = 'buffering';
    this.book.setReady(false);
    this.book.clear();
    this.#buffer = firstOfNewBuffer ? [firstOfNewBuffer] : [];
    this.#snapshotRequested = false;
    if (wasReady) this.hooks.onStatus({ type: 'bookStatus', E: at, symbol: this.symbol, ready: false, reason });
    // A live owner needs a diff in the buffer before the snapshot is worth taking; with one
    // already buffered (a gap) ask now, otherwise the next diff asks (step 1 before step 2).
    if (firstOfNewBuffer) this.#request(reason);
  }

  /**
   * Invalidates and asks for a snapshot at once, without waiting for the next diff: used when the
   * stream went quiet or dropped an update, where the next diff may be far off but the REST state
   * is available now. `mustCover` (a dropped update's u) refuses snapshots older than it until a
   * buffered diff bridges one.
   */
  resync(reason: string, at: number, mustCover?: number): void {
    const floor = Math.max(this.#mustCover, mustCover ?? -1);
    this.invalidate(reason, at);
    this.#mustCover = floor;
    this.#request(reason);
  }

  /** Step 4 for the first event after a snapshot. */
  #bridge(d: DiffInput, at: number): void {
    const L = this.book.lastUpdateId;
    if (d.u <= L) {
      this.stats.droppedStale++;
      return;
    }
    if (d.U > L + 1) {
      this.stats.gaps++;
      this.invalidate(`sequence gap: first event U=${d.U} does not bridge snapshot lastUpdateId ${L}`, at, d);
      return;
    }
    if (!this.#apply(d)) return;
    this.#state = 'ready';
    if (this.book.ready) return;
    this.book.setReady(true);
    this.hooks.onStatus({ type: 'bookStatus', E: at, symbol: this.symbol, ready: true, reason: 'synchronised' });
  }

  /** Step 6; a malformed level invalidates the book rather than leaving it half-updated. */
  #apply(d: DiffInput): boolean {
    try {
      this.book.applyLevels(d.bids, d.asks);
    } catch (err) {
      return this.#rejected(d.U, d.u, d.E, err);
    }
    return this.#applied(d.u);
  }

  #applied(u: number): true {
    this.book.lastUpdateId = u;
    this.stats.applied++;
    return true;
  }

  #rejected(U: number, u: number, E: number, err: unknown): false {
    this.invalidate(`bad diff U=${U} u=${u}: ${(err as Error).message}`, E);
    return false;
  }

  #request(reason: string): void {
    this.#snapshotRequested = true;
    this.hooks.requestSnapshot(reason);
  }
}
