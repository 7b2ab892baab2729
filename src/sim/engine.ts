/**
 * The matching engine: per-symbol books with price-time priority, accounts with free/locked
 * balances, every order rule of the spec. Pure: no timers, no I/O, no randomness, time passed in.
 *
 * Hot-path arithmetic is on scaled integers (see scaled.ts); balances are bigints at a per-asset
 * scale wide enough for exact notionals and commissions. The rules and the replay queue model are
 * written down in src/sim/README.md.
 */
import { Decimal } from '../core/decimal.js';
import type { ExpiryReasonName, OrderTypeName, StpModeName } from '../core/enums.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { FlatDepthLevels, ScaledLevels } from '../core/scaledLevels.js';
import type { AccountTrade, Balance, BookLevel, OrderBookSnapshot } from '../core/types.js';
import { CHANGED, type BookSide, type Level } from './book.js';
import { OrderColumns } from './columns.js';
import { DraftBuf, reject, validateNew, type AvgPrice, type Draft, type EntryContext } from './entry.js';
import type { EngineEvent, EngineListener, ExecutionReportEvent, NonReportEvent, ScaledEngineListener, ScaledExecutionReport, ScaledSubscribeOptions, SubscribeOptions, TradeEvent, WireSubscribeOptions } from './events.js';
import { floorDiv, fmt, fmtBig, mul3, mul3n, mulBig, rescale, toScaled } from './scaled.js';
import { Acct, Ord, OrderList, Sym, dec, idOfGeneratedClientId, p10, scaleExact, scaleExactBig, type Bal, type PubTrade } from './state.js';
import type {
  Accepted,
  BestBidAsk,
  CancelRequest,
  CancelResult,
  EngineConfig,
  ExternalDepth,
  ExternalTrade,
  NewOrderRequest,
  OcoRequest,
  OcoResult,
  OrderListView,
  OrderQuery,
  PlaceResult,
  SimOrder,
  TradeQuery,
} from './types.js';
import { executionReport, orderView, scaledExecutionReport, tradeView, writeScaledExecutionReport, type FillInfo } from './views.js';

/** 2^53: below it a double holds every integer exactly. */
const TWO53 = 9007199254740992;
const MAX_SAFE_N = BigInt(Number.MAX_SAFE_INTEGER);


/**
 * A subscribed listener: `market` false for one that wants account events only, `positions` false
 * for one that wants no account positions, `scaled` for one that takes scaled executionReports.
 */
type Listener =
  | { readonly scaled: false; readonly fn: EngineListener; readonly market: boolean; readonly positions: boolean; readonly transient: false }
  | { readonly scaled: true; readonly fn: ScaledEngineListener; readonly market: boolean; readonly positions: boolean; readonly transient: boolean };

/** How many public trades recentTrades can return. */
const RECENT_TRADES = 1000;

/** An accepted order whose full view is built only when read. */
class AcceptedOrder implements Accepted {
  readonly ok = true;
  constructor(private readonly o: Ord) {}
  get orderId(): string {
    return this.o.idStr;
  }
  get clientId(): string {
    return this.o.clientId;
  }
  get status(): Accepted['status'] {
    return this.o.status;
  }
  get order(): SimOrder {
    return orderView(this.o);
  }
}

/** The matching engine. See src/sim/README.md for the rules and the replay queue model. */
export class MatchingEngine {
  private readonly syms = new Map<string, Sym>();
  private readonly accts = new Map<string, Acct>();
  /** What `sym` and `acct` found last (both maps are fixed at construction). */
  private lastSym: Sym | null = null;
  private lastAcct: Acct | null = null;
  /** The account `acct` found before `lastAcct` (two accounts trading with each other alternate). */
  private prevAcct: Acct | null = null;
  /**
   * The id index: orders by id − cols.first (undefined once the history bound dropped one), and
   * with it the columns. Invariants: cols.first + orders.length === nextOrderId; every slot below
   * `held` is undefined (its order was dropped); `held` is the slot of the oldest order still held
   * (open or in history), or orders.length. Once the dead prefix below `held` is at least half
   * the index (and 1024 slots), both drop it (`dropDeadPrefix`), so with a finite historyLimit
   * they span the ids from the oldest held order on, not every id ever issued.
   */
  private orders: (Ord | undefined)[] = [];
  private held = 0;
  /** Lock and cumulative-quote number parts of the orders of the id index (columns.ts). */
  private readonly cols: OrderColumns;
  private readonly lists = new Map<number, OrderList>();
  private readonly assetScale = new Map<string, number>();
  private readonly exchange: ExchangeFilters;
  private readonly rateScale: number;
  private nextOrderId: number;
  private nextTradeId: number;
  private nextListId: number;
  private readonly bufferOn: boolean;
  private buffer: EngineEvent[] = [];
  /** Listeners in subscription order. */
  private readonly listeners: Listener[] = [];
  /** True when account events are built at all (a buffer or any listener wants them). */
  private ev: boolean;
  /** True when wire executionReports are built: a buffer or a listener without `reports: 'scaled'`. */
  private wev: boolean;
  /** True when scaled executionReports are built: a listener with `reports: 'scaled'`. */
  private sev = false;
  /** True when every scaled listener takes transient reports (the report object may be reused). */
  private tev = false;
  /** The reused scaled report (transientReports), made at the first report. */
  private flyReport: ScaledExecutionReport | null = null;
  /** Reports being delivered (more than one: a listener called back into the engine). */
  private reporting = 0;
  /** True when market-data events (trade, depthUpdate, referencePrice) are built: a buffer or a listener that wants them. */
  private mev: boolean;
  /** True when outboundAccountPosition events are built: a buffer or a listener that wants them. */
  private pev: boolean;
  private readonly touchedSyms: Sym[] = [];
  /** Sequence number of the operation whose depth diff is being collected (Level.mark). */
  private opSeq = 0;
  private readonly dirtyAccts: Acct[] = [];
  /** Time of the operation in progress. */
  private now = 0;
  private readonly ctx: EntryContext;
  /** placeOrder's draft, reused: it is fully read before the call can emit (and so re-enter). */
  private readonly draft = new DraftBuf();

  constructor(config: EngineConfig) {
    this.exchange = config.exchangeFilters ?? {};
    this.nextOrderId = config.firstOrderId ?? 1;
    this.cols = new OrderColumns(this.nextOrderId);
    this.nextTradeId = config.firstTradeId ?? 1;
    // Trade ids are numbers here (exact below 2^53, which counting from a safe start never leaves in
    // practice); the public views spell them as strings (core/tradeId.ts).
    if (!Number.isSafeInteger(this.nextTradeId) || this.nextTradeId < 0) throw new RangeError(`firstTradeId ${this.nextTradeId} must be a non-negative safe integer`);
    this.nextListId = config.firstOrderListId ?? 1;
    this.bufferOn = config.bufferEvents !== false;
    this.ev = this.bufferOn;
    this.wev = this.bufferOn;
    this.mev = this.bufferOn;
    this.pev = this.bufferOn;
    const historyLimit = config.historyLimit ?? Infinity;
    if (!(historyLimit === Infinity || (Number.isSafeInteger(historyLimit) && historyLimit >= 0))) {
      throw new RangeError(`historyLimit ${historyLimit} must be a non-negative integer or Infinity`);
    }
    this.rateScale = Math.max(0, ...config.accounts.flatMap((a) => [a.makerCommission.decimalPlaces(), a.takerCommission.decimalPlaces()]));
    const rd = this.rateScale;
    const need = (asset: string, scale: number): void => {
      this.assetScale.set(asset, Math.max(this.assetScale.get(asset) ?? 0, scale));
    };
    for (const sc of config.symbols) {
      const s = new Sym(sc.info, sc.priceRange, this.cols, { price: sc.priceDecimals, quantity: sc.quantityDecimals });
      if (this.syms.has(s.name)) throw new RangeError(`symbol ${s.name} is configured twice`);
      s.updateId = (config.firstUpdateId ?? 1) - 1;
      this.syms.set(s.name, s);
      need(s.base, s.qd + rd);
      need(s.quote, s.pd + s.qd + rd);
      if (sc.lastPrice !== undefined) s.last = scaleExact(sc.lastPrice, s.pd, `${s.name} lastPrice`);
      if (sc.referencePrice) this.setRef(s, sc.referencePrice);
    }
    for (const a of config.accounts) {
      for (const [asset, v] of Object.entries(a.balances ?? {})) need(asset, Math.max(v.decimalPlaces(), this.assetScale.has(asset) ? 0 : 8));
    }
    for (const s of this.syms.values()) {
      const bs = this.assetScale.get(s.base)!;
      const qs = this.assetScale.get(s.quote)!;
      s.baseF = p10(bs - s.qd);
      s.quoteF = p10(qs - s.pd - s.qd);
      s.feeBaseF = p10(bs - s.qd - rd);
      s.feeQuoteF = p10(qs - s.pd - s.qd - rd);
      s.baseFn = Number(s.baseF);
      s.quoteFn = Number(s.quoteF);
      s.feeBaseFn = Number(s.feeBaseF);
      s.feeQuoteFn = Number(s.feeQuoteF);
    }
    for (const a of config.accounts) {
      if (this.accts.has(a.id)) throw new RangeError(`account ${a.id} is configured twice`);
      const acct = new Acct(a.id, a.tradeGroupId, scaleExact(a.makerCommission, rd, 'makerCommission'), scaleExact(a.takerCommission, rd, 'takerCommission'), a.makerCommission, a.takerCommission, a.canTrade !== false, historyLimit);
      for (const [asset, v] of Object.entries(a.balances ?? {})) {
        if (v.isNegative()) throw new RangeError(`account ${a.id} balance ${asset} ${v.toFixed()} is negative`);
        acct.b(asset).free = scaleExactBig(v, this.assetScale.get(asset)!, `account ${a.id} balance ${asset}`);
      }
      this.accts.set(a.id, acct);
    }
    this.ctx = { exchange: this.exchange, avg: (s, mins) => this.avg(s, mins) };
  }

