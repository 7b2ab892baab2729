/**
 * A deliberately plain decimal.js implementation of the engine's core rules, used only by the
 * differential test: LIMIT (GTC, IOC, FOK), LIMIT_MAKER, MARKET by quantity and by quoteOrderQty
 * (the quantity whose cost is closest to it, locking that cost),
 * icebergs, cancel, free/locked balances with maker/taker commission, and self-trade prevention
 * (EXPIRE_TAKER, EXPIRE_MAKER, EXPIRE_BOTH, DECREMENT). It keeps each side as one array sorted by
 * price then arrival, and does every amount in Decimal, so it shares no arithmetic with the engine.
 */
import { Decimal } from '../../core/decimal.js';

const Z = new Decimal(0);

/** Reference configuration: one symbol. */
export interface RefConfig {
  readonly tick: Decimal;
  readonly step: Decimal;
  readonly minQty: Decimal;
  readonly maxQty: Decimal;
  readonly minNotional: Decimal;
  readonly base: string;
  readonly quote: string;
  readonly accounts: readonly { id: string; maker: Decimal; taker: Decimal; balances: Record<string, Decimal> }[];
}

/** A reference order request (Decimals, like the engine's inputs). */
export interface RefRequest {
  readonly accountId: string;
  readonly side: 'BUY' | 'SELL';
  readonly type: 'LIMIT' | 'LIMIT_MAKER' | 'MARKET';
  readonly tif?: 'GTC' | 'IOC' | 'FOK';
  readonly price?: Decimal;
  readonly quantity?: Decimal;
  readonly quoteOrderQty?: Decimal;
  readonly icebergQty?: Decimal;
  readonly stp: 'EXPIRE_TAKER' | 'EXPIRE_MAKER' | 'EXPIRE_BOTH' | 'DECREMENT';
}

interface RefOrder {
  id: number;
  acct: string;
  isBuy: boolean;
  isMarket: boolean;
  tif: 'GTC' | 'IOC' | 'FOK';
  price: Decimal;
  qty: Decimal;
  filled: Decimal;
  prevented: Decimal;
  iceberg: Decimal;
  visible: Decimal;
  seq: number;
  stp: RefRequest['stp'];
  lock: Decimal;
  /** null for a budget-limited market buy. */
  lockPrice: Decimal | null;
  status: 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED';
  expiry: string;
}

/** The reference engine. `log` collects reports as `acct id x/X l@L fee n z eR` and trades as `T price qty buyer/seller`. */
export class RefEngine {
  readonly log: string[] = [];
  private readonly bal = new Map<string, Map<string, { free: Decimal; locked: Decimal }>>();
  private readonly rates = new Map<string, { maker: Decimal; taker: Decimal }>();
  private bids: RefOrder[] = [];
  private asks: RefOrder[] = [];
  private readonly all = new Map<number, RefOrder>();
  private nextId = 1;
  private nextSeq = 1;
  private nextTrade = 1;
  /** Which candidate the last quoteOrderQty order took, so the differential can count that it met every case. */
  lastQuotePick: 'down' | 'up' | 'tie' | 'down, up unaffordable' | 'down, no up' | null = null;

  constructor(private readonly c: RefConfig) {
    for (const a of c.accounts) {
      const m = new Map<string, { free: Decimal; locked: Decimal }>();
      for (const asset of [c.base, c.quote]) m.set(asset, { free: a.balances[asset] ?? Z, locked: Z });
      this.bal.set(a.id, m);
      this.rates.set(a.id, { maker: a.maker, taker: a.taker });
    }
  }

  private b(acct: string, asset: string): { free: Decimal; locked: Decimal } {
    return this.bal.get(acct)!.get(asset)!;
  }

  /** Deposits (positive) or withdraws (negative) `delta` of an asset's free balance. */
  adjust(acct: string, asset: string, delta: Decimal): void {
    const b = this.b(acct, asset);
    b.free = b.free.plus(delta);
  }

  /** Balances as `asset free/locked` strings. */
  balances(acct: string): string[] {
    return [this.c.base, this.c.quote].map((a) => `${a} ${this.b(acct, a).free.toFixed()}/${this.b(acct, a).locked.toFixed()}`);
  }

