/**
 * The engine's event sink: the parts tell it what happened (an order's report, a fill, a public
 * trade, a level or a balance that changed) and it builds only the events someone wants: the
 * buffer, and each listener by what it subscribed to (market data, account positions, wire or
 * scaled reports). Depth diffs and account positions are collected per operation and built at its
 * end.
 */
import type { RejectReasonName } from '../core/enums.js';
import type { BookSide, Level } from './book.js';
import type { EngineEvent, EngineListener, ExecutionReportEvent, NonReportEvent, ScaledEngineListener, ScaledExecutionReport, ScaledSubscribeOptions, SubscribeOptions, TradeEvent, WireSubscribeOptions } from './events.js';
import { fmt, mulBig } from './scaled.js';
import type { Acct, Ord, OrderList, PubTrade, Sym } from './state.js';
import { executionReport, type FillInfo, scaledExecutionReport, type Writable, writeScaledExecutionReport } from './views.js';
import type { EngineState } from './engineState.js';

/**
 * A subscribed listener: `market` false for one that wants account events only, `positions` false
 * for one that wants no account positions, `scaled` for one that takes scaled executionReports.
 */
type Listener =
  | { readonly scaled: false; readonly fn: EngineListener; readonly market: boolean; readonly positions: boolean; readonly transient: false }
  | { readonly scaled: true; readonly fn: ScaledEngineListener; readonly market: boolean; readonly positions: boolean; readonly transient: boolean };

/** Builds and delivers the engine's events. */
export class EventSink {
  private readonly buffered: boolean;
  private buffer: EngineEvent[] = [];
  /** Listeners in subscription order. */
  private readonly listeners: Listener[] = [];
  /** True when account events are built at all (a buffer or any listener wants them). */
  accountEvents: boolean;
  /** True when market-data events (trade, depthUpdate, referencePrice) are built: a buffer or a listener that wants them. */
  marketData: boolean;
  /** True when wire executionReports are built: a buffer or a listener without `reports: 'scaled'`. */
  private wireReports: boolean;
  /** True when scaled executionReports are built: a listener with `reports: 'scaled'`. */
  private scaledReports = false;
  /** True when every scaled listener takes transient reports (the report object may be reused). */
  private transientReports = false;
  /** True when outboundAccountPosition events are built: a buffer or a listener that wants them. */
  private positions: boolean;
  /** The reused scaled report (transientReports), made at the first report. */
  private reusedReport: ScaledExecutionReport | null = null;
  /** Reports being delivered (more than one: a listener called back into the engine). */
  private reporting = 0;
  /** Symbols whose levels the operation changed: the first `touchedSymCount` (see end). */
  private readonly touchedSyms: Sym[] = [];
  private touchedSymCount = 0;
  /** Sequence number of the operation whose depth diff is being collected (Level.mark). */
  private opSeq = 0;
  /** Accounts whose balances the operation changed: the first `dirtyAcctCount` (see end). */
  private readonly dirtyAccts: Acct[] = [];
  /** The fill reportFill hands to report, reused: report reads it before any listener runs. */
  private readonly fillInfo: Writable<FillInfo> = { qty: 0, price: 0, quote: 0, fee: 0, feeAsset: '', feeScale: 0, tradeId: 0, isMaker: false };
  private dirtyAcctCount = 0;

  constructor(
    private readonly state: EngineState,
    buffered: boolean,
  ) {
    this.buffered = buffered;
    this.accountEvents = buffered;
    this.wireReports = buffered;
    this.marketData = buffered;
    this.positions = buffered;
  }

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
  private wants(): void {
    this.accountEvents = this.buffered || this.listeners.length > 0;
    this.wireReports = this.buffered || this.listeners.some((l) => !l.scaled);
    this.scaledReports = this.listeners.some((l) => l.scaled);
    this.transientReports = this.scaledReports && this.listeners.every((l) => !l.scaled || l.transient);
    this.marketData = this.buffered || this.listeners.some((l) => l.market);
    this.positions = this.buffered || this.listeners.some((l) => l.positions);
  }

