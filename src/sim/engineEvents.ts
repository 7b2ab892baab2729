/**
 * Event delivery: listeners, the buffer, per-operation depth diffs and account positions,
 * executionReports in wire and scaled form, and public trades.
 */
import type { RejectReasonName } from '../core/enums.js';
import type { BookSide, Level } from './book.js';
import type { EngineEvent, EngineListener, ExecutionReportEvent, NonReportEvent, ScaledEngineListener, ScaledExecutionReport, ScaledSubscribeOptions, SubscribeOptions, TradeEvent, WireSubscribeOptions } from './events.js';
import { fmt, fmtBig } from './scaled.js';
import type { Acct, Ord, PubTrade, Sym } from './state.js';
import { executionReport, type FillInfo, scaledExecutionReport, writeScaledExecutionReport } from './views.js';
import { EngineBase, type Listener, RECENT_TRADES } from './engineBase.js';

/** Event delivery. */
export abstract class EngineEvents extends EngineBase {
  /**
   * Subscribes a synchronous listener; returns the unsubscribe function. With `{ marketData: false }`
   * the listener gets only account events (executionReport, outboundAccountPosition, listStatus),
   * and while no buffer or other listener wants market data, trade, depthUpdate and referencePrice
   * events are not even built. The events a listener does get are the same either way. With
   * `{ reports: 'scaled' }` its executionReports come as ScaledExecutionReport (events.ts), and the
   * wire reports' strings are built only while a buffer or another listener wants them.
   */
  subscribe(listener: ScaledEngineListener, options: ScaledSubscribeOptions): () => void;

  subscribe(listener: EngineListener, options?: WireSubscribeOptions): () => void;