  /** Book as `price x qty` per side, best first. */
  depth(): { bids: string[]; asks: string[] } {
    const agg = (side: RefOrder[]): string[] => {
      const out: [Decimal, Decimal][] = [];
      for (const o of side) {
        const last = out[out.length - 1];
        if (last && last[0].eq(o.price)) last[1] = last[1].plus(o.visible);
        else out.push([o.price, o.visible]);
      }
      return out.map(([p, q]) => `${p.toFixed()}x${q.toFixed()}`);
    };
    return { bids: agg(this.bids), asks: agg(this.asks) };
  }

  private rem(o: RefOrder): Decimal {
    return o.qty.minus(o.filled).minus(o.prevented);
  }

  private report(o: RefOrder, x: string, fill?: { q: Decimal; p: Decimal; fee: Decimal }): void {
    const f = fill ? ` ${fill.q.toFixed()}@${fill.p.toFixed()} fee ${fill.fee.toFixed()}` : '';
    this.log.push(`${o.acct} ${o.id} ${x}/${o.status}${f} z=${o.filled.toFixed()}${o.expiry !== 'NONE' ? ` ${o.expiry}` : ''}`);
  }

  private opp(isBuy: boolean): RefOrder[] {
    return isBuy ? this.asks : this.bids;
  }

  /** Places an order; returns the rejection reason or the order id. */
  place(r: RefRequest): { ok: false; reason: string } | { ok: true; id: number } {
    const c = this.c;
    const isBuy = r.side === 'BUY';
    const isMarket = r.type === 'MARKET';
    const price = r.price ?? Z;
    let qty = r.quantity ?? Z;
    const iceberg = r.icebergQty ?? Z;
    if (qty.gt(0) && (qty.lt(c.minQty) || qty.gt(c.maxQty))) return { ok: false, reason: 'LOT_SIZE' };
    // NOTIONAL applies to priced orders only (applyToMarket false in the differential set-up).
    if (!isMarket && price.mul(qty).lt(c.minNotional)) return { ok: false, reason: 'NOTIONAL' };
    const opp = this.opp(isBuy);
    let lock: Decimal;
    if (isMarket) {
      if (opp.length === 0) return { ok: false, reason: 'NO_MARKET_LIQUIDITY' };
      if (r.quoteOrderQty) {
        const pick = this.qtyForQuote(r.quoteOrderQty, this.b(r.accountId, c.quote).free);
        if (pick === null) return { ok: false, reason: 'LOT_SIZE' };
        qty = pick.qty;
        lock = pick.cost;
      } else if (isBuy) lock = this.askCost(qty);
      else lock = qty;
    } else {
      if (r.type === 'LIMIT_MAKER' && opp.length > 0 && (isBuy ? opp[0]!.price.lte(price) : opp[0]!.price.gte(price))) return { ok: false, reason: 'LIMIT_MAKER_WOULD_TAKE' };
      lock = isBuy ? price.mul(qty) : qty;
    }
    const asset = isBuy ? c.quote : c.base;
    if (this.b(r.accountId, asset).free.lt(lock)) return { ok: false, reason: 'INSUFFICIENT_BALANCE' };
    const o: RefOrder = {
      id: this.nextId++,
      acct: r.accountId,
      isBuy,
      isMarket,
      tif: r.tif ?? 'GTC',
      price,
      qty,
      filled: Z,
      prevented: Z,
      iceberg,
      visible: Z,
      seq: 0,
      stp: r.stp,
      lock: Z,
      lockPrice: isBuy ? (isMarket ? null : price) : Z,
      status: 'NEW',
      expiry: 'NONE',
    };
    this.all.set(o.id, o);
    const bb = this.b(o.acct, asset);
    bb.free = bb.free.minus(lock);
    bb.locked = bb.locked.plus(lock);
    o.lock = lock;
    this.report(o, 'NEW');
    if (o.tif === 'FOK' && !this.fokFillable(o)) this.expire(o, 'TIME_IN_FORCE');
    else {
      this.take(o);
      if (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') {
        if (this.rem(o).gt(0)) {
          if (o.isMarket || o.tif !== 'GTC') this.expire(o, 'TIME_IN_FORCE');
          else {
            o.visible = o.iceberg.gt(0) ? Decimal.min(o.iceberg, this.rem(o)) : this.rem(o);
            this.insert(o);
          }
        }
      }
    }
    return { ok: true, id: o.id };
  }

