/**
 * The engine's state and lookups: symbols, accounts, the order id index, the id counters and the
 * operation clock. Every part of the engine (events, ledger, matcher, stop orders, order entry,
 * queries, replayed liquidity) holds this one object; MatchingEngine (engine.ts) composes them.
 */
import { Decimal } from '../core/decimal.js';
import type { ExchangeFilters } from '../core/filters.js';
import { OrderColumns } from './columns.js';
import { type AvgPrice, DraftBuf, type EntryContext } from './entry.js';
import { mulBig } from './scaled.js';
import { Acct, idOfGeneratedClientId, type Ord, type OrderList, p10, type PubTrade, scaleExact, scaleExactBig, Sym } from './state.js';
import type { EngineConfig } from './types.js';

/** 2^53: below it a double holds every integer exactly. */
export const TWO53 = 9007199254740992;
export const MAX_SAFE_N = BigInt(Number.MAX_SAFE_INTEGER);

/** How many public trades recentTrades can return. */
export const RECENT_TRADES = 1000;

/** The engine's state and lookups, shared by its parts. */
export class EngineState {
  readonly symbols = new Map<string, Sym>();
  readonly accounts = new Map<string, Acct>();
  /** What `symbol` and `account` found last (both maps are fixed at construction). */
  lastSymbol: Sym | null = null;
  lastAccount: Acct | null = null;
  /** The account `account` found before `lastAccount` (two accounts trading with each other alternate). */
  previousAccount: Acct | null = null;
  /**
   * The id index: orders by id − columns.first (undefined once the history bound dropped one), and
   * with it the columns. Invariants: columns.first + orders.length === nextOrderId; every slot below
   * `held` is undefined (its order was dropped); `held` is the slot of the oldest order still held
   * (open or in history), or orders.length. Once the dead prefix below `held` is at least half
   * the index (and 1024 slots), both drop it (`dropDeadPrefix`), so with a finite historyLimit
   * they span the ids from the oldest held order on, not every id ever issued.
   */
  orders: (Ord | undefined)[] = [];
  held = 0;
  /** Lock and cumulative-quote number parts of the orders of the id index (columns.ts). */
  readonly columns: OrderColumns;
  readonly orderLists = new Map<number, OrderList>();
  readonly assetScales = new Map<string, number>();
  readonly exchange: ExchangeFilters;
  readonly rateScale: number;
  nextOrderId: number;
  nextTradeId: number;
  nextListId: number;
  /** Time of the operation in progress. */
  now = 0;
  /** What entry checks read of the engine: the exchange filters and average prices. */
  readonly entryContext: EntryContext;
  /** placeOrder's draft, reused: it is fully read before the call can emit (and so re-enter). */
  readonly draft = new DraftBuf();

  constructor(config: EngineConfig) {
    this.exchange = config.exchangeFilters ?? {};
    this.nextOrderId = config.firstOrderId ?? 1;
    this.columns = new OrderColumns(this.nextOrderId);
    this.nextTradeId = config.firstTradeId ?? 1;
    // Trade ids are numbers here (exact below 2^53, which counting from a safe start never leaves in
    // practice); the public views spell them as strings (core/tradeId.ts).
    if (!Number.isSafeInteger(this.nextTradeId) || this.nextTradeId < 0) throw new RangeError(`firstTradeId ${this.nextTradeId} must be a non-negative safe integer`);
    this.nextListId = config.firstOrderListId ?? 1;
    const historyLimit = config.historyLimit ?? Infinity;
    if (!(historyLimit === Infinity || (Number.isSafeInteger(historyLimit) && historyLimit >= 0))) {
      throw new RangeError(`historyLimit ${historyLimit} must be a non-negative integer or Infinity`);
    }
    this.rateScale = Math.max(0, ...config.accounts.flatMap((a) => [a.makerCommission.decimalPlaces(), a.takerCommission.decimalPlaces()]));
    const rd = this.rateScale;
    const need = (asset: string, scale: number): void => {
      this.assetScales.set(asset, Math.max(this.assetScales.get(asset) ?? 0, scale));
    };
    for (const sc of config.symbols) {
      const s = new Sym(sc.info, sc.priceRange, this.columns, { price: sc.priceDecimals, quantity: sc.quantityDecimals });
      if (this.symbols.has(s.name)) throw new RangeError(`symbol ${s.name} is configured twice`);
      s.updateId = (config.firstUpdateId ?? 1) - 1;
      this.symbols.set(s.name, s);
      need(s.base, s.qd + rd);
      need(s.quote, s.pd + s.qd + rd);
      if (sc.lastPrice !== undefined) s.last = scaleExact(sc.lastPrice, s.pd, `${s.name} lastPrice`);
      if (sc.referencePrice) this.setRef(s, sc.referencePrice);
    }
    for (const a of config.accounts) {
      for (const [asset, v] of Object.entries(a.balances ?? {})) need(asset, Math.max(v.decimalPlaces(), this.assetScales.has(asset) ? 0 : 8));
    }
    for (const s of this.symbols.values()) {
      const bs = this.assetScales.get(s.base)!;
      const qs = this.assetScales.get(s.quote)!;
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
      if (this.accounts.has(a.id)) throw new RangeError(`account ${a.id} is configured twice`);
      const acct = new Acct(a.id, a.tradeGroupId, scaleExact(a.makerCommission, rd, 'makerCommission'), scaleExact(a.takerCommission, rd, 'takerCommission'), a.makerCommission, a.takerCommission, a.canTrade !== false, historyLimit);
      for (const [asset, v] of Object.entries(a.balances ?? {})) {
        if (v.isNegative()) throw new RangeError(`account ${a.id} balance ${asset} ${v.toFixed()} is negative`);
        acct.b(asset).free = scaleExactBig(v, this.assetScales.get(asset)!, `account ${a.id} balance ${asset}`);
      }
      this.accounts.set(a.id, acct);
    }
    this.entryContext = { exchange: this.exchange, avg: (s, mins) => this.avg(s, mins) };
  }