  // ---------------------------------------------------------------- events

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
  private emit(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) l.fn(e);
  }

  /** Delivers a market-data event to the buffer and the listeners that want market data. */
  private emitMarket(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) if (l.market) l.fn(e);
  }

  /** Delivers an account position to the buffer and the listeners that want them. */
  private emitPosition(e: NonReportEvent): void {
    if (this.bufferOn) this.buffer.push(e);
    for (const l of this.listeners) if (l.positions) l.fn(e);
  }

  /**
   * Records a level the current operation changed, for its depth diff. A level is listed once per
   * operation (its `mark`); a price can still appear twice when its level emptied and a new one
   * opened there, which depthLevels drops after sorting.
   */
  private touch(s: Sym, isBid: boolean, lv: Level): void {
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
  private touchPrice(s: Sym, isBid: boolean, price: number): void {
    if (!this.mev) return;
    if (!s.touchedAny) {
      s.touchedAny = true;
      this.touchedSyms.push(s);
    }
    (isBid ? s.touchedBids : s.touchedAsks).push(price);
  }

  private dirty(a: Acct, asset: string): void {
    a.lastUpdate = this.now;
    if (!this.pev) return;
    if (a.dirty.size === 0) this.dirtyAccts.push(a);
    a.dirty.add(asset);
  }

  /** Ends an operation: account positions for changed balances, then one depth diff per changed symbol. */
  private end(): void {
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
  private report(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null = null): void {
    if (!this.ev) return;
    const wire = this.wev ? executionReport(o, x, this.now, fill) : null;
    // The reused object only outside another report's delivery (whose listeners may still read it).
    const scaled = !this.sev ? null : this.tev && this.reporting === 0 ? this.reuseReport(o, x, fill) : scaledExecutionReport(o, x, this.now, fill);
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
  private reuseReport(o: Ord, x: ExecutionReportEvent['x'], fill: FillInfo | null): ScaledExecutionReport {
    const r = this.flyReport;
    if (r === null) return (this.flyReport = scaledExecutionReport(o, x, this.now, fill));
    return writeScaledExecutionReport(r, o, x, this.now, fill);
  }

  // ---------------------------------------------------------------- helpers

  private scaleOf(asset: string): number {
    return this.assetScale.get(asset) ?? 8;
  }

  /** The symbol by name; the last one found is kept, so a run of orders on one symbol does one compare instead of a map lookup. */
  private sym(name: string): Sym | undefined {
    const last = this.lastSym;
    if (last !== null && last.name === name) return last;
    const s = this.syms.get(name);
    if (s !== undefined) this.lastSym = s;
    return s;
  }

  /**
   * The account by id, remembering the last two found (a backtest or a single client sends from one
   * account; a market maker and a taker, or a buyer and a seller, alternate between two): a hit is
   * one or two compares instead of a map lookup.
   */
  private acct(id: string): Acct | undefined {
    const last = this.lastAcct;
    if (last !== null && last.id === id) return last;
    const prev = this.prevAcct;
    if (prev !== null && prev.id === id) {
      this.prevAcct = last;
      this.lastAcct = prev;
      return prev;
    }
    const a = this.accts.get(id);
    if (a !== undefined) {
      this.prevAcct = last;
      this.lastAcct = a;
    }
    return a;
  }

  private setRef(s: Sym, price: Decimal | null): void {
    s.ref = price;
    const r = s.priceRange;
    // The PRICE_RANGE rule applies to symbol type 1 only and needs a reference price.
    if (price === null || r === undefined || s.info.type !== 1) {
      s.range = null;
      return;
    }
    const scale = new Decimal(10).pow(s.pd);
    const hi = (m: Decimal | undefined): number => (m === undefined ? Infinity : price.mul(m).mul(scale).floor().toNumber());
    const lo = (m: Decimal | undefined): number => (m === undefined ? -Infinity : price.mul(m).mul(scale).ceil().toNumber());
    s.range = { bidMax: hi(r.bidLimitMultUp), bidMin: lo(r.bidLimitMultDown), askMax: hi(r.askLimitMultUp), askMin: lo(r.askLimitMultDown) };
  }

  /** Average price at price scale as an exact fraction over `mins` minutes (0: last price). */
  private avg(s: Sym, mins: number): AvgPrice | null {
    if (mins > 0) {
      const from = this.now - mins * 60_000;
      let num = 0n;
      let den = 0n;
      const h = s.hist;
      for (let i = h.length - 1; i >= s.histStart; i--) {
        const t = h[i]!;
        if (t.t <= from) break;
        num += mulBig(t.p, t.q);
        den += BigInt(t.q);
      }
      if (den > 0n) return { num, den };
    }
    return s.last >= 0 ? { num: BigInt(s.last), den: 1n } : null;
  }

  private recordPublic(s: Sym, id: number, price: number, qty: number, buyer: number, seller: number, isBuyerMaker: boolean): void {
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

  private tradeEvent(s: Sym, t: PubTrade): TradeEvent {
    return { type: 'trade', symbol: s.name, id: t.id, price: fmt(t.price, s.pd), qty: fmt(t.qty, s.qd), buyerOrderId: String(t.buyer), sellerOrderId: String(t.seller), isBuyerMaker: t.isBuyerMaker, time: t.time };
  }

  private lockFunds(o: Ord, amount: bigint): void {
    const s = o.sym;
    const b = o.lockBal;
    b.free -= amount;
    b.locked += amount;
    o.lock += amount;
    this.dirty(o.acct, o.isBuy ? s.quote : s.base);
  }

  /** lockFunds for an amount that is a safe integer (number-only updates, see amount.ts). */
  private lockFundsNum(o: Ord, amount: number): void {
    const b = o.lockBal;
    b.addFree(-amount);
    b.addLocked(amount);
    o.addLock(amount);
    this.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  /** Returns all of an order's remaining lock to free balance. */
  private unlockAll(o: Ord): void {
    const n = o.lockNum;
    const b = o.lockBal;
    if (n === 0) return;
    if (n > 0) {
      b.addLocked(-n);
      b.addFree(n);
    } else {
      const lock = o.lock;
      if (lock === 0n) return;
      b.locked -= lock;
      b.free += lock;
    }
    o.lock = 0n;
    this.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  /** The lock `qty` units of this order hold (0 for budget-limited market buys, which release at the end). */
  private lockFor(o: Ord, qty: number): bigint {
    if (!o.isBuy) return mul3(qty, 1, o.sym.baseFn, o.sym.baseF);
    return o.lockPrice >= 0 ? mul3(o.lockPrice, qty, o.sym.quoteFn, o.sym.quoteF) : 0n;
  }

  /** Moves the lock of `qty` units back to free (self-trade prevention). */
  private unlockQty(o: Ord, qty: number): void {
    const amt = this.lockFor(o, qty);
    if (amt === 0n) return;
    const b = o.lockBal;
    b.locked -= amt;
    b.free += amt;
    o.lock -= amt;
    this.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  private count(o: Ord, delta: 1 | -1): void {
    const c = o.counts;
    c.all += delta;
    o.acct.totalOpen += delta;
    if (o.isAlgo) {
      c.algo += delta;
      o.acct.totalAlgo += delta;
    }
    if (o.icebergQty > 0) c.iceberg += delta;
    o.counted = delta === 1;
  }

  /** Bookkeeping when an order reaches a final status. */
  private closed(o: Ord): void {
    if (o.counted) this.count(o, -1);
    o.acct.removeOpen(o);
    this.unlockAll(o);
    if (o.list !== null && !o.list.done) this.listLegClosed(o);
    this.ended(o);
  }

  /** An order reached a final status: the history may now drop its oldest ended order. */
  private ended(o: Ord): void {
    const outId = o.hist.orderEnded(o.id);
    if (outId < 0) return;
    const slot = outId - this.cols.first;
    const out = this.orders[slot]!;
    out.evicted = true;
    out.keepAmounts(this.cols);
    this.orders[slot] = undefined;
    const cid = out.givenClientId;
    if (cid !== null && out.acct.byClient.get(cid) === out) out.acct.byClient.delete(cid);
    const list = out.list;
    if (list !== null && list.limitLeg.evicted && list.stopLeg.evicted) this.lists.delete(list.id);
    if (slot === this.held) this.dropDeadPrefix();
  }

  /** Advances `held` past dropped orders; drops the dead prefix from the id index and the columns once it is half of them. */
  private dropDeadPrefix(): void {
    const a = this.orders;
    let h = this.held;
    while (h < a.length && a[h] === undefined) h++;
    this.held = h;
    if (h < 1024 || h * 2 < a.length) return;
    this.cols.dropPrefix(h, a.length);
    this.orders = a.slice(h);
    this.held = 0;
  }

  /** Takes an order out of the book or the stop list. */
  private detach(o: Ord): void {
    if (o.level !== null) {
      const side = o.sym.own(o.isBuy);
      this.touch(o.sym, o.isBuy, o.level);
      side.remove(o);
    } else if (!o.working) {
      const i = o.sym.stops.indexOf(o);
      if (i >= 0) o.sym.stops.splice(i, 1);
    }
  }

  private expire(o: Ord, reason: ExpiryReasonName): void {
    if (!o.isOpen) return;
    this.detach(o);
    o.status = 'EXPIRED';
    o.expiryReason = reason;
    o.updateTime = this.now;
    this.report(o, 'EXPIRED');
    this.closed(o);
  }

  private cancelOne(o: Ord): void {
    this.detach(o);
    o.status = 'CANCELED';
    o.updateTime = this.now;
    this.report(o, 'CANCELED');
    this.closed(o);
  }

  // ---------------------------------------------------------------- placing

  private newOrder(acct: Acct, s: Sym, d: Draft, clientId: string | undefined, now: number): Ord {
    const id = this.nextOrderId++;
    this.cols.ensure(id);
    const o = Ord.create(id, clientId ?? null, acct.pos(s), d.isBuy, d.type, d.tif, d.price, d.stop, d.qty, d.quoteQty, d.iceberg, d.stp, now);
    this.orders.push(o);
    o.hist.orders.push(id);
    if (clientId !== undefined) acct.byClient.set(clientId, o);
    acct.addOpen(o);
    this.count(o, 1);
    return o;
  }

  /** Places an order; rejected requests change nothing and emit nothing. */
  placeOrder(req: NewOrderRequest, now: number): PlaceResult {
    this.now = now;
    const acct = this.acct(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    const s = this.sym(req.symbol);
    if (s === undefined) return reject('UNKNOWN_SYMBOL', `symbol ${req.symbol} is unknown`);
    const d0 = validateNew(this.ctx, s, acct, req, 1, this.draft);
    if (!('isBuy' in d0)) return d0;
    let d = d0;
    const opp = s.opp(d.isBuy);
    // Stop orders: refuse a stop price the last price has already reached (rule 5 decides the direction).
    if (d.stop > 0 && s.last >= 0 && stopReached(d.type, d.isBuy, d.stop, s.last)) {
      return reject('INVALID_PARAMETER', `stopPrice ${fmt(d.stop, s.pd)} would trigger immediately: last price is ${fmt(s.last, s.pd)}`);
    }
    // The lock as a safe integer when it is one (lockNum >= 0), else as a bigint in `lock`.
    let lock = 0n;
    let lockNum = -1;
    if (d.type === 'MARKET') {
      if (opp.best() === undefined) return reject('NO_MARKET_LIQUIDITY', `no ${d.isBuy ? 'asks' : 'bids'} on ${s.name} for a MARKET order`);
      if (d.isBuy) {
        // A quoteOrderQty buy locks exactly what its chosen quantity costs on this book, like a buy by quantity.
        let cost: bigint;
        if (d.quoteQty > 0n) {
          const pick = this.qtyForQuote(s, d.quoteQty, acct.bal.get(s.quote)?.free ?? 0n);
          if (pick === undefined) return reject('LOT_SIZE', `quoteOrderQty ${fmtBig(d.quoteQty, s.pd + s.qd)} buys less than the minimum quantity on the current book`);
          d = { ...d, qty: pick.qty };
          cost = pick.cost;
        } else cost = this.costOf(s, d.qty, false);
        lockNum = cost <= MAX_SAFE_N ? mul3n(Number(cost), 1, s.quoteFn) : -1;
        if (lockNum < 0) lock = cost * s.quoteF;
      } else lockNum = mul3n(d.qty, 1, s.baseFn);
    } else {
      if ((d.type === 'LIMIT_MAKER' || d.tif === 'GTX') && d.stop === 0) {
        const best = opp.best();
        if (best !== undefined && opp.crosses(best.price, d.price)) {
          return d.type === 'LIMIT_MAKER'
            ? reject('LIMIT_MAKER_WOULD_TAKE', `LIMIT_MAKER price ${fmt(d.price, s.pd)} would trade immediately against ${fmt(best.price, s.pd)}`)
            : reject('GTX_WOULD_TAKE', `GTX price ${fmt(d.price, s.pd)} would trade immediately against ${fmt(best.price, s.pd)}`);
        }
      }
      lockNum = d.isBuy ? mul3n(d.price > 0 ? d.price : d.stop, d.qty, s.quoteFn) : mul3n(d.qty, 1, s.baseFn);
    }
    if (lockNum < 0 && d.type !== 'MARKET') lock = d.isBuy ? mul3(d.price > 0 ? d.price : d.stop, d.qty, s.quoteFn, s.quoteF) : mul3(d.qty, 1, s.baseFn, s.baseF);
    else if (lockNum < 0 && !d.isBuy) lock = BigInt(d.qty) * s.baseF;
    const asset = d.isBuy ? s.quote : s.base;
    const pos = acct.posIfAny(s);
    const bal = pos === undefined ? acct.bal.get(asset) : d.isBuy ? pos.quoteBal : pos.baseBal;
    if (lockNum >= 0 ? (bal === undefined ? lockNum > 0 : bal.freeBelow(lockNum)) : (bal?.free ?? 0n) < lock) {
      const need = lockNum >= 0 ? BigInt(lockNum) : lock;
      return reject('INSUFFICIENT_BALANCE', `${asset} free ${fmtBig(bal?.free ?? 0n, this.scaleOf(asset))} is below the ${fmtBig(need, this.scaleOf(asset))} this order needs`);
    }
    const o = this.newOrder(acct, s, d, req.clientId, now);
    o.lockPrice = d.isBuy ? (d.type === 'MARKET' ? -1 : d.price > 0 ? d.price : d.stop) : 0;
    // A plain limit order's lock is a function of its remaining quantity (Ord.deriveLock).
    if (lockNum >= 0 && d.stop === 0 && (d.type === 'LIMIT' || d.type === 'LIMIT_MAKER')) o.deriveLock();
    if (lockNum >= 0) this.lockFundsNum(o, lockNum);
    else this.lockFunds(o, lock);
    if (d.stop > 0) {
      o.working = false;
      s.stops.push(o);
      this.report(o, 'NEW');
    } else {
      this.report(o, 'NEW');
      this.execute(o);
    }
    this.checkStops(s);
    this.end();
    return new AcceptedOrder(o);
  }

  /**
   * The quantity a quoteOrderQty market buy takes and its exact cost on the current book (spec rule 4:
   * the LOT_SIZE/MARKET_LOT_SIZE quantity whose notional is closest to the budget), or undefined when
   * the budget buys less than the minimum quantity (refused as LOT_SIZE: the smallest valid quantity
   * would spend more than asked with nothing closer below it). Candidates: `down`, the largest valid
   * quantity that costs at most `budget` within PRICE_RANGE, and `up`, one step more (the coarser step
   * when both lot filters have one), when it is valid for both filters and the in-range book has it.
   * `up` wins only when strictly closer (a tie spends less) and when `free` (the quote balance, at
   * asset scale) pays its cost; otherwise `down`, which costs at most the budget.
   */
  private qtyForQuote(s: Sym, budget: bigint, free: bigint): { qty: number; cost: bigint } | undefined {
    let qty = 0;
    let left = budget;
    for (const lv of s.asks.bestFirst()) {
      if (s.range !== null && this.outOfRange(s, true, lv.price)) break;
      const avail = lv.total;
      const afford = Number(left / BigInt(lv.price));
      const take = Math.min(avail, afford);
      qty += take;
      left -= mulBig(lv.price, take);
      if (take < avail) break;
    }
    let step = 1;
    for (const lot of [s.lot, s.mlot]) {
      if (lot === undefined) continue;
      if (lot.max > 0 && qty > lot.max) qty = lot.max;
      if (qty < lot.min) return undefined;
      if (lot.step > 0) {
        qty -= (qty - lot.min) % lot.step;
        if (lot.step > step) step = lot.step;
      }
    }
    const down = this.costOf(s, qty, true);
    const up = qty + step;
    if (!lotsAllow(s, up)) return { qty, cost: down };
    const upCost = this.costOf(s, up, true);
    const upGap = upCost > budget ? upCost - budget : budget - upCost;
    if (upCost >= 0n && upGap < budget - down && upCost * s.quoteF <= free) return { qty: up, cost: upCost };
    return { qty, cost: down };
  }

  /**
   * Notional cost of buying `qty` on the current book. `inRange` false: of what is available of it,
   * at any price; true: -1 unless all of it is available within PRICE_RANGE.
   */
  private costOf(s: Sym, qty: number, inRange: boolean): bigint {
    let left = qty;
    // Summed as a double while the exact sum stays below 2^53 (rounding is monotonic, so a computed
    // value below 2^53 means the exact one is too); the bigint part takes whatever does not fit.
    let small = 0;
    let big = 0n;
    const asks = s.asks;
    for (let i = asks.hi - 1; i >= asks.lo && left > 0; i--) {
      const price = asks.px[i]!;
      if (inRange && s.range !== null && this.outOfRange(s, true, price)) break;
      const take = Math.min(left, asks.totalAt(i));
      const c = price * take;
      if (c < TWO53 && small + c < TWO53) small += c;
      else big += mulBig(price, take);
      left -= take;
    }
    if (inRange && left > 0) return -1n;
    return BigInt(small) + big;
  }

  /** Runs a working order: FOK check, taking, then rest, expire or done. */
  private execute(o: Ord): void {
    if (o.tif === 'FOK' && !this.fokFillable(o)) {
      this.expire(o, 'TIME_IN_FORCE');
      return;
    }
    this.take(o, o.isMarketType ? 0 : o.price);
    this.finish(o);
  }

  /** After taking: rest a GTC remainder, expire an IOC/FOK/market remainder. */
  private finish(o: Ord): void {
    if (!o.isOpen) return;
    if (o.rem === 0) return;
    if (o.isMarketType || o.tif === 'IOC' || o.tif === 'FOK') {
      this.expire(o, 'TIME_IN_FORCE');
      return;
    }
    const s = o.sym;
    const side = s.own(o.isBuy);
    o.visible = o.icebergQty > 0 ? Math.min(o.icebergQty, o.rem) : o.rem;
    const lv = side.level(o.price);
    side.append(lv, o);
    this.touch(s, o.isBuy, lv);
  }

  /** True when a FOK order can fill completely, counting what self-trade prevention would skip or stop at. */
  private fokFillable(o: Ord): boolean {
    const s = o.sym;
    let need = o.rem;
    const opp = s.opp(o.isBuy);
    for (const lv of opp.bestFirst()) {
      if (o.isBuy ? lv.price > o.price : lv.price < o.price) return false;
      if (s.range !== null && this.outOfRange(s, o.isBuy, lv.price)) return false;
      let counted = 0;
      for (let m = lv.head as Ord | null; m !== null; m = m.next as Ord | null) {
        const extAhead = m.ahead - counted;
        if (extAhead > 0) {
          need -= Math.min(need, extAhead);
          counted += extAhead;
          if (need === 0) return true;
        }
        if (this.isSelfTrade(o, m)) {
          if (this.effectiveStp(o, m) === 'EXPIRE_MAKER') continue;
          return false;
        }
        need -= Math.min(need, m.rem);
        if (need === 0) return true;
      }
      need -= Math.min(need, lv.ext - counted);
      if (need === 0) return true;
    }
    return false;
  }

  private outOfRange(s: Sym, isBuy: boolean, p: number): boolean {
    const r = s.range!;
    return isBuy ? p > r.bidMax || p < r.bidMin : p > r.askMax || p < r.askMin;
  }

  // ---------------------------------------------------------------- matching

  /** Runs `o` as a taker against the opposite side down to `limit` (0: no limit). */
  private take(o: Ord, limit: number): void {
    const s = o.sym;
    const isBuy = o.isBuy;
    const opp = s.opp(isBuy);
    const budget = isBuy && o.lockPrice < 0;
    while (o.isOpen) {
      const rem = o.rem;
      if (rem <= 0) return;
      // The best price first (a ladder slot), the Level (a map lookup) only when the order trades:
      // most limit orders rest without crossing.
      const p = opp.bestPrice();
      if (p < 0) return;
      if (limit > 0 && (isBuy ? p > limit : p < limit)) return;
      const lv = opp.best()!;
      if (s.range !== null && this.outOfRange(s, isBuy, p)) {
        this.expire(o, 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED');
        return;
      }
      let cap = rem;
      if (budget) {
        // What the remaining lock buys at p: exact floor division, on numbers when they are safe integers.
        const lockNum = o.lockNum;
        const unit = p * s.quoteFn;
        let afford = lockNum >= 0 && unit < TWO53 ? floorDiv(lockNum, unit) : Number(o.lock / (BigInt(p) * s.quoteF));
        // A quoteOrderQty buy rounds down to the step only when its lock cannot pay the whole remainder
        // here: its lock is exactly the walk's cost, which affords exactly a remainder that replayed
        // levels finer than the step left off the step grid. A buy by quantity rounds first, as it
        // always did (the pinned replay hashes record it); it can stop short on such levels.
        const step = s.lot?.step ?? 0;
        if (step > 0 && (afford < cap || o.quoteQty === 0n)) afford -= afford % step;
        if (afford < cap) cap = afford;
        if (cap <= 0) return;
      }
      if (!this.takeLevel(o, opp, lv, cap)) return;
      if (budget && cap < rem && o.isOpen && o.rem > 0 && opp.best() === lv) return;
    }
  }

  /** Trades `o` against one level up to `cap`. Returns false when the taker stopped (expired). */
  private takeLevel(o: Ord, side: BookSide, lv: Level, cap: number): boolean {
    let consumed = 0;
    let m = lv.head as Ord | null;
    let alive = true;
    const price = lv.price;
    while (cap > 0 && m !== null) {
      const extAhead = m.ahead - consumed;
      if (extAhead > 0) {
        const q = Math.min(cap, extAhead);
        this.tradeExternal(o, price, q);
        consumed += q;
        cap -= q;
        if (cap === 0) break;
      }
      let next = m.next as Ord | null;
      if (this.isSelfTrade(o, m)) {
        this.prevent(o, m, lv);
        if (!o.isOpen || o.rem === 0) {
          alive = false;
          break;
        }
        cap = Math.min(cap, o.rem);
        m = next;
        continue;
      }
      const q = Math.min(cap, m.visible);
      this.trade(o, m, q, price);
      cap -= q;
      if (m.visible === 0) {
        if (m.isOpen && m.rem > 0) {
          // Iceberg: a fresh slice goes to the back of the queue, behind everything at the level now.
          side.requeue(m, Math.min(m.icebergQty, m.rem));
          if (next === null) next = m;
        } else {
          side.unlink(m);
        }
      }
      m = next;
      if (!o.isOpen) {
        alive = false;
        break;
      }
    }
    if (cap > 0 && alive) {
      const q = Math.min(cap, lv.ext - consumed);
      if (q > 0) {
        this.tradeExternal(o, price, q);
        consumed += q;
      }
    }
    if (consumed > 0) {
      lv.ext -= consumed;
      for (let r = lv.head; r !== null; r = r.next) r.ahead = r.ahead > consumed ? r.ahead - consumed : 0;
    }
    this.touch(o.sym, side.isBid, lv);
    side.dropIfEmpty(lv);
    return alive && o.isOpen;
  }

  /** A self-trade: same account, or both orders TRANSFER in accounts of one trade group. */
  private isSelfTrade(t: Ord, m: Ord): boolean {
    if (t.acct === m.acct) return true;
    return t.stp === 'TRANSFER' && m.stp === 'TRANSFER' && t.acct.group !== undefined && t.acct.group === m.acct.group;
  }

  /** The spec's effective-mode table. */
  private effectiveStp(t: Ord, m: Ord): StpModeName {
    if (t.stp !== 'TRANSFER') return t.stp;
    if (m.stp !== 'TRANSFER' || t.acct === m.acct) return 'DECREMENT';
    return 'TRANSFER';
  }

  /** Applies self-trade prevention between taker `t` and maker `m`. */
  private prevent(t: Ord, m: Ord, lv: Level): void {
    const mode = this.effectiveStp(t, m);
    switch (mode) {
      case 'EXPIRE_TAKER':
        this.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'EXPIRE_MAKER':
        this.expire(m, 'SELF_TRADE_PREVENTION');
        return;
      case 'EXPIRE_BOTH':
        this.expire(m, 'SELF_TRADE_PREVENTION');
        this.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'NONE':
        // Not accepted for new orders; treated as the taker expiring so no self-trade can happen.
        this.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'DECREMENT':
      case 'TRANSFER': {
        const pq = Math.min(t.rem, m.rem);
        if (mode === 'TRANSFER') this.transfer(t, m, pq, lv.price);
        else {
          this.unlockQty(t, pq);
          this.unlockQty(m, pq);
        }
        t.prevented += pq;
        m.prevented += pq;
        t.updateTime = m.updateTime = this.now;
        if (m.rem === 0) this.expire(m, 'SELF_TRADE_PREVENTION');
        else if (m.visible > m.rem) {
          lv.own -= m.visible - m.rem;
          m.visible = m.rem;
          this.touch(m.sym, m.isBuy, lv);
        }
        if (t.rem === 0) this.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      }
      default: {
        const never: never = mode;
        throw new Error(`unknown STP mode ${String(never)}`);
      }
    }
  }

  /** TRANSFER: the prevented quantity and its notional at the maker's price move between the two accounts. */
  private transfer(t: Ord, m: Ord, pq: number, price: number): void {
    const s = t.sym;
    const buyer = t.isBuy ? t : m;
    const seller = t.isBuy ? m : t;
    const base = BigInt(pq) * s.baseF;
    const quote = mulBig(price, pq) * s.quoteF;
    // Seller: the base leaves its lock and lands in the buyer's free balance.
    seller.lock -= base;
    seller.acct.b(s.base).locked -= base;
    buyer.acct.b(s.base).free += base;
    // Buyer: its lock for pq is released, the notional leaves free and lands in the seller's free balance.
    const qb = buyer.acct.b(s.quote);
    if (buyer.lockPrice >= 0) {
      const rel = mulBig(buyer.lockPrice, pq) * s.quoteF;
      buyer.lock -= rel;
      qb.locked -= rel;
      qb.free += rel - quote;
    } else {
      buyer.lock -= quote;
      qb.locked -= quote;
    }
    seller.acct.b(s.quote).free += quote;
    for (const a of [buyer.acct, seller.acct]) {
      this.dirty(a, s.base);
      this.dirty(a, s.quote);
    }
  }

  /** A trade between taker `t` and maker `m` at the maker's price. */
  private trade(t: Ord, m: Ord, q: number, price: number): void {
    const s = t.sym;
    const id = this.nextTradeId++;
    m.visible -= q;
    m.level!.own -= q;
    this.fill(t, q, price, false, id);
    this.fill(m, q, price, true, id);
    const buyer = t.isBuy ? t : m;
    const seller = t.isBuy ? m : t;
    this.recordPublic(s, id, price, q, buyer.id, seller.id, !t.isBuy);
  }

  /** A taker trade against replayed external liquidity. */
  private tradeExternal(t: Ord, price: number, q: number): void {
    const id = this.nextTradeId++;
    this.fill(t, q, price, false, id);
    this.recordPublic(t.sym, id, price, q, t.isBuy ? t.id : 0, t.isBuy ? 0 : t.id, !t.isBuy);
  }

  /** One side of a fill: balances, commission (in the asset received), status, own trade record, report. */
  private fill(o: Ord, q: number, price: number, isMaker: boolean, tradeId: number): void {
    const s = o.sym;
    const a = o.acct;
    const rate = isMaker ? a.maker : a.taker;
    o.filled += q;
    o.updateTime = this.now;
    // Every amount as a safe integer when it is one: then balances, lock and cumulative quote take
    // number-only updates (amount.ts); otherwise the same rule in bigint (fillBig).
    const pq = price * q;
    let fee = -1;
    if (pq < TWO53) {
      if (o.isBuy) {
        const spend = mul3n(price, q, s.quoteFn);
        const rel = o.lockPrice < 0 || o.lockPrice === price ? spend : mul3n(o.lockPrice, q, s.quoteFn);
        const got = mul3n(q, 1, s.baseFn);
        fee = rate === 0 ? 0 : mul3n(q, rate, s.feeBaseFn);
        if (spend >= 0 && rel >= 0 && got >= 0 && fee >= 0) {
          const qb = o.quoteBal;
          o.addLock(-rel);
          qb.addLocked(-rel);
          if (rel !== spend) qb.addFree(rel - spend);
          o.pos.baseBal.addFree(got - fee);
        } else fee = -1;
      } else {
        const rel = mul3n(q, 1, s.baseFn);
        const gain = mul3n(price, q, s.quoteFn);
        fee = rate === 0 ? 0 : mul3n(pq, rate, s.feeQuoteFn);
        if (rel >= 0 && gain >= 0 && fee >= 0) {
          o.addLock(-rel);
          o.pos.baseBal.addLocked(-rel);
          o.quoteBal.addFree(gain - fee);
        } else fee = -1;
      }
    }
    let feeBig = 0n;
    if (fee >= 0) o.addQuote(price, q, pq, 0n);
    else {
      const quote = mulBig(price, q);
      o.addQuote(price, q, pq < TWO53 ? pq : -1, quote);
      feeBig = this.fillBig(o, q, price, quote, rate);
    }
    const feeAsset = o.isBuy ? s.base : s.quote;
    this.dirty(a, s.base);
    this.dirty(a, s.quote);
    o.status = o.rem === 0 ? 'FILLED' : 'PARTIALLY_FILLED';
    if (fee >= 0) o.hist.trades.push(tradeId, o.id, price, q, pq, fee, o.isBuy, isMaker, this.now);
    else o.hist.trades.push(tradeId, o.id, price, q, mulBig(price, q), feeBig, o.isBuy, isMaker, this.now);
    const filled = o.status === 'FILLED';
    if (filled) {
      if (o.counted) this.count(o, -1);
      a.removeOpen(o);
      // A filled budget-limited buy may keep an unspent part of its lock.
      this.unlockAll(o);
    }
    if (this.ev) {
      const feeScale = this.scaleOf(feeAsset);
      // fee >= 0: every amount of the fill, price x q included, is a safe integer (no bigint made).
      this.report(o, 'TRADE', fee >= 0 ? { qty: q, price, quote: pq, fee, feeAsset, feeScale, tradeId, isMaker } : { qty: q, price, quote: mulBig(price, q), fee: feeBig, feeAsset, feeScale, tradeId, isMaker });
    }
    if (o.list !== null && !o.list.done) this.listLegTraded(o);
    if (filled) this.ended(o);
  }

  /** fill's balance and lock updates in bigint, for amounts beyond 2^53; returns the commission. */
  private fillBig(o: Ord, q: number, price: number, quote: bigint, rate: number): bigint {
    const s = o.sym;
    const qb = o.quoteBal;
    const bb = o.baseBal;
    if (o.isBuy) {
      const spend = mul3(price, q, s.quoteFn, s.quoteF);
      if (o.lockPrice >= 0) {
        const rel = o.lockPrice === price ? spend : mul3(o.lockPrice, q, s.quoteFn, s.quoteF);
        o.subLock(rel);
        qb.locked -= rel;
        if (rel !== spend) qb.free += rel - spend;
      } else {
        o.subLock(spend);
        qb.locked -= spend;
      }
      const fee = rate === 0 ? 0n : mul3(q, rate, s.feeBaseFn, s.feeBaseF);
      bb.free += mul3(q, 1, s.baseFn, s.baseF) - fee;
      return fee;
    }
    const rel = mul3(q, 1, s.baseFn, s.baseF);
    o.subLock(rel);
    bb.locked -= rel;
    // price * q is exact when below 2^53, so one double product replaces two bigint multiplies.
    const pq = price * q;
    const fee = rate === 0 ? 0n : pq < TWO53 ? mul3(pq, rate, s.feeQuoteFn, s.feeQuoteF) : quote * BigInt(rate) * s.feeQuoteF;
    qb.free += mul3(price, q, s.quoteFn, s.quoteF) - fee;
    return fee;
  }

  // ---------------------------------------------------------------- stops and OCO

  /** Triggers every stop order the last price has reached, in id order, until none is left. */
  private checkStops(s: Sym): void {
    while (s.stops.length > 0 && s.last >= 0) {
      let hit: Ord | undefined;
      for (const o of s.stops) {
        if (stopReached(o.type, o.isBuy, o.stopPrice, s.last)) {
          hit = o;
          break;
        }
      }
      if (hit === undefined) return;
      s.stops.splice(s.stops.indexOf(hit), 1);
      this.trigger(hit);
    }
  }

  private trigger(o: Ord): void {
    const s = o.sym;
    o.working = true;
    o.updateTime = this.now;
    if (o.list !== null && !o.list.done) {
      // The stop leg starts working: the limit leg ends and hands its lock over.
      const list = o.list;
      const other = list.limitLeg;
      const moved = other.lock;
      other.lock = 0n;
      o.lock += moved;
      list.done = true;
      this.expire(other, 'OCO_OTHER_LEG');
      this.finishList(list);
      o.lockPrice = o.isBuy ? o.price : 0;
      const need = this.lockFor(o, o.rem);
      if (o.lock > need) {
        const extra = o.lock - need;
        o.lock = need;
        const b = o.acct.b(o.isBuy ? s.quote : s.base);
        b.locked -= extra;
        b.free += extra;
        this.dirty(o.acct, o.isBuy ? s.quote : s.base);
      }
    }
    this.report(o, 'NEW');
    if (o.isMarketType) {
      if (s.opp(o.isBuy).best() === undefined) {
        this.expire(o, 'TIME_IN_FORCE');
        return;
      }
      if (o.isBuy) {
        // A triggered market buy may spend what it reserved plus the free quote balance.
        const b = o.acct.b(s.quote);
        o.lockPrice = -1;
        this.lockFunds(o, b.free);
      }
    }
    this.execute(o);
  }

  private listLegTraded(o: Ord): void {
    const list = o.list!;
    if (o === list.limitLeg) {
      list.done = true;
      this.expire(list.stopLeg, 'OCO_OTHER_LEG');
      // The limit leg now needs only its own price's lock.
      if (o.isBuy && o.lockPrice !== o.price) {
        const need = mulBig(o.price, o.rem) * o.sym.quoteF;
        const extra = o.lock - need;
        o.lockPrice = o.price;
        if (extra > 0n) {
          o.lock = need;
          const b = o.acct.b(o.sym.quote);
          b.locked -= extra;
          b.free += extra;
          this.dirty(o.acct, o.sym.quote);
        }
      }
      this.finishList(list);
    }
  }

  /** A leg ended without the list being done: the other leg ends too. */
  private listLegClosed(o: Ord): void {
    const list = o.list!;
    const other = o === list.limitLeg ? list.stopLeg : list.limitLeg;
    list.done = true;
    if (other.isOpen) {
      if (o.status === 'CANCELED') this.cancelOne(other);
      else this.expire(other, 'OCO_OTHER_LEG');
    }
    this.finishList(list);
  }

  /** Marks a list done (callers set `done` before ending the other leg) and reports ALL_DONE. */
  private finishList(list: OrderList): void {
    list.done = true;
    list.updateTime = this.now;
    this.listStatus(list);
  }

  private listStatus(list: OrderList): void {
    if (!this.ev) return;
    const legs = [list.limitLeg, list.stopLeg];
    this.emit({
      type: 'listStatus',
      accountId: list.acct.id,
      e: 'listStatus',
      E: this.now,
      s: list.symbol,
      g: list.id,
      c: 'OCO',
      l: list.done ? 'ALL_DONE' : 'EXEC_STARTED',
      L: list.done ? 'ALL_DONE' : 'EXECUTING',
      r: 'NONE',
      C: list.clientId,
      T: this.now,
      O: legs.map((o) => ({ s: list.symbol, i: o.idStr, c: o.clientId })),
    });
  }

  /** Places an OCO list. */
  placeOco(req: OcoRequest, now: number): OcoResult {
    this.now = now;
    const acct = this.acct(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    const s = this.sym(req.symbol);
    if (s === undefined) return reject('UNKNOWN_SYMBOL', `symbol ${req.symbol} is unknown`);
    if (!s.info.ocoEnable) return reject('OCO_DISABLED', `OCO is disabled on ${s.name}`);
    const base = { accountId: req.accountId, symbol: req.symbol, side: req.side, quantity: req.quantity, stpMode: req.stpMode };
    const lim = validateNew(this.ctx, s, acct, { ...base, type: 'LIMIT_MAKER', price: req.price, clientId: req.limitClientId }, 2);
    if (!('isBuy' in lim)) return lim;
    const stp = validateNew(this.ctx, s, acct, { ...base, type: 'STOP_LOSS_LIMIT', price: req.stopLimitPrice, stopPrice: req.stopPrice, timeInForce: 'GTC', clientId: req.stopClientId }, 2);
    if (!('isBuy' in stp)) return stp;
    if (s.last < 0) return reject('OCO_PRICE_RELATIONSHIP', `no last price on ${s.name} to check the OCO prices against`);
    const L = fmt(s.last, s.pd);
    if (lim.isBuy ? !(lim.price < s.last && s.last < stp.stop) : !(lim.price > s.last && s.last > stp.stop)) {
      const rule = lim.isBuy ? 'limit price < last price < stop price' : 'limit price > last price > stop price';
      return reject('OCO_PRICE_RELATIONSHIP', `${req.side} OCO needs ${rule}: price ${fmt(lim.price, s.pd)}, last ${L}, stopPrice ${fmt(stp.stop, s.pd)}`);
    }
    const best = s.opp(lim.isBuy).best();
    if (best !== undefined && s.opp(lim.isBuy).crosses(best.price, lim.price)) {
      return reject('LIMIT_MAKER_WOULD_TAKE', `OCO limit price ${fmt(lim.price, s.pd)} would trade immediately against ${fmt(best.price, s.pd)}`);
    }
    const lockPrice = lim.isBuy ? Math.max(lim.price, stp.price) : 0;
    const lock = lim.isBuy ? mulBig(lockPrice, lim.qty) * s.quoteF : BigInt(lim.qty) * s.baseF;
    const asset = lim.isBuy ? s.quote : s.base;
    const free = acct.bal.get(asset)?.free ?? 0n;
    if (free < lock) return reject('INSUFFICIENT_BALANCE', `${asset} free ${fmtBig(free, this.scaleOf(asset))} is below the ${fmtBig(lock, this.scaleOf(asset))} this OCO needs`);
    const limitLeg = this.newOrder(acct, s, lim, req.limitClientId, now);
    const stopLeg = this.newOrder(acct, s, stp, req.stopClientId, now);
    const list = new OrderList(this.nextListId++, req.listClientId ?? `sim-list-${this.nextListId - 1}`, s.name, acct, now, limitLeg, stopLeg);
    this.lists.set(list.id, list);
    limitLeg.list = list;
    stopLeg.list = list;
    limitLeg.lockPrice = lockPrice;
    stopLeg.lockPrice = lim.isBuy ? stp.price : 0;
    this.lockFunds(limitLeg, lock);
    stopLeg.working = false;
    s.stops.push(stopLeg);
    this.listStatus(list);
    this.report(limitLeg, 'NEW');
    this.report(stopLeg, 'NEW');
    this.finish(limitLeg);
    this.end();
    return { ok: true, list: this.listView(list) };
  }

  private listView(list: OrderList): OrderListView {
    return {
      orderListId: list.id,
      listClientId: list.clientId,
      symbol: list.symbol,
      contingencyType: 'OCO',
      listStatusType: list.done ? 'ALL_DONE' : 'EXEC_STARTED',
      listOrderStatus: list.done ? 'ALL_DONE' : 'EXECUTING',
      createTime: list.createTime,
      updateTime: list.updateTime,
      orders: [orderView(list.limitLeg), orderView(list.stopLeg)],
    };
  }

  /** The OCO list with this id. */
  getOrderList(accountId: string, orderListId: number): OrderListView | undefined {
    const l = this.lists.get(orderListId);
    return l !== undefined && l.acct.id === accountId ? this.listView(l) : undefined;
  }

  // ---------------------------------------------------------------- cancel and queries

  private find(acct: Acct, symbol: string | undefined, orderId: string | number | undefined, clientId: string | undefined): Ord | undefined {
    let o: Ord | undefined;
    if (orderId !== undefined) {
      const id = typeof orderId === 'number' ? orderId : Number(orderId);
      o = this.orderById(id);
      if (o !== undefined && o.acct !== acct) o = undefined;
    } else if (clientId !== undefined) {
      // clientIds are not unique (the spec says the server does not check): the most recent order wins.
      o = acct.byClient.get(clientId);
      const gen = this.orderById(idOfGeneratedClientId(clientId));
      if (gen !== undefined && gen.acct === acct && gen.givenClientId === null && (o === undefined || gen.id > o.id)) o = gen;
    }
    if (o !== undefined && symbol !== undefined && o.sym.name !== symbol) return undefined;
    return o;
  }

  /** An open order by id (open orders are never dropped from the index): for the accounts' open sets. */
  private readonly openById = (id: number): Ord => this.orders[id - this.cols.first]!;

  private orderById(id: number): Ord | undefined {
    // An id below the index (dropped with its prefix) is unknown, as a dropped order's slot is.
    const i = id - this.cols.first;
    return Number.isSafeInteger(id) && i >= 0 ? this.orders[i] : undefined;
  }

  /** Cancels one order (an OCO leg cancels its whole list). */
  cancelOrder(req: CancelRequest, now: number): CancelResult {
    this.now = now;
    const acct = this.acct(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    if (req.orderId === undefined && req.clientId === undefined) return reject('MISSING_PARAMETER', 'orderId or clientId is required');
    const o = this.find(acct, req.symbol, req.orderId, req.clientId);
    if (o === undefined) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is unknown`);
    if (!o.isOpen) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is ${o.status}, not open`);
    this.cancelOne(o);
    this.end();
    return new AcceptedOrder(o);
  }

  /** Cancels every open order of the account (on one symbol, or all). Returns the canceled orders. */
  cancelAll(accountId: string, symbol: string | undefined, now: number): SimOrder[] {
    this.now = now;
    const acct = this.accts.get(accountId);
    if (acct === undefined) return [];
    const victims = acct.openList(this.openById).filter((o) => symbol === undefined || o.sym.name === symbol);
    const out: Ord[] = [];
    for (const o of victims) {
      if (!o.isOpen) continue;
      this.cancelOne(o);
      out.push(o);
    }
    for (const o of victims) if (o.status === 'CANCELED' && !out.includes(o)) out.push(o);
    this.end();
    return out.map(orderView);
  }

  /** One order by id or clientId. */
  getOrder(accountId: string, q: { orderId?: string | number; clientId?: string; symbol?: string }): SimOrder | undefined {
    const acct = this.accts.get(accountId);
    if (acct === undefined) return undefined;
    const o = this.find(acct, q.symbol, q.orderId, q.clientId);
    return o === undefined ? undefined : orderView(o);
  }

  /**
   * What the id index and the lock/cumulative-quote columns hold (memory: 8 bytes an index slot,
   * 16 a column slot): the lowest id they still have a slot for, the index's length and the
   * columns' capacity. For tests and monitoring of long runs.
   */
  orderSlots(): { readonly first: number; readonly index: number; readonly capacity: number } {
    return { first: this.cols.first, index: this.orders.length, capacity: this.cols.lock.length };
  }

  /** Open orders of an account, oldest first. */
  openOrders(accountId: string, symbol?: string): SimOrder[] {
    const acct = this.accts.get(accountId);
    if (acct === undefined) return [];
    return acct.openList(this.openById).filter((o) => symbol === undefined || o.sym.name === symbol).map(orderView);
  }

  /** Orders of an account on a symbol, oldest first, filtered as GET /open/v1/orders does. */
  allOrders(accountId: string, symbol: string, q: OrderQuery = {}): SimOrder[] {
    const ids = this.accts.get(accountId)?.hist.get(symbol)?.keptOrders() ?? [];
    // Kept ids are exactly the orders the id index still holds (both drop an order on eviction).
    const all: Ord[] = [];
    for (const id of ids) {
      const o = this.orders[id - this.cols.first];
      if (o !== undefined) all.push(o);
    }
    const which = q.which ?? 'all';
    let rows = all.filter(
      (o) =>
        (which === 'all' || (which === 'open') === o.isOpen) &&
        (q.side === undefined || (q.side === 'BUY') === o.isBuy) &&
        (q.startTime === undefined || o.createTime >= q.startTime) &&
        (q.endTime === undefined || o.createTime <= q.endTime),
    );
    rows = page(rows, (o) => o.id, q.fromId === undefined ? undefined : Number(q.fromId), q.direct, q.limit);
    return rows.map(orderView);
  }

  /** Own trades of an account on a symbol, oldest first. */
  accountTrades(accountId: string, symbol: string, q: TradeQuery = {}): AccountTrade[] {
    const s = this.sym(symbol);
    const all = this.accts.get(accountId)?.hist.get(symbol)?.keptTrades() ?? [];
    if (s === undefined) return [];
    const oid = q.orderId === undefined ? undefined : Number(q.orderId);
    let rows = all.filter(
      (t) => (oid === undefined || t.orderId === oid) && (q.startTime === undefined || t.time >= q.startTime) && (q.endTime === undefined || t.time <= q.endTime),
    );
    rows = page(rows, (t) => t.id, q.fromId, q.direct, q.limit);
    return rows.map((t) => tradeView(s, t, this.scaleOf(t.isBuyer ? s.base : s.quote)));
  }

  /** Balances of an account (every asset it ever held), sorted by asset. */
  balances(accountId: string): Balance[] {
    const acct = this.accts.get(accountId);
    if (acct === undefined) return [];
    return [...acct.bal.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([asset, b]) => ({ asset, free: dec(b.free, this.scaleOf(asset)), locked: dec(b.locked, this.scaleOf(asset)) }));
  }

  /** Commission rates and trading permission of an account (for the account endpoint). */
  accountInfo(accountId: string): { makerCommission: Decimal; takerCommission: Decimal; canTrade: boolean; tradeGroupId?: string } | undefined {
    const a = this.accts.get(accountId);
    return a === undefined ? undefined : { makerCommission: a.makerDec, takerCommission: a.takerDec, canTrade: a.canTrade, ...(a.group !== undefined ? { tradeGroupId: a.group } : {}) };
  }

  /** Account ids, in configuration order. */
  accountIds(): string[] {
    return [...this.accts.keys()];
  }

  /** Symbols, in configuration order. */
  symbolNames(): string[] {
    return [...this.syms.keys()];
  }

  /** Deposit (positive) or withdrawal (negative) of free balance; refused if it would go negative or has too many decimals. */
  adjustBalance(accountId: string, asset: string, delta: Decimal, now: number): { ok: true } | { ok: false; message: string } {
    this.now = now;
    const acct = this.accts.get(accountId);
    if (acct === undefined) return { ok: false, message: `account ${accountId} is unknown` };
    if (!this.assetScale.has(asset)) this.assetScale.set(asset, Math.max(8, delta.decimalPlaces()));
    const sc = this.scaleOf(asset);
    if (delta.decimalPlaces() > sc) return { ok: false, message: `amount ${delta.toFixed()} has more than ${sc} decimals for ${asset}` };
    const v = BigInt(delta.mul(new Decimal(10).pow(sc)).toFixed(0));
    const b: Bal = acct.b(asset);
    if (b.free + v < 0n) return { ok: false, message: `${asset} free ${fmtBig(b.free, sc)} is below the ${delta.neg().toFixed()} to withdraw` };
    b.free += v;
    this.dirty(acct, asset);
    this.end();
    return { ok: true };
  }

  /** Visible book (own + replayed liquidity), best first, at most `limit` levels a side (default 100). */
  depth(symbol: string, limit = 100): OrderBookSnapshot {
    const s = this.sym(symbol);
    if (s === undefined) return { lastUpdateId: 0, bids: [], asks: [] };
    const side = (b: BookSide): BookLevel[] => {
      const out: BookLevel[] = [];
      for (const lv of b.bestFirst()) {
        if (out.length >= limit) break;
        if (lv.total > 0) out.push({ price: dec(lv.price, s.pd), qty: dec(lv.total, s.qd) });
      }
      return out;
    };
    return { lastUpdateId: s.updateId, bids: side(s.bids), asks: side(s.asks) };
  }

  /** The current depth update id of a symbol (the last emitted diff's u). */
  lastUpdateId(symbol: string): number {
    return this.sym(symbol)?.updateId ?? 0;
  }

  /** Most recent public trades (own matches and replayed), oldest first. */
  recentTrades(symbol: string, limit = 500): TradeEvent[] {
    const s = this.sym(symbol);
    if (s === undefined) return [];
    const ordered = s.recent.length < RECENT_TRADES ? s.recent : [...s.recent.slice(s.recentNext), ...s.recent.slice(0, s.recentNext)];
    return ordered.slice(Math.max(0, ordered.length - limit)).map((t) => this.tradeEvent(s, t));
  }

  /** Best bid and ask. */
  bestBidAsk(symbol: string): BestBidAsk {
    const s = this.sym(symbol);
    const b = s?.bids.best();
    const a = s?.asks.best();
    const pd = s?.pd ?? 0;
    const qd = s?.qd ?? 0;
    return {
      bidPrice: b ? dec(b.price, pd) : null,
      bidQty: b ? dec(b.total, qd) : null,
      askPrice: a ? dec(a.price, pd) : null,
      askQty: a ? dec(a.total, qd) : null,
    };
  }

  /** Last trade price (null before any trade or seed). */
  lastPrice(symbol: string): Decimal | null {
    const s = this.sym(symbol);
    return s === undefined || s.last < 0 ? null : dec(s.last, s.pd);
  }

  /** Volume-weighted average trade price over the last `mins` minutes (0 or no trade in the window: last price). */
  averagePrice(symbol: string, mins: number, now: number): Decimal | null {
    const s = this.sym(symbol);
    if (s === undefined) return null;
    this.now = now;
    const a = this.avg(s, mins);
    return a === null ? null : new Decimal(a.num.toString()).div(a.den.toString()).div(new Decimal(10).pow(s.pd));
  }

  /** The reference price of the PRICE_RANGE rule (null when none). */
  referencePrice(symbol: string): Decimal | null {
    return this.sym(symbol)?.ref ?? null;
  }

  /** Sets or clears the PRICE_RANGE reference price. */
  setReferencePrice(symbol: string, price: Decimal | null, now: number): void {
    const s = this.sym(symbol);
    if (s === undefined) throw new RangeError(`symbol ${symbol} is unknown`);
    this.now = now;
    this.setRef(s, price);
    if (this.mev) this.emitMarket({ type: 'referencePrice', symbol, referencePrice: price === null ? null : price.toFixed(), time: now });
  }

  // ---------------------------------------------------------------- replayed liquidity

  /** Replaces the replayed liquidity with a snapshot (own orders stay, behind at most the new level quantity). */
  applyDepthSnapshot(symbol: string, snapshot: ExternalDepth, now: number): void {
    const s = this.needSym(symbol);
    this.now = now;
    for (const side of [s.bids, s.asks]) {
      for (const p of side.extPrices()) this.setExt(s, side, p, 0);
    }
    this.applyLevels(s, snapshot);
    this.end();
  }

  /**
   * applyDepthSnapshot for levels a replay holds as scaled integers (its local book, best first),
   * when every level fits the symbol's scales (at them, or at coarser ones and still a safe integer
   * there): same effect and events as applyDepthSnapshot with the same levels as decimal strings,
   * without writing and parsing a text per level. Returns false, having done nothing, when a level
   * does not fit (the caller then hands the strings, whose parse reports it as before).
   */
  applyDepthSnapshotScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): boolean {
    const s = this.needSym(symbol);
    if (!fitsScales(bids, s.pd, s.qd) || !fitsScales(asks, s.pd, s.qd)) return false;
    this.now = now;
    for (const side of [s.bids, s.asks]) {
      for (const p of side.extPrices()) this.setExt(s, side, p, 0);
    }
    this.applyScaledSide(s, bids, s.bids, s.asks);
    this.applyScaledSide(s, asks, s.asks, s.bids);
    this.uncross(s);
    this.end();
    return true;
  }

  /** Applies a replayed depth diff (absolute quantities; 0 removes the replayed part of a level). */
  applyDepthDiff(symbol: string, diff: ExternalDepth, now: number): void {
    const s = this.needSym(symbol);
    this.now = now;
    this.applyLevels(s, diff);
    this.end();
  }

  /**
   * applyDepthDiff for a diff whose sides a replay already parsed into scaled integers (core
   * ScaledLevels), so each wire level is parsed once for the local book and the engine. Same
   * effect and events as applyDepthDiff with the same levels as decimal strings. Values at other
   * scales than the symbol's are converted exactly; a level that does not fit the symbol's scales
   * throws the same RangeError, after the levels before it were applied, as the string path does.
   */
  applyDepthDiffScaled(symbol: string, bids: ScaledLevels, asks: ScaledLevels, now: number): void {
    const s = this.needSym(symbol);
    this.now = now;
    this.applyScaledSide(s, bids, s.bids, s.asks);
    this.applyScaledSide(s, asks, s.asks, s.bids);
    this.uncross(s);
    this.end();
  }

  /**
   * applyDepthDiffScaled for a binary recording's diff levels where its reader left them (both
   * sides in one buffer, see core/scaledLevels' FlatDepthLevels): same effect and events, without
   * reading them through ScaledLevels objects and array views.
   */
  applyDepthDiffFlat(symbol: string, f: FlatDepthLevels, now: number): void {
    const s = this.needSym(symbol);
    this.now = now;
    this.applyScaledRun(s, f.buf, f.bidPrices, f.buf, f.bidQtys, f.nBids, f.priceScale, f.qtyScale, s.bids, s.asks);
    this.applyScaledRun(s, f.buf, f.askPrices, f.buf, f.askQtys, f.nAsks, f.priceScale, f.qtyScale, s.asks, s.bids);
    this.uncross(s);
    this.end();
  }

  private needSym(symbol: string): Sym {
    const s = this.sym(symbol);
    if (s === undefined) throw new RangeError(`symbol ${symbol} is unknown`);
    return s;
  }

  private applyLevels(s: Sym, d: ExternalDepth): void {
    this.applySide(s, d.bids, s.bids, s.asks);
    this.applySide(s, d.asks, s.asks, s.bids);
    this.uncross(s);
  }

  private applySide(s: Sym, levels: ExternalDepth['bids'], side: BookSide, other: BookSide): void {
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i]!;
      const p = toScaled(l.price, s.pd);
      const q = toScaled(l.qty, s.qd);
      if (p < 0 || q < 0) throw levelMisfit(s, String(l.price), String(l.qty));
      this.applyLevel(s, side, other, p, q);
    }
  }

  /** applySide for levels already parsed to scaled integers, converted exactly to the symbol's scales. */
  private applyScaledSide(s: Sym, levels: ScaledLevels, side: BookSide, other: BookSide): void {
    this.applyScaledRun(s, levels.prices, 0, levels.qtys, 0, levels.n, levels.priceScale, levels.qtyScale, side, other);
  }

  /**
   * applyScaledSide for `n` levels with prices from `prices[pi]` and quantities from `qtys[qi]` (a
   * binary recording's level pool as its reader left it, or a ScaledLevels' arrays from 0).
   */
  private applyScaledRun(s: Sym, prices: Float64Array, pi: number, qtys: Float64Array, qi: number, count: number, priceScale: number, qtyScale: number, side: BookSide, other: BookSide): void {
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
        if (!this.mev) {
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
  private applyLevel(s: Sym, side: BookSide, other: BookSide, p: number, q: number, cleared = NaN): number {
    this.setExt(s, side, p, q);
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
  private dropStaleCrossing(s: Sym, other: BookSide, p: number): void {
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
        this.setExt(s, other, price, 0);
        const j = other.seek(price);
        i = (j >= 0 ? j : ~j) - 1;
      } else i--;
    }
  }

  /** Sets a level's replayed quantity; own orders keep their queue place but never wait behind more than is there. */
  private setExt(s: Sym, side: BookSide, p: number, q: number): void {
    const i = side.setPlain(p, q);
    if (i < 0) {
      if (i === CHANGED) this.touchPrice(s, side.isBid, p);
      return;
    }
    const lv = side.levels.get(p)!;
    if (lv.ext === q) return;
    if (q < lv.ext) for (let r = lv.head; r !== null; r = r.next) if (r.ahead > q) r.ahead = q;
    lv.ext = q;
    this.touch(s, side.isBid, lv);
    // A Level with no own orders goes back to a plain ladder slot (or away when q is 0).
    if (lv.head === null) side.demote(lv, i);
  }

  /**
   * Replayed liquidity that crosses own resting orders trades with them: the own order is the maker
   * (it rested first) at its own price, best own price first, oldest first; the replayed quantity it
   * used is taken off that replayed level until the replay sets the level again.
   */
  private uncross(s: Sym): void {
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
    this.checkStops(s);
  }

  /** The oldest own order of `ownLv` takes what it can of the replayed quantity at `extPrice`. */
  private fillFromExternal(s: Sym, ownSide: BookSide, ownLv: Level, extSide: BookSide, extPrice: number): void {
    const m = ownLv.head as Ord;
    const q = Math.min(m.visible, extSide.extAt(extSide.seek(extPrice)));
    this.makerFill(m, ownSide, ownLv, q);
    this.setExt(s, extSide, extPrice, extSide.extAt(extSide.seek(extPrice)) - q);
  }

  /** An own resting order filled as maker by replayed flow, at its own price. */
  private makerFill(m: Ord, side: BookSide, lv: Level, q: number): void {
    const id = this.nextTradeId++;
    m.visible -= q;
    lv.own -= q;
    this.touch(m.sym, side.isBid, lv);
    this.fill(m, q, lv.price, true, id);
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
   */
  applyTrade(symbol: string, trade: ExternalTrade, now: number): void {
    const s = this.needSym(symbol);
    this.now = now;
    const p = toScaled(trade.price, s.pd);
    const q = toScaled(trade.qty, s.qd);
    if (p <= 0 || q <= 0) throw new RangeError(`${s.name} replayed trade ${String(trade.price)} x ${String(trade.qty)} does not fit the symbol's scales`);
    this.replayTrade(s, p, q, trade.isBuyerMaker);
  }

  /**
   * applyTrade for a trade whose price and quantity are scaled integers already (`price` x
   * 10^-priceScale; a binary recording holds them so), converted exactly to the symbol's scales:
   * same effect and events as applyTrade with their decimal strings. Returns false, having done
   * nothing, when they do not fit the symbol's scales (the caller then hands the strings, whose
   * parse reports it as before). Why: the replay need not read the trade's strings at all (cache
   * misses on a pre-loaded recording).
   */
  applyTradeScaled(symbol: string, price: number, priceScale: number, qty: number, qtyScale: number, isBuyerMaker: boolean, now: number): boolean {
    const s = this.needSym(symbol);
    const p = rescale(price, priceScale, s.pd);
    const q = rescale(qty, qtyScale, s.qd);
    if (p <= 0 || q <= 0) return false;
    this.now = now;
    this.replayTrade(s, p, q, isBuyerMaker);
    return true;
  }

  /** A replayed trade at scaled price `p` and quantity `q` (both > 0, at the symbol's scales). */
  private replayTrade(s: Sym, p: number, qty: number, isBuyerMaker: boolean): void {
    let q = qty;
    this.recordPublic(s, this.nextTradeId++, p, q, 0, 0, isBuyerMaker);
    const side = isBuyerMaker ? s.bids : s.asks;
    while (q > 0) {
      const lv = firstOwn(side);
      if (lv === undefined || (side.isBid ? lv.price < p : lv.price > p)) break;
      q = this.fillLevelFromTrade(side, lv, q, lv.price !== p);
      if (lv.price === p) break;
    }
    this.checkStops(s);
    this.end();
  }

  /** Fills own orders of one level from a replayed trade; `better` skips the replayed queue ahead. Returns what is left of the trade. */
  private fillLevelFromTrade(side: BookSide, lv: Level, q: number, better: boolean): number {
    let used = 0;
    let m = lv.head as Ord | null;
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

/** Rule 5: stop-loss buy and take-profit sell trigger at or above the stop price; the others at or below. */
export function stopReached(type: OrderTypeName, isBuy: boolean, stop: number, last: number): boolean {
  const stopLoss = type === 'STOP_LOSS' || type === 'STOP_LOSS_LIMIT';
  const above = stopLoss ? isBuy : !isBuy;
  return above ? last >= stop : last <= stop;
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

/** How a cancel request named its order, for messages (built only when refusing). */
function cancelTarget(req: CancelRequest): string {
  return req.orderId !== undefined ? `orderId ${String(req.orderId)}` : `clientId ${String(req.clientId)}`;
}

function firstOwn(side: BookSide): Level | undefined {
  return side.firstOwn();
}

/** Pages rows by id: prev ascends from fromId, next descends from it; result oldest first. */
function page<T>(rows: T[], id: (t: T) => number, fromId: number | undefined, direct: 'prev' | 'next' | undefined, limit = 500): T[] {
  const lim = Math.max(1, Math.min(1000, limit));
  if (fromId === undefined) return rows.slice(Math.max(0, rows.length - lim));
  if (direct === 'next') {
    const sel = rows.filter((r) => id(r) <= fromId);
    return sel.slice(Math.max(0, sel.length - lim));
  }
  return rows.filter((r) => id(r) >= fromId).slice(0, lim);
}

/** True when `qty` keeps to LOT_SIZE and MARKET_LOT_SIZE (min, max, step counted from min). */
function lotsAllow(s: Sym, qty: number): boolean {
  for (const lot of [s.lot, s.mlot]) {
    if (lot === undefined) continue;
    if (qty < lot.min || (lot.max > 0 && qty > lot.max) || (lot.step > 0 && (qty - lot.min) % lot.step !== 0)) return false;
  }
  return true;
}
