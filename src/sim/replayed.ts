/**
 * Replayed liquidity: depth snapshots and diffs set the replayed quantity of each level (own orders
 * keep their queue place), stale crossings are dropped, crossing replayed liquidity fills own
 * orders, and replayed trades fill own orders they prove would have traded.
 */
import type { FlatDepthLevels, ScaledLevels } from '../core/scaledLevels.js';
import { type BookSide, CHANGED, type Level } from './book.js';
import type { FillModel, ReplayedBook } from './fillModel.js';
import type { QueueModel } from './queueModel.js';
import { fmt, rescale, toScaled } from './scaled.js';
import type { Ord, Sym } from './state.js';
import type { ExternalDepth, ExternalTrade } from './types.js';
import type { EventSink } from './eventSink.js';
import type { Ledger } from './ledger.js';
import type { StopOrders } from './stops.js';
import type { EngineState } from './engineState.js';

/** Replayed liquidity: the recorded market's depth and trades, and what they do to own orders. */
export class ReplayedLiquidity implements ReplayedBook {
  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
    private readonly ledger: Ledger,
    private readonly stops: StopOrders,
    private readonly queue: QueueModel,
    private readonly fills: FillModel,
  ) {}

  /** Replaces the replayed liquidity with a snapshot (own orders stay, behind at most the new level quantity). */
  applyDepthSnapshot(symbol: string, snapshot: ExternalDepth, now: number): void {
    const s = this.state.needSymbol(symbol);
    this.state.now = now;
    s.bookTime = snapshot.time ?? now;
    for (const side of [s.bids, s.asks]) {
      for (const p of side.extPrices()) this.setExt(s, side, p, 0, false);
    }
    this.applyLevels(s, snapshot);
    this.events.end();
  }

  /**
   * applyDepthSnapshot for levels a replay holds as scaled integers (its local book, best first),
   * when every level fits the symbol's scales (at them, or at coarser ones and still a safe integer
   * there): same effect and events as applyDepthSnapshot with the same levels as decimal strings,
   * without writing and parsing a text per level. Returns false, having done nothing, when a level
   * does not fit (the caller then hands the strings, whose parse reports it as before).
   */
  applyDepthSnapshotScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): boolean {
    const s = this.state.needSymbol(symbol);
    if (!fitsScales(bids, s.pd, s.qd) || !fitsScales(asks, s.pd, s.qd)) return false;
    this.state.now = now;
    s.bookTime = now;
    for (const side of [s.bids, s.asks]) {
      for (const p of side.extPrices()) this.setExt(s, side, p, 0, false);
    }
    this.applyScaledSide(s, bids, s.bids, s.asks);
    this.applyScaledSide(s, asks, s.asks, s.bids);
    this.uncross(s);
    this.events.end();
    return true;
  }

  /** Applies a replayed depth diff (absolute quantities; 0 removes the replayed part of a level). */
  applyDepthDiff(symbol: string, diff: ExternalDepth, now: number): void {
    const s = this.state.needSymbol(symbol);
    this.state.now = now;
    s.bookTime = diff.time ?? now;
    this.applyLevels(s, diff);
    this.events.end();
  }

  /**
   * applyDepthDiff for a diff whose sides a replay already parsed into scaled integers (core
   * ScaledLevels), so each wire level is parsed once for the local book and the engine. Same
   * effect and events as applyDepthDiff with the same levels as decimal strings. Values at other
   * scales than the symbol's are converted exactly; a level that does not fit the symbol's scales
   * throws the same RangeError, after the levels before it were applied, as the string path does.
   */
  applyDepthDiffScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): void {
    const s = this.state.needSymbol(symbol);
    this.state.now = now;
    s.bookTime = now;
    this.applyScaledSide(s, bids, s.bids, s.asks);
    this.applyScaledSide(s, asks, s.asks, s.bids);
    this.uncross(s);
    this.events.end();
  }

  /**
   * applyDepthDiffScaled for a binary recording's diff levels where its reader left them (both
   * sides in one buffer, see core/scaledLevels' FlatDepthLevels): same effect and events, without
   * reading them through ScaledLevels objects and array views.
   */
  applyDepthDiffFlat(symbol: string, f: FlatDepthLevels, now: number): void {
    const s = this.state.needSymbol(symbol);
    this.state.now = now;
    s.bookTime = now;
    this.applyScaledRun(s, f.buf, f.bidPrices, f.buf, f.bidQtys, f.nBids, f.priceScale, f.qtyScale, s.bids, s.asks);
    this.applyScaledRun(s, f.buf, f.askPrices, f.buf, f.askQtys, f.nAsks, f.priceScale, f.qtyScale, s.asks, s.bids);
    this.uncross(s);
    this.events.end();
  }

  applyLevels(s: Sym, d: ExternalDepth): void {
    this.applySide(s, d.bids, s.bids, s.asks);
    this.applySide(s, d.asks, s.asks, s.bids);
    this.uncross(s);
  }

  applySide(s: Sym, levels: ExternalDepth['bids'], side: BookSide, other: BookSide): void {
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i]!;
      const p = toScaled(l.price, s.pd);
      const q = toScaled(l.qty, s.qd);
      if (p < 0 || q < 0) throw levelMisfit(s, String(l.price), String(l.qty));
      this.applyLevel(s, side, other, p, q);
    }
  }

  /** applySide for levels already parsed to scaled integers, converted exactly to the symbol's scales. */
  applyScaledSide(s: Sym, levels: ScaledLevels, side: BookSide, other: BookSide): void {
    this.applyScaledRun(s, levels.prices, 0, levels.qtys, 0, levels.n, levels.priceScale, levels.qtyScale, side, other);
  }

  /**
   * applyScaledSide for `n` levels with prices from `prices[pi]` and quantities from `qtys[qi]` (a
   * binary recording's level pool as its reader left it, or a ScaledLevels' arrays from 0).
   */
  applyScaledRun(s: Sym, prices: Float64Array, pi: number, qtys: Float64Array, qi: number, count: number, priceScale: number, qtyScale: number, side: BookSide, other: BookSide): void {
    // Level k is prices[pi + k] with qtys[pi + k + dq]: the loop runs over price indices.
    const n = pi + count;
    const dq = qi - pi;
    const pd = s.pd;
    const qd = s.qd;
    if (priceScale === pd && qtyScale === qd) {
      // The replay's scales are the symbol's (the usual case): nothing to convert, only to check
      // that each value is a non-negative safe integer, as rescale does. With nobody listening for
      // market data (no touched prices to list), the side applies the run of plain window levels
      // itself and hands back each level that needs the full step below (see BookSide.applyWindow).
      let cleared = NaN;
      for (let i = pi; i < n; i++) {
        if (!this.events.marketData) {
          i = side.applyWindow(prices, qtys, i, n, other.hi > other.lo ? other.px[other.hi - 1]! : NaN, dq);
          if (i >= n) break;
        }
        const p = prices[i]!;
        const q = qtys[i + dq]!;
        if (!(p >= 0 && p <= Number.MAX_SAFE_INTEGER && q >= 0 && q <= Number.MAX_SAFE_INTEGER && Math.floor(p) === p && Math.floor(q) === q)) {
          throw levelMisfit(s, fmt(p, priceScale), fmt(q, qtyScale));
        }
        // As rescale: small integers as such (also turns a -0 into 0).
        cleared = this.applyLevel(s, side, other, p <= 0x7fffffff ? p | 0 : p, q <= 0x7fffffff ? q | 0 : q, cleared);
      }
      return;
    }
    let cleared = NaN;
    for (let i = pi; i < n; i++) {
      const p = rescale(prices[i]!, priceScale, pd);
      const q = rescale(qtys[i + dq]!, qtyScale, qd);
      if (p < 0 || q < 0) throw levelMisfit(s, fmt(prices[i]!, priceScale), fmt(qtys[i + dq]!, qtyScale));
      cleared = this.applyLevel(s, side, other, p, q, cleared);
    }
  }

  /**
   * One replayed level: its external quantity, then whatever it makes stale on the other side.
   * `cleared` (NaN: none) is the most aggressive price of `side` whose stale quantity on `other` an
   * earlier level of the same run of one side's levels dropped; returns it updated. Within such a
   * run `other` changes only by those drops (setExt and BookSide.applyWindow touch `side` alone),
   * so a level no more aggressive than `cleared` finds nothing left to drop. Why: a diff lists a
   * side best first, so when an own order rests beyond the replayed touch (a fast market) every
   * crossing level after the first walked the same stretch of the other side again.
   */
  applyLevel(s: Sym, side: BookSide, other: BookSide, p: number, q: number, cleared = NaN): number {
    this.setExt(s, side, p, q, true);
    if (q > 0 && other.hi > other.lo) {
      // Only when p reaches the other side's best can anything there be stale (see dropStaleCrossing).
      const top = other.px[other.hi - 1]!;
      if ((other.isBid ? top >= p : top <= p) && !(side.isBid ? p <= cleared : p >= cleared)) {
        this.dropStaleCrossing(s, other, p);
        return p;
      }
    }
    return cleared;
  }

  /**
   * A replayed level at `p` makes replayed quantity on the other side at prices crossing `p` stale:
   * the real book cannot hold both, so the newer update wins and the stale quantity is removed.
   */
  dropStaleCrossing(s: Sym, other: BookSide, p: number): void {
    // Best prices sit at the top of the ladder: walk down from it. A removal may move either end of
    // the ladder, so after one the walk finds its place again by price.
    // Holes (qx 0) are skipped without reading their prices: the ladder is sorted, so the first live
    // slot after them crosses `p` only if they all did, and a hole has nothing to drop. Why: an own
    // order left above the replayed touch in a fast market (the replay's levels reach it only later)
    // tops the ladder over hundreds of window holes, and a diff's every crossing level walked them
    // (~570k slots a run on the BTCUSDT recording with periodic orders).
    let i = other.hi - 1;
    const lo = other.lo;
    while (i >= lo) {
      const qx = other.qx;
      while (i >= lo && qx[i] === 0) i--;
      if (i < lo) break;
      const price = other.px[i]!;
      if (!(other.isBid ? price >= p : price <= p)) break;
      if (other.extAt(i) > 0) {
        this.setExt(s, other, price, 0, false);
        const j = other.seek(price);
        i = (j >= 0 ? j : ~j) - 1;
      } else i--;
    }
  }

  /**
   * Sets a level's replayed quantity; own orders keep their queue place but never wait behind more
   * than is there. `diff`: the replay's diff set it, so the queue model decides how far own orders
   * there move up (and the fill model may credit the move against reflected trades).
   */
  setExt(s: Sym, side: BookSide, p: number, q: number, diff: boolean): void {
    const i = side.setPlain(p, q);
    if (i < 0) {
      if (i === CHANGED) this.events.touchPrice(s, side.isBid, p);
      return;
    }
    const lv = side.levels.get(p)!;
    if (lv.ext === q) return;
    if (q < lv.ext) {
      if (diff) this.shrinkQueue(lv, q);
      else for (let r = lv.head; r !== null; r = r.next) if (r.ahead > q) r.ahead = q;
    }
    lv.ext = q;
    this.events.touch(s, side.isBid, lv);
    // A Level with no own orders goes back to a plain ladder slot (or away when q is 0).
    if (lv.head === null) side.demote(lv, i);
  }

  /**
   * A replayed diff shrank `lv` to `q`: moves its own orders up by the queue model. The models are
   * called through their interfaces (one call per own order on a shrinking level, one per replayed
   * trade): an engine holds one of each, so each call site sees one class. Measured against the
   * engine with the models inlined as a number and a flag: +0.45 % instructions on a seeded replay
   * (cachegrind), so no special-cased class here.
   */
  shrinkQueue(lv: Level, q: number): void {
    const prev = lv.ext;
    for (let r = lv.head as Ord | null; r !== null; r = r.next as Ord | null) {
      const a = r.ahead;
      const n = this.queue.aheadAfterShrink(a, prev, q);
      if (n === a) continue;
      r.ahead = n;
      this.fills.movedUp(r, a - n);
    }
  }

  /**
   * Replayed liquidity that crosses own resting orders trades with them: the own order is the maker
   * (it rested first) at its own price, best own price first, oldest first; the replayed quantity it
   * used is taken off that replayed level until the replay sets the level again.
   */
  uncross(s: Sym): void {
    for (;;) {
      const own = firstOwn(s.bids);
      if (own === undefined) break;
      const i = s.asks.firstExtSlot();
      if (i < 0 || own.price < s.asks.px[i]!) break;
      this.fillFromExternal(s, s.bids, own, s.asks, s.asks.px[i]!);
    }
    for (;;) {
      const own = firstOwn(s.asks);
      if (own === undefined) break;
      const i = s.bids.firstExtSlot();
      if (i < 0 || own.price > s.bids.px[i]!) break;
      this.fillFromExternal(s, s.asks, own, s.bids, s.bids.px[i]!);
    }
    this.stops.checkStops(s);
  }

  /** The oldest own order of `ownLv` takes what it can of the replayed quantity at `extPrice`. */
  fillFromExternal(s: Sym, ownSide: BookSide, ownLv: Level, extSide: BookSide, extPrice: number): void {
    const m = ownLv.head as Ord;
    const q = Math.min(m.visible, extSide.extAt(extSide.seek(extPrice)));
    this.makerFill(m, ownSide, ownLv, q);
    this.setExt(s, extSide, extPrice, extSide.extAt(extSide.seek(extPrice)) - q, false);
  }

  /** An own resting order filled as maker by replayed flow, at its own price. */
  makerFill(m: Ord, side: BookSide, lv: Level, q: number): void {
    const id = this.state.nextTradeId++;
    m.visible -= q;
    lv.own -= q;
    this.events.touch(m.sym, side.isBid, lv);
    this.ledger.fill(m, q, lv.price, true, id);
    if (m.visible === 0) {
      if (m.isOpen && m.rem > 0) side.requeue(m, Math.min(m.icebergQty, m.rem));
      else {
        side.unlink(m);
        side.dropIfEmpty(lv);
      }
    }
  }

  /**
   * Applies a replayed public trade. It is published as a public trade and moves the last price.
   * Own orders it proves would have traded are filled as makers at their own price: first those at
   * better prices than the trade (the real taker would have reached them first), then at the trade
   * price the trade quantity first consumes the replayed quantity queued ahead of each own order.
   * In the kancil fill model a trade the book does not reflect yet also takes what it traded off
   * the replayed book (takeReplayed), and one it reflects counts once (fillLevelFromTrade).
   * `time`: the trade's exchange time (default `trade.time`; see ExternalTrade.time).
   */
  applyTrade(symbol: string, trade: ExternalTrade, now: number, time = trade.time ?? now): void {
    const s = this.state.needSymbol(symbol);
    this.state.now = now;
    const p = toScaled(trade.price, s.pd);
    const q = toScaled(trade.qty, s.qd);
    if (p <= 0 || q <= 0) throw new RangeError(`${s.name} replayed trade ${String(trade.price)} x ${String(trade.qty)} does not fit the symbol's scales`);
    this.replayTrade(s, p, q, trade.isBuyerMaker, time);
  }

  /**
   * applyTrade for a trade whose price and quantity are scaled integers already (`price` x
   * 10^-priceScale; a binary recording holds them so), converted exactly to the symbol's scales:
   * same effect and events as applyTrade with their decimal strings. Returns false, having done
   * nothing, when they do not fit the symbol's scales (the caller then hands the strings, whose
   * parse reports it as before). Why: the replay need not read the trade's strings at all (cache
   * misses on a pre-loaded recording). `time`: the trade's exchange time (ExternalTrade.time).
   */
  applyTradeScaled(symbol: string, price: number, priceScale: number, qty: number, qtyScale: number, isBuyerMaker: boolean, now: number, time = now): boolean {
    const s = this.state.needSymbol(symbol);
    const p = rescale(price, priceScale, s.pd);
    const q = rescale(qty, qtyScale, s.qd);
    if (p <= 0 || q <= 0) return false;
    this.state.now = now;
    this.replayTrade(s, p, q, isBuyerMaker, time);
    return true;
  }

  /**
   * A replayed trade at scaled price `p` and quantity `q` (both > 0, at the symbol's scales) at
   * exchange time `time`: reflected (kancil) when the last applied diff is no older than it.
   */
  replayTrade(s: Sym, p: number, qty: number, isBuyerMaker: boolean, time: number): void {
    let q = qty;
    this.events.trade(s, this.state.recordPublic(s, this.state.nextTradeId++, p, q, 0, 0, isBuyerMaker));
    const side = isBuyerMaker ? s.bids : s.asks;
    const reflected = this.fills.reflected(time, s.bookTime);
    while (q > 0) {
      const lv = firstOwn(side);
      if (lv === undefined || (side.isBid ? lv.price < p : lv.price > p)) break;
      q = this.fillLevelFromTrade(side, lv, q, lv.price !== p, reflected);
      if (lv.price === p) break;
    }
    this.fills.afterTrade(this, s, side, p, qty, reflected);
    this.stops.checkStops(s);
    this.events.end();
  }

  /**
   * For the kancil fill model (fillModel.ts): a trade not yet in the book takes `qty` off the
   * replayed quantity at its price `p` on the maker side, and removes the replayed quantity at
   * better prices there (the taker would have reached it first: it is gone, or stale). A later
   * diff restates those levels.
   */
  takeReplayed(s: Sym, side: BookSide, p: number, qty: number): void {
    if (side.hi > side.lo) {
      const top = side.px[side.hi - 1]!;
      if (side.isBid ? top > p : top < p) this.dropStaleCrossing(s, side, side.isBid ? p + 1 : p - 1);
    }
    const i = side.seek(p);
    if (i < 0) return;
    const ext = side.extAt(i);
    if (ext > 0) this.setExt(s, side, p, ext > qty ? ext - qty : 0, false);
  }

  /**
   * Fills own orders of one level from a replayed trade; `better` skips the replayed queue ahead.
   * Returns what is left of the trade. A `reflected` trade (kancil) first uses up the queue the
   * diffs already removed ahead of the level's first own order (its credit) without moving anyone
   * up again; only the rest consumes the queue ahead and fills.
   */
  fillLevelFromTrade(side: BookSide, lv: Level, q: number, better: boolean, reflected: boolean): number {
    let used = 0;
    let m = lv.head as Ord | null;
    if (reflected && !better && m !== null) {
      const c = m.credit;
      const skip = c < q ? c : q;
      if (skip > 0) {
        q -= skip;
        for (let r: Ord | null = m; r !== null; r = r.next as Ord | null) {
          const rc = r.credit;
          r.credit = rc > skip ? rc - skip : 0;
        }
      }
    }
    while (q > 0 && m !== null) {
      const next = m.next as Ord | null;
      if (!better) {
        const extAhead = m.ahead - used;
        if (extAhead > 0) {
          const u = Math.min(q, extAhead);
          used += u;
          q -= u;
          if (q === 0) break;
        }
      }
      const f = Math.min(q, m.visible);
      q -= f;
      this.makerFill(m, side, lv, f);
      m = next;
    }
    if (used > 0) for (let r = lv.head; r !== null; r = r.next) r.ahead = r.ahead > used ? r.ahead - used : 0;
    return better ? q : 0;
  }
}