  /** Drains buffered events (empty when bufferEvents is false). */
  takeEvents(): EngineEvent[] {
    const out = this.buffer;
    this.buffer = [];
    return out;
  }

  /** Delivers an account event other than an executionReport to the buffer and every listener. */
  emit(e: NonReportEvent): void {
    if (this.buffered) this.buffer.push(e);
    for (const l of this.listeners) l.fn(e);
  }

  /** Delivers a market-data event to the buffer and the listeners that want market data. */
  emitMarket(e: NonReportEvent): void {
    if (this.buffered) this.buffer.push(e);
    for (const l of this.listeners) if (l.market) l.fn(e);
  }

  /** Delivers an account position to the buffer and the listeners that want them. */
  private emitPosition(e: NonReportEvent): void {
    if (this.buffered) this.buffer.push(e);
    for (const l of this.listeners) if (l.positions) l.fn(e);
  }

  /**
   * Records a level the current operation changed, for its depth diff. A level is listed once per
   * operation (its `mark`); a price can still appear twice when its level emptied and a new one
   * opened there, which depthLevels drops after sorting.
   */
  touch(s: Sym, isBid: boolean, lv: Level): void {
    if (!this.marketData || lv.mark === this.opSeq) return;
    lv.mark = this.opSeq;
    if (!s.touchedAny) {
      s.touchedAny = true;
      this.touchedSyms[this.touchedSymCount++] = s;
    }
    (isBid ? s.touchedBids : s.touchedAsks).push(lv.price);
  }

  /**
   * touch for a replayed-only price (a ladder slot without a Level, so no mark): the price may be
   * listed more than once in an operation, which depthLevels drops after sorting, as it does for a
   * level that emptied and reopened.
   */
  touchPrice(s: Sym, isBid: boolean, price: number): void {
    if (!this.marketData) return;
    if (!s.touchedAny) {
      s.touchedAny = true;
      this.touchedSyms[this.touchedSymCount++] = s;
    }
    (isBid ? s.touchedBids : s.touchedAsks).push(price);
  }

  /** Records that an account's balance of `asset` changed, for the operation's account position. */
  dirty(a: Acct, asset: string): void {
    a.lastUpdate = this.state.now;
    if (!this.positions) return;
    const d = a.dirty;
    const n = a.dirtyCount;
    if (n === 0) this.dirtyAccts[this.dirtyAcctCount++] = a;
    else for (let i = 0; i < n; i++) if (d[i] === asset) return;
    d[n] = asset;
    a.dirtyCount = n + 1;
  }

  /**
   * Ends an operation: account positions for changed balances, then one depth diff per changed
   * symbol. The per-operation lists are reused arrays with a count, not emptied by `length = 0`,
   * which V8 runs as a call into its runtime even on an empty array.
   */
  end(): void {
    if (!this.accountEvents) return;
    if (this.dirtyAcctCount > 0) this.endPositions();
    this.opSeq++;
    if (this.touchedSymCount > 0) this.endDepth();
  }

