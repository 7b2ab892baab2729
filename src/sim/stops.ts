/**
 * Stop orders and OCO lists: triggering by the last price, the legs' shared lock, list status.
 */
import type { OrderTypeName } from '../core/enums.js';
import { reject, validateNew } from './entry.js';
import { fmt, fmtBig, mulBig } from './scaled.js';
import { type Ord, OrderList, type Sym } from './state.js';
import type { OcoRequest, OcoResult, OrderListView } from './types.js';
import { orderView } from './views.js';
import type { EventSink } from './eventSink.js';
import type { Ledger, ListLegs } from './ledger.js';
import type { Matcher } from './matching.js';
import type { EngineState } from './engineState.js';

/** Stop orders and OCO lists. */
export class StopOrders implements ListLegs {
  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
    private readonly ledger: Ledger,
    private readonly matcher: Matcher,
  ) {}

  /** Triggers every stop order the last price has reached, in id order, until none is left. */
  checkStops(s: Sym): void {
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

  /** A stop order whose stop price the last price reached starts working. */
  trigger(o: Ord): void {
    const s = o.sym;
    o.working = true;
    o.updateTime = this.state.now;
    if (o.list !== null && !o.list.done) {
      // The stop leg starts working: the limit leg ends and hands its lock over.
      const list = o.list;
      const other = list.limitLeg;
      const moved = other.lock;
      other.lock = 0n;
      o.lock += moved;
      list.done = true;
      this.ledger.expire(other, 'OCO_OTHER_LEG');
      this.finishList(list);
      o.lockPrice = o.isBuy ? o.price : 0;
      const need = this.ledger.lockFor(o, o.rem);
      if (o.lock > need) {
        const extra = o.lock - need;
        o.lock = need;
        const b = o.acct.b(o.isBuy ? s.quote : s.base);
        b.locked -= extra;
        b.free += extra;
        this.events.dirty(o.acct, o.isBuy ? s.quote : s.base);
      }
    }
    this.events.report(o, 'NEW');
    if (o.isMarketType) {
      if (s.opp(o.isBuy).best() === undefined) {
        this.ledger.expire(o, 'TIME_IN_FORCE');
        return;
      }
      if (o.isBuy) {
        // A triggered market buy may spend what it reserved plus the free quote balance.
        const b = o.acct.b(s.quote);
        o.lockPrice = -1;
        this.ledger.lockFunds(o, b.free);
      }
    }
    this.matcher.execute(o);
  }

  /** A traded OCO leg ends the other one. */
  listLegTraded(o: Ord): void {
    const list = o.list!;
    if (o === list.limitLeg) {
      list.done = true;
      this.ledger.expire(list.stopLeg, 'OCO_OTHER_LEG');
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
          this.events.dirty(o.acct, o.sym.quote);
        }
      }
      this.finishList(list);
    }
  }

  /** A leg ended without the list being done: the other leg ends too. */
  listLegClosed(o: Ord): void {
    const list = o.list!;
    const other = o === list.limitLeg ? list.stopLeg : list.limitLeg;
    list.done = true;
    if (other.isOpen) {
      if (o.status === 'CANCELED') this.ledger.cancelOne(other);
      else this.ledger.expire(other, 'OCO_OTHER_LEG');
    }
    this.finishList(list);
  }

  /** Marks a list done (callers set `done` before ending the other leg) and reports ALL_DONE. */
  finishList(list: OrderList): void {
    list.done = true;
    list.updateTime = this.state.now;
    this.events.listStatus(list);
  }

  /** Places an OCO list. */
  placeOco(req: OcoRequest, now: number): OcoResult {
    this.state.now = now;
    const acct = this.state.account(req.accountId);
    if (acct === undefined) return reject('TRADING_DISABLED', `account ${req.accountId} is unknown`);
    const s = this.state.symbol(req.symbol);
    if (s === undefined) return reject('UNKNOWN_SYMBOL', `symbol ${req.symbol} is unknown`);
    if (!s.info.ocoEnable) return reject('OCO_DISABLED', `OCO is disabled on ${s.name}`);
    const base = { accountId: req.accountId, symbol: req.symbol, side: req.side, quantity: req.quantity, stpMode: req.stpMode };
    const lim = validateNew(this.state.entryContext, s, acct, { ...base, type: 'LIMIT_MAKER', price: req.price, clientId: req.limitClientId }, 2);
    if (!('isBuy' in lim)) return lim;
    const stp = validateNew(this.state.entryContext, s, acct, { ...base, type: 'STOP_LOSS_LIMIT', price: req.stopLimitPrice, stopPrice: req.stopPrice, timeInForce: 'GTC', clientId: req.stopClientId }, 2);
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
    if (free < lock) return reject('INSUFFICIENT_BALANCE', `${asset} free ${fmtBig(free, this.state.scaleOf(asset))} is below the ${fmtBig(lock, this.state.scaleOf(asset))} this OCO needs`);
    const limitLeg = this.ledger.newOrder(acct, s, lim, req.limitClientId, now);
    const stopLeg = this.ledger.newOrder(acct, s, stp, req.stopClientId, now);
    const list = new OrderList(this.state.nextListId++, req.listClientId ?? `sim-list-${this.state.nextListId - 1}`, s.name, acct, now, limitLeg, stopLeg);
    this.state.orderLists.set(list.id, list);
    limitLeg.list = list;
    stopLeg.list = list;
    limitLeg.lockPrice = lockPrice;
    stopLeg.lockPrice = lim.isBuy ? stp.price : 0;
    this.ledger.lockFunds(limitLeg, lock);
    stopLeg.working = false;
    s.stops.push(stopLeg);
    this.events.listStatus(list);
    this.events.report(limitLeg, 'NEW');
    this.events.report(stopLeg, 'NEW');
    this.matcher.finish(limitLeg);
    this.events.end();
    return { ok: true, list: this.listView(list) };
  }

  /** The list as the API shows it. */
  listView(list: OrderList): OrderListView {
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
    const l = this.state.orderLists.get(orderListId);
    return l !== undefined && l.acct.id === accountId ? this.listView(l) : undefined;
  }
}

/** Rule 5: stop-loss buy and take-profit sell trigger at or above the stop price; the others at or below. */
export function stopReached(type: OrderTypeName, isBuy: boolean, stop: number, last: number): boolean {
  const stopLoss = type === 'STOP_LOSS' || type === 'STOP_LOSS_LIMIT';
  const above = stopLoss ? isBuy : !isBuy;
  return above ? last >= stop : last <= stop;
}