  /** What buying `qty` (or as much of it as there is) costs on the visible asks. */
  private askCost(qty: Decimal): Decimal {
    let left = qty;
    let cost = Z;
    for (const o of this.asks) {
      if (left.isZero()) break;
      const t = Decimal.min(left, o.visible);
      cost = cost.plus(t.mul(o.price));
      left = left.minus(t);
    }
    return cost;
  }

  /**
   * Spec rule 4: of the LOT_SIZE quantities around the budget (the largest whose cost fits it, and one
   * step more), the one whose cost is closest to it; a tie, or a larger one the free balance cannot
   * pay, takes the smaller. Null when the budget buys less than minQty.
   */
  private qtyForQuote(budget: Decimal, free: Decimal): { qty: Decimal; cost: Decimal } | null {
    const c = this.c;
    // The exact (real) quantity the budget buys on the visible asks.
    let fits = Z;
    let left = budget;
    for (const o of this.asks) {
      const t = Decimal.min(o.visible, left.div(o.price));
      fits = fits.plus(t);
      left = left.minus(t.mul(o.price));
      if (t.lt(o.visible)) break;
    }
    fits = Decimal.min(fits, c.maxQty);
    if (fits.lt(c.minQty)) return null;
    const down = fits.minus(fits.minus(c.minQty).mod(c.step));
    const downCost = this.askCost(down);
    const up = down.plus(c.step);
    const onBook = this.asks.reduce((sum, o) => sum.plus(o.visible), Z);
    const upCost = up.lte(c.maxQty) && up.lte(onBook) ? this.askCost(up) : null;
    this.lastQuotePick = upCost === null ? 'down, no up' : 'down';
    if (upCost !== null) {
      const upGap = upCost.minus(budget).abs();
      const downGap = budget.minus(downCost).abs();
      if (upGap.eq(downGap)) this.lastQuotePick = 'tie';
      else if (upGap.lt(downGap)) {
        if (upCost.lte(free)) {
          this.lastQuotePick = 'up';
          return { qty: up, cost: upCost };
        }
        this.lastQuotePick = 'down, up unaffordable';
      }
    }
    return { qty: down, cost: downCost };
  }

  private fokFillable(o: RefOrder): boolean {
    let need = this.rem(o);
    for (const m of this.opp(o.isBuy)) {
      if (o.isBuy ? m.price.gt(o.price) : m.price.lt(o.price)) return false;
      if (m.acct === o.acct) {
        if (o.stp === 'EXPIRE_MAKER') continue;
        return false;
      }
      need = need.minus(Decimal.min(need, this.rem(m)));
      if (need.isZero()) return true;
    }
    return false;
  }

  private insert(o: RefOrder): void {
    o.seq = this.nextSeq++;
    const side = o.isBuy ? this.bids : this.asks;
    // Behind every order at a better or equal price: price priority, then arrival.
    let i = side.length;
    while (i > 0 && (o.isBuy ? side[i - 1]!.price.lt(o.price) : side[i - 1]!.price.gt(o.price))) i--;
    side.splice(i, 0, o);
  }

  private removeFromBook(o: RefOrder): void {
    if (o.isBuy) this.bids = this.bids.filter((x) => x !== o);
    else this.asks = this.asks.filter((x) => x !== o);
  }

  private release(o: RefOrder, amount: Decimal): void {
    const bb = this.b(o.acct, o.isBuy ? this.c.quote : this.c.base);
    bb.locked = bb.locked.minus(amount);
    bb.free = bb.free.plus(amount);
    o.lock = o.lock.minus(amount);
  }

  private expire(o: RefOrder, why: string): void {
    this.removeFromBook(o);
    o.status = 'EXPIRED';
    o.expiry = why;
    this.report(o, 'EXPIRED');
    this.release(o, o.lock);
  }

