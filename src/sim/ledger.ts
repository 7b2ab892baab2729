/**
 * The ledger: locking and releasing funds, the open-order counters, an order's end (history bound,
 * detaching it from the book), and fills with their commissions. Every balance change of an order
 * happens here.
 */
import type { ExpiryReasonName } from '../core/enums.js';
import type { Draft } from './entry.js';
import { mul3, mul3n, mulBig } from './scaled.js';
import { type Acct, Ord, type Sym } from './state.js';
import type { EventSink } from './eventSink.js';
import { type EngineState, TWO53 } from './engineState.js';

/** What the ledger asks of OCO lists when one leg trades or ends (StopOrders, stops.ts). */
export interface ListLegs {
  /** A traded OCO leg ends the other one. */
  listLegTraded(o: Ord): void;
  /** An OCO leg ended before its list: the other leg ends too. */
  listLegClosed(o: Ord): void;
}

/** Accounts and balances of orders: locks, fills, an order's end. */
export class Ledger {
  /** The OCO lists' part, set once the engine has built it (it needs the ledger first). */
  listLegs!: ListLegs;

  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
  ) {}

  newOrder(acct: Acct, s: Sym, d: Draft, clientId: string | undefined, now: number): Ord {
    const id = this.state.nextOrderId++;
    this.state.columns.ensure(id);
    const o = Ord.create(id, clientId ?? null, acct.pos(s), d.isBuy, d.type, d.tif, d.price, d.stop, d.qty, d.quoteQty, d.iceberg, d.stp, now);
    this.state.orders.push(o);
    o.hist.orders.push(id);
    if (clientId !== undefined) acct.byClient.set(clientId, o);
    acct.addOpen(o);
    this.count(o, 1);
    return o;
  }

  lockFunds(o: Ord, amount: bigint): void {
    const s = o.sym;
    const b = o.lockBal;
    b.free -= amount;
    b.locked += amount;
    o.lock += amount;
    this.events.dirty(o.acct, o.isBuy ? s.quote : s.base);
  }

  /** lockFunds for an amount that is a safe integer (number-only updates, see amount.ts). */
  lockFundsNum(o: Ord, amount: number): void {
    const b = o.lockBal;
    b.addFree(-amount);
    b.addLocked(amount);
    o.addLock(amount);
    this.events.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  /** Returns all of an order's remaining lock to free balance. */
  unlockAll(o: Ord): void {
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
    this.events.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  /** The lock `qty` units of this order hold (0 for budget-limited market buys, which release at the end). */
  lockFor(o: Ord, qty: number): bigint {
    if (!o.isBuy) return mul3(qty, 1, o.sym.baseFn, o.sym.baseF);
    return o.lockPrice >= 0 ? mul3(o.lockPrice, qty, o.sym.quoteFn, o.sym.quoteF) : 0n;
  }

  /** Moves the lock of `qty` units back to free (self-trade prevention). */
  unlockQty(o: Ord, qty: number): void {
    const amt = this.lockFor(o, qty);
    if (amt === 0n) return;
    const b = o.lockBal;
    b.locked -= amt;
    b.free += amt;
    o.lock -= amt;
    this.events.dirty(o.acct, o.isBuy ? o.sym.quote : o.sym.base);
  }

  count(o: Ord, delta: 1 | -1): void {
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
  closed(o: Ord): void {
    if (o.counted) this.count(o, -1);
    o.acct.removeOpen(o);
    this.unlockAll(o);
    if (o.list !== null && !o.list.done) this.listLegs.listLegClosed(o);
    this.ended(o);
  }

  /** An order reached a final status: the history may now drop its oldest ended order. */
  ended(o: Ord): void {
    const outId = o.hist.orderEnded(o.id);
    if (outId < 0) return;
    const slot = outId - this.state.columns.first;
    const out = this.state.orders[slot]!;
    out.evicted = true;
    out.keepAmounts(this.state.columns);
    this.state.orders[slot] = undefined;
    const cid = out.givenClientId;
    if (cid !== null && out.acct.byClient.get(cid) === out) out.acct.byClient.delete(cid);
    const list = out.list;
    if (list !== null && list.limitLeg.evicted && list.stopLeg.evicted) this.state.orderLists.delete(list.id);
    if (slot === this.state.held) this.dropDeadPrefix();
  }

  /** Advances `held` past dropped orders; drops the dead prefix from the id index and the columns once it is half of them. */
  dropDeadPrefix(): void {
    const a = this.state.orders;
    let h = this.state.held;
    while (h < a.length && a[h] === undefined) h++;
    this.state.held = h;
    if (h < 1024 || h * 2 < a.length) return;
    this.state.columns.dropPrefix(h, a.length);
    this.state.orders = a.slice(h);
    this.state.held = 0;
  }

  /** Takes an order out of the book or the stop list. */
  detach(o: Ord): void {
    if (o.level !== null) {
      const side = o.sym.own(o.isBuy);
      this.events.touch(o.sym, o.isBuy, o.level);
      side.remove(o);
    } else if (!o.working) {
      const i = o.sym.stops.indexOf(o);
      if (i >= 0) o.sym.stops.splice(i, 1);
    }
  }

  expire(o: Ord, reason: ExpiryReasonName): void {
    if (!o.isOpen) return;
    this.detach(o);
    o.status = 'EXPIRED';
    o.expiryReason = reason;
    o.updateTime = this.state.now;
    this.events.report(o, 'EXPIRED');
    this.closed(o);
  }

  cancelOne(o: Ord): void {
    this.detach(o);
    o.status = 'CANCELED';
    o.updateTime = this.state.now;
    this.events.report(o, 'CANCELED');
    this.closed(o);
  }

  /** One side of a fill: balances, commission (in the asset received), status, own trade record, report. */
  fill(o: Ord, q: number, price: number, isMaker: boolean, tradeId: number): void {
    const s = o.sym;
    const a = o.acct;
    const rate = isMaker ? a.maker : a.taker;
    o.filled += q;
    o.updateTime = this.state.now;
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
    this.events.dirty(a, s.base);
    this.events.dirty(a, s.quote);
    o.status = o.rem === 0 ? 'FILLED' : 'PARTIALLY_FILLED';
    if (fee >= 0) o.hist.trades.push(tradeId, o.id, price, q, pq, fee, o.isBuy, isMaker, this.state.now);
    else o.hist.trades.push(tradeId, o.id, price, q, mulBig(price, q), feeBig, o.isBuy, isMaker, this.state.now);
    const filled = o.status === 'FILLED';
    if (filled) {
      if (o.counted) this.count(o, -1);
      a.removeOpen(o);
      // A filled budget-limited buy may keep an unspent part of its lock.
      this.unlockAll(o);
    }
    this.events.reportFill(o, q, price, pq, fee, feeBig, feeAsset, tradeId, isMaker);
    if (o.list !== null && !o.list.done) this.listLegs.listLegTraded(o);
    if (filled) this.ended(o);
  }

  /** fill's balance and lock updates in bigint, for amounts beyond 2^53; returns the commission. */
  fillBig(o: Ord, q: number, price: number, quote: bigint, rate: number): bigint {
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

  /** TRANSFER: the prevented quantity and its notional at the maker's price move between the two accounts. */
  transfer(t: Ord, m: Ord, pq: number, price: number): void {
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
      this.events.dirty(a, s.base);
      this.events.dirty(a, s.quote);
    }
  }
}
