/**
 * Order entry and cancels: placeOrder (after validation, entry.ts) with its lock, quoteOrderQty
 * sizing, cancelOrder and cancelAll.
 */
import type { RejectReasonName } from '../core/enums.js';
import { reject, validateNew } from './entry.js';
import { fmt, fmtBig, mul3, mul3n, mulBig } from './scaled.js';
import type { Ord, Sym } from './state.js';
import type { Accepted, CancelRequest, CancelResult, NewOrderRequest, PlaceResult, SimOrder } from './types.js';
import { orderView } from './views.js';
import { type StopOrders, stopReached } from './stops.js';
import type { EventSink } from './eventSink.js';
import type { Ledger } from './ledger.js';
import { type Matcher, outOfRange } from './matching.js';
import { type EngineState, MAX_SAFE_N, TWO53 } from './engineState.js';

/** An accepted order whose full view is built only when read. */
export class AcceptedOrder implements Accepted {
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

/** Order entry and cancels. */
export class OrderEntry {
  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
    private readonly ledger: Ledger,
    private readonly matcher: Matcher,
    private readonly stops: StopOrders,
  ) {}

  /** Places an order; rejected requests change nothing and emit nothing. */
  placeOrder(req: NewOrderRequest, now: number): PlaceResult {
    this.state.now = now;
    const acct = this.state.account(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    const s = this.state.symbol(req.symbol);
    if (s === undefined) return reject('UNKNOWN_SYMBOL', `symbol ${req.symbol} is unknown`);
    const d0 = validateNew(this.state.entryContext, s, acct, req, 1, this.state.draft);
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
      return reject('INSUFFICIENT_BALANCE', `${asset} free ${fmtBig(bal?.free ?? 0n, this.state.scaleOf(asset))} is below the ${fmtBig(need, this.state.scaleOf(asset))} this order needs`);
    }
    const o = this.ledger.newOrder(acct, s, d, req.clientId, now);
    o.lockPrice = d.isBuy ? (d.type === 'MARKET' ? -1 : d.price > 0 ? d.price : d.stop) : 0;
    // A plain limit order's lock is a function of its remaining quantity (Ord.deriveLock).
    if (lockNum >= 0 && d.stop === 0 && (d.type === 'LIMIT' || d.type === 'LIMIT_MAKER')) o.deriveLock();
    if (lockNum >= 0) this.ledger.lockFundsNum(o, lockNum);
    else this.ledger.lockFunds(o, lock);
    if (d.stop > 0) {
      o.working = false;
      s.stops.push(o);
      this.events.report(o, 'NEW');
    } else {
      this.events.report(o, 'NEW');
      this.matcher.execute(o);
    }
    this.stops.checkStops(s);
    this.events.end();
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
  qtyForQuote(s: Sym, budget: bigint, free: bigint): { qty: number; cost: bigint } | undefined {
    let qty = 0;
    let left = budget;
    for (const lv of s.asks.bestFirst()) {
      if (s.range !== null && outOfRange(s, true, lv.price)) break;
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
  costOf(s: Sym, qty: number, inRange: boolean): bigint {
    let left = qty;
    // Summed as a double while the exact sum stays below 2^53 (rounding is monotonic, so a computed
    // value below 2^53 means the exact one is too); the bigint part takes whatever does not fit.
    let small = 0;
    let big = 0n;
    const asks = s.asks;
    for (let i = asks.hi - 1; i >= asks.lo && left > 0; i--) {
      const price = asks.px[i]!;
      if (inRange && s.range !== null && outOfRange(s, true, price)) break;
      const take = Math.min(left, asks.totalAt(i));
      const c = price * take;
      if (c < TWO53 && small + c < TWO53) small += c;
      else big += mulBig(price, take);
      left -= take;
    }
    if (inRange && left > 0) return -1n;
    return BigInt(small) + big;
  }

  /** Cancels one order (an OCO leg cancels its whole list). */
  cancelOrder(req: CancelRequest, now: number): CancelResult {
    this.state.now = now;
    const acct = this.state.account(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    if (req.orderId === undefined && req.clientId === undefined) return reject('MISSING_PARAMETER', 'orderId or clientId is required');
    const o = this.state.find(acct, req.symbol, req.orderId, req.clientId);
    if (o === undefined) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is unknown`);
    if (!o.isOpen) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is ${o.status}, not open`);
    this.ledger.cancelOne(o);
    this.events.end();
    return new AcceptedOrder(o);
  }

  /**
   * Rejects an order the engine had accepted and that has not traded yet: it leaves the book,
   * its locks are released, and its executionReport says REJECTED with `reason`. This is the
   * exchange refusing an order after acknowledging it (the sandbox's fault injection uses it).
   */
  rejectAccepted(req: CancelRequest, reason: RejectReasonName, now: number): CancelResult {
    this.state.now = now;
    const acct = this.state.account(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    const o = this.state.find(acct, req.symbol, req.orderId, req.clientId);
    if (o === undefined) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is unknown`);
    if (!o.isOpen || o.filled > 0 || o.list !== null) return reject('UNKNOWN_ORDER', `${cancelTarget(req)} is ${o.status}, traded or in a list: it cannot be rejected`);
    this.ledger.detach(o);
    o.status = 'REJECTED';
    o.updateTime = this.state.now;
    this.events.report(o, 'REJECTED', null, reason);
    this.ledger.closed(o);
    this.events.end();
    return new AcceptedOrder(o);
  }

  /** Cancels every open order of the account (on one symbol, or all). Returns the canceled orders. */
  cancelAll(accountId: string, symbol: string | undefined, now: number): SimOrder[] {
    this.state.now = now;
    const acct = this.state.accounts.get(accountId);
    if (acct === undefined) return [];
    const victims = acct.openList(this.state.openById).filter((o) => symbol === undefined || o.sym.name === symbol);
    const out: Ord[] = [];
    for (const o of victims) {
      if (!o.isOpen) continue;
      this.ledger.cancelOne(o);
      out.push(o);
    }
    for (const o of victims) if (o.status === 'CANCELED' && !out.includes(o)) out.push(o);
    this.events.end();
    return out.map(orderView);
  }
}

/** How a cancel request named its order, for messages (built only when refusing). */
function cancelTarget(req: CancelRequest): string {
  return req.orderId !== undefined ? `orderId ${String(req.orderId)}` : `clientId ${String(req.clientId)}`;
}

/** True when `qty` keeps to LOT_SIZE and MARKET_LOT_SIZE (min, max, step counted from min). */
function lotsAllow(s: Sym, qty: number): boolean {
  for (const lot of [s.lot, s.mlot]) {
    if (lot === undefined) continue;
    if (qty < lot.min || (lot.max > 0 && qty > lot.max) || (lot.step > 0 && (qty - lot.min) % lot.step !== 0)) return false;
  }
  return true;
}