  /** Cancels an order by id; returns false when it is not open. */
  cancel(acct: string, id: number): boolean {
    const o = this.all.get(id);
    if (!o || o.acct !== acct || (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED')) return false;
    this.removeFromBook(o);
    o.status = 'CANCELED';
    this.report(o, 'CANCELED');
    this.release(o, o.lock);
    return true;
  }

  private take(t: RefOrder): void {
    const step = this.c.step;
    for (;;) {
      if (t.status !== 'NEW' && t.status !== 'PARTIALLY_FILLED') return;
      if (this.rem(t).isZero()) return;
      const side = this.opp(t.isBuy);
      const m = side[0];
      if (!m) return;
      if (!t.isMarket && (t.isBuy ? m.price.gt(t.price) : m.price.lt(t.price))) return;
      let cap = this.rem(t);
      if (t.isBuy && t.lockPrice === null) {
        const afford = t.lock.div(m.price).div(step).floor().mul(step);
        if (afford.lt(cap)) cap = afford;
        if (cap.lte(0)) return;
      }
      if (m.acct === t.acct) {
        this.prevent(t, m);
        continue;
      }
      const q = Decimal.min(cap, m.visible);
      this.trade(t, m, q);
      if (m.visible.isZero()) {
        this.removeFromBook(m);
        if (m.status === 'PARTIALLY_FILLED' && this.rem(m).gt(0)) {
          m.visible = Decimal.min(m.iceberg, this.rem(m));
          this.insert(m);
        }
      }
    }
  }

  private prevent(t: RefOrder, m: RefOrder): void {
    switch (t.stp) {
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
      case 'DECREMENT': {
        const pq = Decimal.min(this.rem(t), this.rem(m));
        for (const o of [t, m]) {
          if (!o.isBuy) this.release(o, pq);
          else if (o.lockPrice !== null) this.release(o, pq.mul(o.lockPrice));
          o.prevented = o.prevented.plus(pq);
        }
        if (this.rem(m).isZero()) this.expire(m, 'SELF_TRADE_PREVENTION');
        else if (m.visible.gt(this.rem(m))) m.visible = this.rem(m);
        if (this.rem(t).isZero()) this.expire(t, 'SELF_TRADE_PREVENTION');
        return;
      }
    }
  }

  private trade(t: RefOrder, m: RefOrder, q: Decimal): void {
    const p = m.price;
    m.visible = m.visible.minus(q);
    const id = this.nextTrade++;
    this.fill(t, q, p, false);
    this.fill(m, q, p, true);
    const buyer = t.isBuy ? t : m;
    const seller = t.isBuy ? m : t;
    this.log.push(`T${id} ${p.toFixed()} ${q.toFixed()} ${buyer.id}/${seller.id}`);
  }

  private fill(o: RefOrder, q: Decimal, p: Decimal, isMaker: boolean): void {
    const rate = isMaker ? this.rates.get(o.acct)!.maker : this.rates.get(o.acct)!.taker;
    const quote = q.mul(p);
    const qb = this.b(o.acct, this.c.quote);
    const bb = this.b(o.acct, this.c.base);
    let fee: Decimal;
    if (o.isBuy) {
      const rel = o.lockPrice === null ? quote : q.mul(o.lockPrice);
      qb.locked = qb.locked.minus(rel);
      qb.free = qb.free.plus(rel).minus(quote);
      o.lock = o.lock.minus(rel);
      fee = q.mul(rate);
      bb.free = bb.free.plus(q).minus(fee);
    } else {
      bb.locked = bb.locked.minus(q);
      o.lock = o.lock.minus(q);
      fee = quote.mul(rate);
      qb.free = qb.free.plus(quote).minus(fee);
    }
    o.filled = o.filled.plus(q);
    o.status = this.rem(o).isZero() ? 'FILLED' : 'PARTIALLY_FILLED';
    if (o.status === 'FILLED' && o.lock.gt(0)) this.release(o, o.lock);
    this.report(o, 'TRADE', { q, p, fee });
  }
}