  subscribe(listener: EngineListener | ScaledEngineListener, options?: SubscribeOptions): () => void {
    const market = options?.marketData !== false;
    const positions = options?.accountPositions !== false;
    // The overloads pair a scaled listener with reports: 'scaled' and a wire listener with the rest.
    const entry: Listener =
      options?.reports === 'scaled'
        ? { scaled: true, fn: listener as ScaledEngineListener, market, positions, transient: (options as ScaledSubscribeOptions).transientReports === true }
        : { scaled: false, fn: listener as EngineListener, market, positions, transient: false };
    this.listeners.push(entry);
    this.wants();
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
      this.wants();
    };
  }

  /** Recomputes which event kinds anyone wants. */
  protected wants(): void {
    this.ev = this.bufferOn || this.listeners.length > 0;
    this.wev = this.bufferOn || this.listeners.some((l) => !l.scaled);
    this.sev = this.listeners.some((l) => l.scaled);
    this.tev = this.sev && this.listeners.every((l) => !l.scaled || l.transient);
    this.mev = this.bufferOn || this.listeners.some((l) => l.market);
    this.pev = this.bufferOn || this.listeners.some((l) => l.positions);
  }

  /** Drains buffered events (empty when bufferEvents is false). */
  takeEvents(): EngineEvent[] {
    const out = this.buffer;
    this.buffer = [];
    return out;
  }

  /** Delivers an account event other than an executionReport to the buffer and every listener. */
  protected emit(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) l.fn(e);
  }

  /** Delivers a market-data event to the buffer and the listeners that want market data. */
  protected emitMarket(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) if (l.market) l.fn(e);
  }

  /** Delivers an account position to the buffer and the listeners that want them. */
  protected emitPosition(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) if (l.positions) l.fn(e);
  }

  /**
   * Records a level the current operation changed, for its depth diff. A level is listed once per
   * operation (its `mark`); a price can still appear twice when its level emptied and a new one
   * opened there, which depthLevels drops after sorting.
   */
  protected touch(s: Sym, isBid: boolean, lv: Level): void {
    if (!this.mev || lv.mark === this.opSeq) return;
    lv.mark = this.opSeq;
    if (!s.touchedAny) {
      s.touchedAny = true;
      this.touchedSyms.push(s);
    }
    (isBid ? s.touchedBids : s.touchedAsks).push(lv.price);
  }

  /**
   * touch for a replayed-only price (a ladder slot without a Level, so no mark): the price may be
   * listed more than once in an operation, which depthLevels drops after sorting, as it does for a
   * level that emptied and reopened.
   */
  protected touchPrice(s: Sym, isBid: boolean, price: number): void {
    if (!this.mev) return;
    if (!s.touchedAny) {
      s.touchedAny = true;
      this.touchedSyms.push(s);
    }
    (isBid ? s.touchedBids : s.touchedAsks).push(price);
  }

  protected dirty(a: Acct, asset: string): void {
    a.lastUpdate = this.now;
    if (!this.pev) return;
    if (a.dirty.size === 0) this.dirtyAccts.push(a);
    a.dirty.add(asset);
  }

  /** Ends an operation: account positions for changed balances, then one depth diff per changed symbol. */
  protected end(): void {
    if (!this.ev) return;
    if (this.dirtyAccts.length === 0 && this.touchedSyms.length === 0) {
      // Nothing to report (a replayed level or trade with no own order and no market-data
      // listener): skip the loops and the `length = 0` stores, which V8 runs as a call into its
      // runtime even on an empty array (~1.5 ms of a 22 ms engine replay of the BTCUSDT recording).
      this.opSeq++;
      return;
    }
    const now = this.now;
    for (const a of this.dirtyAccts) {
      const B: { a: string; f: string; l: string }[] = [];
      for (const asset of a.dirty) {
        const b = a.b(asset);
        const sc = this.scaleOf(asset);
        B.push({ a: asset, f: fmtBig(b.free, sc), l: fmtBig(b.locked, sc) });
      }
      if (B.length > 1) B.sort(byAsset);
      a.dirty.clear();
      this.emitPosition({
        type: 'outboundAccountPosition',
        accountId: a.id,
        e: 'outboundAccountPosition',
        E: now,
        m: a.makerBips,
        t: a.takerBips,
        b: 0,
        s: 0,
        T: a.canTrade,
        W: true,
        D: true,
        u: a.lastUpdate,
        B,
      });
    }
    this.dirtyAccts.length = 0;
    this.opSeq++;
    for (const s of this.touchedSyms) {
      const b = depthLevels(s, s.touchedBids, s.bids);
      const a = depthLevels(s, s.touchedAsks, s.asks);
      s.touchedBids.length = 0;
      s.touchedAsks.length = 0;
      s.touchedAny = false;
      s.updateId++;
      this.emitMarket({ type: 'depthUpdate', symbol: s.name, E: now, U: s.updateId, u: s.updateId, b, a });
    }
    this.touchedSyms.length = 0;
  }

  /**
   * Delivers the order's executionReport to the buffer and every listener, each in its form: both
   * forms are built before any listener runs (a listener may call back into the engine).
   */
  protected report(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null = null, r: RejectReasonName = 'NONE'): void {
    if (!this.ev) return;
    const wire = this.wev ? executionReport(o, x, this.now, fill, r) : null;
    // The reused object only outside another report's delivery (whose listeners may still read it).
    const scaled = !this.sev ? null : this.tev && this.reporting === 0 && r === 'NONE' ? this.reuseReport(o, x, fill) : scaledExecutionReport(o, x, this.now, fill, r);
    if (this.bufferOn && wire !== null) this.buffer.push(wire);
    // Not decremented when a listener throws: the engine then keeps building new reports (safe).
    this.reporting++;
    for (const l of this.listeners) {
      // null only for a listener subscribed during this delivery, after the report was built.
      if (l.scaled) {
        if (scaled === null) continue;
        // A listener that keeps reports, subscribed during this delivery, is handed the reused
        // object: it is then that listener's, never written again (a new one is made next time).
        if (!l.transient && scaled === this.flyReport) this.flyReport = null;
        l.fn(scaled);
      } else if (wire !== null) l.fn(wire);
    }
    this.reporting--;
  }

  /** The order's scaled report in the reused object (every scaled listener takes transient reports). */
  protected reuseReport(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null): ScaledExecutionReport {
    const r = this.flyReport;
    if (r === null) return (this.flyReport = scaledExecutionReport(o, x, this.now, fill));
    return writeScaledExecutionReport(r, o, x, this.now, fill);
  }

  protected recordPublic(s: Sym, id: number, price: number, qty: number, buyer: number, seller: number, isBuyerMaker: boolean): void {
    const now = this.now;
    s.last = price;
    if (s.windowMs > 0) {
      s.hist.push({ t: now, p: price, q: qty });
      const from = now - s.windowMs;
      while (s.histStart < s.hist.length && s.hist[s.histStart]!.t <= from) s.histStart++;
      if (s.histStart > 4096 && s.histStart * 2 > s.hist.length) {
        s.hist.splice(0, s.histStart);
        s.histStart = 0;
      }
    }
    // Once the ring is full its oldest slot is rewritten in place: no allocation per trade.
    let t = s.recent[s.recentNext];
    if (t === undefined) s.recent[s.recentNext] = t = { id, price, qty, buyer, seller, isBuyerMaker, time: now };
    else {
      t.id = id;
      t.price = price;
      t.qty = qty;
      t.buyer = buyer;
      t.seller = seller;
      t.isBuyerMaker = isBuyerMaker;
      t.time = now;
    }
    s.recentNext = (s.recentNext + 1) % RECENT_TRADES;
    if (this.mev) this.emitMarket(this.tradeEvent(s, t));
  }

  protected tradeEvent(s: Sym, t: PubTrade): TradeEvent {
    return { type: 'trade', symbol: s.name, id: t.id, price: fmt(t.price, s.pd), qty: fmt(t.qty, s.qd), buyerOrderId: String(t.buyer), sellerOrderId: String(t.seller), isBuyerMaker: t.isBuyerMaker, time: t.time };
  }
}

/** Asset order of an account position's balances. */
function byAsset(x: { a: string }, y: { a: string }): number {
  return x.a < y.a ? -1 : x.a > y.a ? 1 : 0;
}

/**
 * A depth diff's side: the touched prices best first, each with its absolute visible quantity (0: gone).
 * Sorted in place by insertion: prices arrive in the replayed diff's order, which is already best
 * first, so this is linear in the usual case (and cheaper than a sort call for a few dozen levels).
 */
function depthLevels(s: Sym, touched: number[], book: BookSide): [string, string][] {
  const n = touched.length;
  const out: [string, string][] = [];
  const desc = book.isBid;
  for (let i = 1; i < n; i++) {
    const p = touched[i]!;
    let j = i - 1;
    while (j >= 0 && (desc ? touched[j]! < p : touched[j]! > p)) {
      touched[j + 1] = touched[j]!;
      j--;
    }
    touched[j + 1] = p;
  }
  // Equal prices (a level emptied and reopened within the operation) are adjacent now.
  for (let i = 0; i < n; i++) {
    const p = touched[i]!;
    if (i > 0 && p === touched[i - 1]) continue;
    out.push([fmt(p, s.pd), fmt(book.totalOf(p), s.qd)]);
  }
  return out;
}
