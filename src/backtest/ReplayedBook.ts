/**
 * One replayed order book of a symbol: the spec's six-step synchroniser (BookSync) fed a
 * recording's snapshots and depth diffs, optionally with the matching engine's replayed liquidity
 * following it. The replay keeps two per symbol (twoClocks.ts): the strategy's local book, moved at
 * receive time, and the simulated exchange's, moved at exchange time with the engine behind it.
 * Diff levels are parsed once into scaled integers for the book and the engine; a binary
 * recording's are read in place with no parse.
 *
 * With an engine behind it, the book's levels are read only to seed the engine when the book
 * (re)synchronises; from then on the engine's replayed liquidity follows the diffs. So a binary
 * recording's diff at the book's scales (nearly every one) moves that book's update id and the
 * engine, not the book's levels: each diff's levels went to three structures (local book,
 * exchange's book, engine) where two serve, and the two books' level writes were ~12 % of a day's
 * backtest in a profile. The levels are then stale until the next snapshot; the one thing they
 * still decide is whether a later diff at finer scales can rescale the book within 2^53, a check
 * now made on the levels the book last held (prices and sizes of the same instrument, far from
 * the 10^9-fold difference that would change its answer).
 */
import type { BookStatusEvent, DepthDiffEvent } from '../core/marketEvents.js';
import { parseDepthSides, reserveLevels, scaledLevels, type ScaledLevels } from '../core/scaledLevels.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';
import { BookSync } from '../exchange/book/book-sync.js';
import { flatDepthLevels, rawDepthLevels, scaledDepthSides, type RawDepthLevels, type ScaledDepthSides } from '../record/depth-diff.js';
import type { OrderBookSnapshot } from '../core/types.js';
import { snapshotInput } from '../record/snapshot.js';
import type { MatchingEngine } from '../sim/engine.js';

/** Core's powers of ten under a local const (see core/pow10.ts). */
const POW10 = CORE_POW10;

/** A synchronised replayed book of one symbol, with the engine following it when given one. */
export class ReplayedBook {
  readonly sync: BookSync;
  readonly #symbol: string;
  readonly #engine: MatchingEngine | undefined;
  readonly #now: () => number;
  /** A diff's sides parsed once for the book and the engine (reused buffers, see #parseDiff). */
  readonly #bids = scaledLevels();
  readonly #asks = scaledLevels();
  /** The same buffers as a pair, for a binary recording's diff brought to the book's scales (see #atBookScales). */
  readonly #rescaled: ScaledDepthSides = { bids: this.#bids, asks: this.#asks };
  /** The book's levels for seeding the engine (see #seedEngine); grown to the book's size. */
  readonly #seedBids = scaledLevels(0);
  readonly #seedAsks = scaledLevels(0);

  /**
   * `onStatus` hears the book's readiness changes; `engine` (optional) has its replayed liquidity of
   * `symbol` replaced by this book on each (re)synchronisation and moved by every diff the book
   * applies, at `now()` for the seeding and at the diff's event time for the diff.
   */
  constructor(symbol: string, onStatus: (ev: BookStatusEvent) => void, engine: MatchingEngine | undefined, now: () => number) {
    this.#symbol = symbol;
    this.#engine = engine;
    this.#now = now;
    const sync: BookSync = new BookSync(symbol, {
      // The recording supplies its own snapshots; a replay cannot fetch one.
      requestSnapshot: () => undefined,
      onStatus: (ev) => {
        if (ev.ready) this.#seedEngine();
        onStatus(ev);
      },
    });
    this.sync = sync;
  }

  /** Feeds a recorded REST snapshot. */
  snapshot(s: OrderBookSnapshot, at: number): void {
    this.sync.onSnapshot(snapshotInput(s), at);
  }

  /** Feeds a recorded depth diff; the engine follows only what the book really applied. */
  diff(e: DepthDiffEvent): void {
    const sync = this.sync;
    const engine = this.#engine;
    const raw = rawDepthLevels(e);
    // The bulk of a replay: a diff with wire strings that is the next one for a ready book.
    // Its levels are parsed once into scaled integers for both the book and the engine.
    if (raw !== undefined && sync.isNext(e.firstUpdateId, e.finalUpdateId) && this.#parseDiff(raw, sync.book.priceScale, sync.book.qtyScale)) {
      if (sync.applyNextScaled(e.firstUpdateId, e.finalUpdateId, e.E, this.#bids, this.#asks)) engine?.applyDepthDiffScaled(this.#symbol, this.#bids, this.#asks, e.E);
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
        // The exchange's book: the engine holds its levels (see the class comment), the book its update ids.
        if (engine !== undefined) {
          sync.advanceNext(e.firstUpdateId, e.finalUpdateId);
          engine.applyDepthDiffFlat(this.#symbol, flat, e.E);
        } else sync.applyNextFlat(e.firstUpdateId, e.finalUpdateId, e.E, flat);
        return;
      }
      const pre = scaledDepthSides(e);
      const sides = pre && this.#atBookScales(pre, sync.book.priceScale, sync.book.qtyScale);
      if (sides !== undefined) {
        if (sync.applyNextScaled(e.firstUpdateId, e.finalUpdateId, e.E, sides.bids, sides.asks)) engine?.applyDepthDiffScaled(this.#symbol, sides.bids, sides.asks, e.E);
        return;
      }
    }
    // Everything else (buffering, bridging, gaps, stale diffs, eagerly parsed events, levels
    // the parse refused) takes the synchroniser's own path, which decides as the spec says.
    const before = sync.book.lastUpdateId;
    const wasReady = sync.state === 'ready';
    sync.onDiff({ U: e.firstUpdateId, u: e.finalUpdateId, E: e.E, bids: raw?.bids ?? e.bids, asks: raw?.asks ?? e.asks });
    if (wasReady && sync.state === 'ready' && sync.book.lastUpdateId !== before) engine?.applyDepthDiff(this.#symbol, e, e.E);
  }

  /**
   * Parses a diff's wire levels into the reused #bids/#asks buffers, starting at the book's scales
   * (so the book needs no conversion; see core/scaledLevels for the scale policy). False when a
   * string does not parse there: the caller then hands the strings to the synchroniser, whose own
   * parse reports or applies them exactly as without this path.
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

  /** On (re)synchronisation the engine's replayed liquidity is replaced by the book. */
  #seedEngine(): void {
    const engine = this.#engine;
    if (!engine) return;
    const now = this.#now();
    const book = this.sync.book;
    // Scaled integers when the engine keeps the book's scales (no text per level of the whole book);
    // otherwise wire strings, which the engine scales itself (and whose misfit it reports).
    book.scaledLevels(this.#seedBids, this.#seedAsks);
    if (!engine.applyDepthSnapshotScaled(this.#symbol, this.#seedBids, this.#seedAsks, now)) engine.applyDepthSnapshot(this.#symbol, book.wireLevels(), now);
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