/** True when every level is a non-negative safe integer pair that stays one at scales `pd`/`qd` (no finer than them). */
function fitsScales(l: ScaledLevels, pd: number, qd: number): boolean {
  if (l.priceScale > pd || l.qtyScale > qd || pd - l.priceScale > 22 || qd - l.qtyScale > 22) return false;
  const pf = 10 ** (pd - l.priceScale);
  const qf = 10 ** (qd - l.qtyScale);
  for (let i = 0; i < l.n; i++) {
    const p = l.prices[i]!;
    const q = l.qtys[i]!;
    if (!(p >= 0 && q >= 0 && Math.floor(p) === p && Math.floor(q) === q && p * pf <= Number.MAX_SAFE_INTEGER && q * qf <= Number.MAX_SAFE_INTEGER)) return false;
  }
  return true;
}

/** The error of a replayed level whose price or quantity the symbol's scales cannot hold exactly. */
function levelMisfit(s: Sym, price: string, qty: string): RangeError {
  return new RangeError(`${s.name} replayed level ${price} x ${qty} does not fit the symbol's scales (${s.pd} price, ${s.qd} quantity decimals; raise priceDecimals/quantityDecimals)`);
}

function firstOwn(side: BookSide): Level | undefined {
  return side.firstOwn();
}
