/**
 * Queries and views: orders, own trades, balances, the visible book, recent trades, prices;
 * deposits and the reference price.
 */
import { Decimal } from '../core/decimal.js';
import type { OrderStatusName } from '../core/enums.js';
import type { AccountTrade, Balance, BookLevel, OrderBookSnapshot } from '../core/types.js';
import type { BookSide } from './book.js';
import type { TradeEvent } from './events.js';
import { fmtBig } from './scaled.js';
import { type Bal, dec, type Ord } from './state.js';
import type { BestBidAsk, OrderQuery, SimOrder, TradeQuery } from './types.js';
import { orderView, tradeView } from './views.js';
import type { EventSink } from './eventSink.js';
import { type EngineState, RECENT_TRADES } from './engineState.js';

/** Queries and views, and the two account and symbol settings (deposits, the reference price). */
export class Queries {
  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
  ) {}

  /** One order by id or clientId. */
  getOrder(accountId: string, q: { orderId?: string | number; clientId?: string; symbol?: string }): SimOrder | undefined {
    const acct = this.state.accounts.get(accountId);
    if (acct === undefined) return undefined;
    const o = this.state.find(acct, q.symbol, q.orderId, q.clientId);
    return o === undefined ? undefined : orderView(o);
  }

  /** One order's status by id or clientId: getOrder's `status` without building its view (three Decimals). */
  orderStatus(accountId: string, q: { orderId?: string | number; clientId?: string; symbol?: string }): OrderStatusName | undefined {
    const acct = this.state.accounts.get(accountId);
    return acct === undefined ? undefined : this.state.find(acct, q.symbol, q.orderId, q.clientId)?.status;
  }

  /**
   * What the id index and the lock/cumulative-quote columns hold (memory: 8 bytes an index slot,
   * 16 a column slot): the lowest id they still have a slot for, the index's length and the
   * columns' capacity. For tests and monitoring of long runs.
   */
  orderSlots(): { readonly first: number; readonly index: number; readonly capacity: number } {
    return { first: this.state.columns.first, index: this.state.orders.length, capacity: this.state.columns.lock.length };
  }

  /** Open orders of an account, oldest first. */
  openOrders(accountId: string, symbol?: string): SimOrder[] {
    const acct = this.state.accounts.get(accountId);
    if (acct === undefined) return [];
    return acct.openList(this.state.openById).filter((o) => symbol === undefined || o.sym.name === symbol).map(orderView);
  }

  /** Orders of an account on a symbol, oldest first, filtered as GET /open/v1/orders does. */
  allOrders(accountId: string, symbol: string, q: OrderQuery = {}): SimOrder[] {
    const ids = this.state.accounts.get(accountId)?.hist.get(symbol)?.keptOrders() ?? [];
    // Kept ids are exactly the orders the id index still holds (both drop an order on eviction).
    const all: Ord[] = [];
    for (const id of ids) {
      const o = this.state.orders[id - this.state.columns.first];
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
    const s = this.state.symbol(symbol);
    const all = this.state.accounts.get(accountId)?.hist.get(symbol)?.keptTrades() ?? [];
    if (s === undefined) return [];
    const oid = q.orderId === undefined ? undefined : Number(q.orderId);
    let rows = all.filter(
      (t) => (oid === undefined || t.orderId === oid) && (q.startTime === undefined || t.time >= q.startTime) && (q.endTime === undefined || t.time <= q.endTime),
    );
    rows = page(rows, (t) => t.id, q.fromId, q.direct, q.limit);
    return rows.map((t) => tradeView(s, t, this.state.scaleOf(t.isBuyer ? s.base : s.quote)));
  }

  /** Balances of an account (every asset it ever held), sorted by asset. */
  balances(accountId: string): Balance[] {
    const acct = this.state.accounts.get(accountId);
    if (acct === undefined) return [];
    return [...acct.bal.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([asset, b]) => ({ asset, free: dec(b.free, this.state.scaleOf(asset)), locked: dec(b.locked, this.state.scaleOf(asset)) }));
  }

  /** Commission rates and trading permission of an account (for the account endpoint). */
  accountInfo(accountId: string): { makerCommission: Decimal; takerCommission: Decimal; canTrade: boolean; tradeGroupId?: string } | undefined {
    const a = this.state.accounts.get(accountId);
    return a === undefined ? undefined : { makerCommission: a.makerDec, takerCommission: a.takerDec, canTrade: a.canTrade, ...(a.group !== undefined ? { tradeGroupId: a.group } : {}) };
  }

  /** Account ids, in configuration order. */
  accountIds(): string[] {
    return [...this.state.accounts.keys()];
  }

  /** Symbols, in configuration order. */
  symbolNames(): string[] {
    return [...this.state.symbols.keys()];
  }

  /** Deposit (positive) or withdrawal (negative) of free balance; refused if it would go negative or has too many decimals. */
  adjustBalance(accountId: string, asset: string, delta: Decimal, now: number): { ok: true } | { ok: false; message: string } {
    this.state.now = now;
    const acct = this.state.accounts.get(accountId);
    if (acct === undefined) return { ok: false, message: `account ${accountId} is unknown` };
    if (!this.state.assetScales.has(asset)) this.state.assetScales.set(asset, Math.max(8, delta.decimalPlaces()));
    const sc = this.state.scaleOf(asset);
    if (delta.decimalPlaces() > sc) return { ok: false, message: `amount ${delta.toFixed()} has more than ${sc} decimals for ${asset}` };
    const v = BigInt(delta.mul(new Decimal(10).pow(sc)).toFixed(0));
    const b: Bal = acct.b(asset);
    if (b.free + v < 0n) return { ok: false, message: `${asset} free ${fmtBig(b.free, sc)} is below the ${delta.neg().toFixed()} to withdraw` };
    b.free += v;
    this.events.dirty(acct, asset);
    this.events.end();
    return { ok: true };
  }

  /** Visible book (own + replayed liquidity), best first, at most `limit` levels a side (default 100). */
  depth(symbol: string, limit = 100): OrderBookSnapshot {
    const s = this.state.symbol(symbol);
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
    return this.state.symbol(symbol)?.updateId ?? 0;
  }

  /** Most recent public trades (own matches and replayed), oldest first. */
  recentTrades(symbol: string, limit = 500): TradeEvent[] {
    const s = this.state.symbol(symbol);
    if (s === undefined) return [];
    const ordered = s.recent.length < RECENT_TRADES ? s.recent : [...s.recent.slice(s.recentNext), ...s.recent.slice(0, s.recentNext)];
    return ordered.slice(Math.max(0, ordered.length - limit)).map((t) => this.events.tradeEvent(s, t));
  }

  /** Best bid and ask. */
  bestBidAsk(symbol: string): BestBidAsk {
    const s = this.state.symbol(symbol);
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
    const s = this.state.symbol(symbol);
    return s === undefined || s.last < 0 ? null : dec(s.last, s.pd);
  }

  /** Volume-weighted average trade price over the last `mins` minutes (0 or no trade in the window: last price). */
  averagePrice(symbol: string, mins: number, now: number): Decimal | null {
    const s = this.state.symbol(symbol);
    if (s === undefined) return null;
    this.state.now = now;
    const a = this.state.avg(s, mins);
    return a === null ? null : new Decimal(a.num.toString()).div(a.den.toString()).div(new Decimal(10).pow(s.pd));
  }

  /** The reference price of the PRICE_RANGE rule (null when none). */
  referencePrice(symbol: string): Decimal | null {
    return this.state.symbol(symbol)?.ref ?? null;
  }

  /** Sets or clears the PRICE_RANGE reference price. */
  setReferencePrice(symbol: string, price: Decimal | null, now: number): void {
    const s = this.state.symbol(symbol);
    if (s === undefined) throw new RangeError(`symbol ${symbol} is unknown`);
    this.state.now = now;
    this.state.setRef(s, price);
    this.events.referencePrice(symbol, price === null ? null : price.toFixed(), now);
  }
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