  /** One outboundAccountPosition per account whose balances the operation changed. */
  private endPositions(): void {
    const now = this.state.now;
    const accts = this.dirtyAccts;
    for (let k = 0; k < this.dirtyAcctCount; k++) {
      const a = accts[k]!;
      const B: { a: string; f: string; l: string }[] = [];
      const d = a.dirty;
      for (let i = 0; i < a.dirtyCount; i++) {
        const asset = d[i]!;
        const b = a.b(asset);
        const sc = this.state.scaleOf(asset);
        B.push({ a: asset, f: b.freeText(sc), l: b.lockedText(sc) });
      }
      if (B.length > 1) B.sort(byAsset);
      a.dirtyCount = 0;
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
    this.dirtyAcctCount = 0;
  }

  /** One depthUpdate per symbol whose levels the operation changed. */
  private endDepth(): void {
    const now = this.state.now;
    const syms = this.touchedSyms;
    for (let k = 0; k < this.touchedSymCount; k++) {
      const s = syms[k]!;
      const b = depthLevels(s, s.touchedBids, s.bids);
      const a = depthLevels(s, s.touchedAsks, s.asks);
      s.touchedBids.length = 0;
      s.touchedAsks.length = 0;
      s.touchedAny = false;
      s.updateId++;
      this.emitMarket({ type: 'depthUpdate', symbol: s.name, E: now, U: s.updateId, u: s.updateId, b, a });
    }
    this.touchedSymCount = 0;
  }

  /**
   * Delivers the order's executionReport to the buffer and every listener, each in its form: both
   * forms are built before any listener runs (a listener may call back into the engine).
   */
  report(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null = null, r: RejectReasonName = 'NONE'): void {
    if (!this.accountEvents) return;
    const wire = this.wireReports ? executionReport(o, x, this.state.now, fill, r) : null;
    // The reused object only outside another report's delivery (whose listeners may still read it).
    const scaled = !this.scaledReports ? null : this.transientReports && this.reporting === 0 && r === 'NONE' ? this.reuseReport(o, x, fill) : scaledExecutionReport(o, x, this.state.now, fill, r);
    if (this.buffered && wire !== null) this.buffer.push(wire);
    // Not decremented when a listener throws: the engine then keeps building new reports (safe).
    this.reporting++;
    for (const l of this.listeners) {
      // null only for a listener subscribed during this delivery, after the report was built.
      if (l.scaled) {
        if (scaled === null) continue;
        // A listener that keeps reports, subscribed during this delivery, is handed the reused
        // object: it is then that listener's, never written again (a new one is made next time).
        if (!l.transient && scaled === this.reusedReport) this.reusedReport = null;
        l.fn(scaled);
      } else if (wire !== null) l.fn(wire);
    }
    this.reporting--;
  }

  /** The order's scaled report in the reused object (every scaled listener takes transient reports). */
  private reuseReport(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null): ScaledExecutionReport {
    const r = this.reusedReport;
    if (r === null) return (this.reusedReport = scaledExecutionReport(o, x, this.state.now, fill));
    return writeScaledExecutionReport(r, o, x, this.state.now, fill);
  }

  /** A public trade on the symbol's tape (EngineState.recordPublic): its trade event. */
  trade(s: Sym, t: PubTrade): void {
    if (this.marketData) this.emitMarket(this.tradeEvent(s, t));
  }

  /** The fill's executionReport (TRADE); `fee` -1 when the amounts are bigints (`quote`, `feeBig`). */
  reportFill(o: Ord, q: number, price: number, pq: number, fee: number, feeBig: bigint, feeAsset: string, tradeId: number, isMaker: boolean): void {
    if (!this.accountEvents) return;
    const fill = this.fillInfo;
    fill.qty = q;
    fill.price = price;
    // fee >= 0: every amount of the fill, price x q included, is a safe integer (no bigint made).
    fill.quote = fee >= 0 ? pq : mulBig(price, q);
    fill.fee = fee >= 0 ? fee : feeBig;
    fill.feeAsset = feeAsset;
    fill.feeScale = this.state.scaleOf(feeAsset);
    fill.tradeId = tradeId;
    fill.isMaker = isMaker;
    this.report(o, 'TRADE', fill);
  }

  /** An OCO list's listStatus. */
  listStatus(list: OrderList): void {
    if (!this.accountEvents) return;
    const now = this.state.now;
    const legs = [list.limitLeg, list.stopLeg];
    this.emit({
      type: 'listStatus',
      accountId: list.acct.id,
      e: 'listStatus',
      E: now,
      s: list.symbol,
      g: list.id,
      c: 'OCO',
      l: list.done ? 'ALL_DONE' : 'EXEC_STARTED',
      L: list.done ? 'ALL_DONE' : 'EXECUTING',
      r: 'NONE',
      C: list.clientId,
      T: now,
      O: legs.map((o) => ({ s: list.symbol, i: o.idStr, c: o.clientId })),
    });
  }

  /** A new reference price of the PRICE_RANGE rule. */
  referencePrice(symbol: string, price: string | null, now: number): void {
    if (this.marketData) this.emitMarket({ type: 'referencePrice', symbol, referencePrice: price, time: now });
  }

  /** A public trade as a trade event. */
  tradeEvent(s: Sym, t: PubTrade): TradeEvent {
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
