/**
 * Matching: a working order takes liquidity (own and replayed) by price-time priority, with self-
 * trade prevention, then rests or expires. Every step an order takes against the book is here;
 * balances change in the ledger (ledger.ts), events are built by the sink (eventSink.ts).
 */
import type { StpModeName } from '../core/enums.js';
import type { BookSide, Level } from './book.js';
import { floorDiv } from './scaled.js';
import type { Ord, Sym } from './state.js';
import type { EventSink } from './eventSink.js';
import type { Ledger } from './ledger.js';
import { type EngineState, TWO53 } from './engineState.js';

/** True when `p` is outside the symbol's PRICE_RANGE band for the side (`s.range` set). */
export function outOfRange(s: Sym, isBuy: boolean, p: number): boolean {
  const r = s.range!;
  return isBuy ? p > r.bidMax || p < r.bidMin : p > r.askMax || p < r.askMin;
}

/** Matching of working orders against the book. */
export class Matcher {
  constructor(
    private readonly state: EngineState,
    private readonly events: EventSink,
    private readonly ledger: Ledger,
  ) {}

  /** Runs a working order: FOK check, taking, then rest, expire or done. */
  execute(o: Ord): void {
    if (o.tif === 'FOK' && !this.fokFillable(o)) {
      this.ledger.expire(o, 'TIME_IN_FORCE');
      return;
    }
    this.take(o, o.isMarketType ? 0 : o.price);
    this.finish(o);
  }

  /** After taking: rest a GTC remainder, expire an IOC/FOK/market remainder. */
  finish(o: Ord): void {
    if (!o.isOpen) return;
    if (o.rem === 0) return;
    if (o.isMarketType || o.tif === 'IOC' || o.tif === 'FOK') {
      this.ledger.expire(o, 'TIME_IN_FORCE');
      return;
    }
    const s = o.sym;
    const side = s.own(o.isBuy);
    o.visible = o.icebergQty > 0 ? Math.min(o.icebergQty, o.rem) : o.rem;
    const lv = side.level(o.price);
    side.append(lv, o);
    this.events.touch(s, o.isBuy, lv);
  }

  /** True when a FOK order can fill completely, counting what self-trade prevention would skip or stop at. */
  fokFillable(o: Ord): boolean {
    const s = o.sym;
    let need = o.rem;
    const opp = s.opp(o.isBuy);
    for (const lv of opp.bestFirst()) {
      if (o.isBuy ? lv.price > o.price : lv.price < o.price) return false;
      if (s.range !== null && outOfRange(s, o.isBuy, lv.price)) return false;
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

  /** Runs `o` as a taker against the opposite side down to `limit` (0: no limit). */
  take(o: Ord, limit: number): void {
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
      if (s.range !== null && outOfRange(s, isBuy, p)) {
        this.ledger.expire(o, 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED');
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
  takeLevel(o: Ord, side: BookSide, lv: Level, cap: number): boolean {
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
    this.events.touch(o.sym, side.isBid, lv);
    side.dropIfEmpty(lv);
    return alive && o.isOpen;
  }

  /** A self-trade: same account, or both orders TRANSFER in accounts of one trade group. */
  isSelfTrade(t: Ord, m: Ord): boolean {
    if (t.acct === m.acct) return true;
    return t.stp === 'TRANSFER' && m.stp === 'TRANSFER' && t.acct.group !== undefined && t.acct.group === m.acct.group;
  }

  /** The spec's effective-mode table. */
  effectiveStp(t: Ord, m: Ord): StpModeName {
    if (t.stp !== 'TRANSFER') return t.stp;
    if (m.stp !== 'TRANSFER' || t.acct === m.acct) return 'DECREMENT';
    return 'TRANSFER';
  }

  /** Applies self-trade prevention between taker `t` and maker `m`. */
  prevent(t: Ord, m: Ord, lv: Level): void {
    const mode = this.effectiveStp(t, m);
    switch (mode) {
      case 'EXPIRE_TAKER':
        this.ledger.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'EXPIRE_MAKER':
        this.ledger.expire(m, 'SELF_TRADE_PREVENTION');
        return;
      case 'EXPIRE_BOTH':
        this.ledger.expire(m, 'SELF_TRADE_PREVENTION');
        this.ledger.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'NONE':
        // Not accepted for new orders; treated as the taker expiring so no self-trade can happen.
        this.ledger.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      case 'DECREMENT':
      case 'TRANSFER': {
        const pq = Math.min(t.rem, m.rem);
        if (mode === 'TRANSFER') this.ledger.transfer(t, m, pq, lv.price);
        else {
          this.ledger.unlockQty(t, pq);
          this.ledger.unlockQty(m, pq);
        }
        t.prevented += pq;
        m.prevented += pq;
        t.updateTime = m.updateTime = this.state.now;
        if (m.rem === 0) this.ledger.expire(m, 'SELF_TRADE_PREVENTION');
        else if (m.visible > m.rem) {
          lv.own -= m.visible - m.rem;
          m.visible = m.rem;
          this.events.touch(m.sym, m.isBuy, lv);
        }
        if (t.rem === 0) this.ledger.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      }
      default: {
        const never: never = mode;
        throw new Error(`unknown STP mode ${String(never)}`);
      }
    }
  }

  /** A trade between taker `t` and maker `m` at the maker's price. */
  trade(t: Ord, m: Ord, q: number, price: number): void {
    const s = t.sym;
    const id = this.state.nextTradeId++;
    m.visible -= q;
    m.level!.own -= q;
    this.ledger.fill(t, q, price, false, id);
    this.ledger.fill(m, q, price, true, id);
    const buyer = t.isBuy ? t : m;
    const seller = t.isBuy ? m : t;
    this.events.trade(s, this.state.recordPublic(s, id, price, q, buyer.id, seller.id, !t.isBuy));
  }

  /** A taker trade against replayed external liquidity. */
  tradeExternal(t: Ord, price: number, q: number): void {
    const id = this.state.nextTradeId++;
    this.ledger.fill(t, q, price, false, id);
    this.events.trade(t.sym, this.state.recordPublic(t.sym, id, price, q, t.isBuy ? t.id : 0, t.isBuy ? 0 : t.id, !t.isBuy));
  }
}