  scaleOf(asset: string): number {
    return this.assetScales.get(asset) ?? 8;
  }

  /** The symbol by name; the last one found is kept, so a run of orders on one symbol does one compare instead of a map lookup. */
  symbol(name: string): Sym | undefined {
    const last = this.lastSymbol;
    if (last !== null && last.name === name) return last;
    const s = this.symbols.get(name);
    if (s !== undefined) this.lastSymbol = s;
    return s;
  }

  /**
   * The account by id, remembering the last two found (a backtest or a single client sends from one
   * account; a market maker and a taker, or a buyer and a seller, alternate between two): a hit is
   * one or two compares instead of a map lookup.
   */
  account(id: string): Acct | undefined {
    const last = this.lastAccount;
    if (last !== null && last.id === id) return last;
    const prev = this.previousAccount;
    if (prev !== null && prev.id === id) {
      this.previousAccount = last;
      this.lastAccount = prev;
      return prev;
    }
    const a = this.accounts.get(id);
    if (a !== undefined) {
      this.previousAccount = last;
      this.lastAccount = a;
    }
    return a;
  }

  needSymbol(symbol: string): Sym {
    const s = this.symbol(symbol);
    if (s === undefined) throw new RangeError(`symbol ${symbol} is unknown`);
    return s;
  }

  setRef(s: Sym, price: Decimal | null): void {
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
  avg(s: Sym, mins: number): AvgPrice | null {
    if (mins > 0) {
      const from = this.now - mins * 60_000;
      let num = 0n;
      let den = 0n;
      const h = s.hist;
      for (let i = h.end - 1; i >= h.start; i--) {
        if (h.timeAt(i) <= from) break;
        const q = h.qtyAt(i);
        num += mulBig(h.priceAt(i), q);
        den += BigInt(q);
      }
      if (den > 0n) return { num, den };
    }
    return s.last >= 0 ? { num: BigInt(s.last), den: 1n } : null;
  }

  /** An open order by id (open orders are never dropped from the index): for the accounts' open sets. */
  readonly openById = (id: number): Ord => this.orders[id - this.columns.first]!;

  orderById(id: number): Ord | undefined {
    // An id below the index (dropped with its prefix) is unknown, as a dropped order's slot is.
    const i = id - this.columns.first;
    return Number.isSafeInteger(id) && i >= 0 ? this.orders[i] : undefined;
  }

  /** The account's order named by id or clientId (on `symbol` when given), or undefined. */
  find(acct: Acct, symbol: string | undefined, orderId: string | number | undefined, clientId: string | undefined): Ord | undefined {
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

  /** Records a public trade on the symbol's tape (last price, average-price window, recent ring) and returns its slot. */
  recordPublic(s: Sym, id: number, price: number, qty: number, buyer: number, seller: number, isBuyerMaker: boolean): PubTrade {
    const now = this.now;
    s.last = price;
    if (s.windowMs > 0) {
      s.hist.push(now, price, qty);
      s.hist.dropThrough(now - s.windowMs);
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
    return t;
  }
}
