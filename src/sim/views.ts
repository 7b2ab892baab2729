/** Builds the public views (orders, trades, execution reports) from internal scaled state. */
import type { ExecutionTypeName, RejectReasonName } from '../core/enums.js';
import type { AccountTrade } from '../core/types.js';
import type { ExecutionReportEvent, ScaledAmount, ScaledExecutionReport } from './events.js';
import { fmt, fmtBig } from './scaled.js';
import { dec, type Ord, type Sym, type TradeRec } from './state.js';
import type { SimOrder } from './types.js';
import { ZERO } from '../core/decimal.js';

/** T with its readonly fields writable (a reused report or fill). */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The public view of an order. */
export function orderView(o: Ord): SimOrder {
  const s = o.sym;
  const ns = s.pd + s.qd;
  const executed = dec(o.filled, s.qd);
  const quote = dec(o.cumQuote, ns);
  return {
    accountId: o.acct.id,
    orderId: o.idStr,
    clientId: o.clientId,
    symbol: s.name,
    symbolType: s.info.type,
    side: o.isBuy ? 'BUY' : 'SELL',
    type: o.type,
    timeInForce: o.tif,
    status: o.status,
    price: dec(o.price, s.pd),
    origQty: dec(o.qty, s.qd),
    origQuoteQty: dec(o.quoteQty, ns),
    executedQty: executed,
    executedPrice: o.filled > 0 ? quote.div(executed) : ZERO,
    executedQuoteQty: quote,
    stopPrice: dec(o.stopPrice, s.pd),
    icebergQty: dec(o.icebergQty, s.qd),
    bOrderId: o.idStr,
    bOrderListId: String(o.list?.id ?? -1),
    isWorking: o.working,
    createTime: o.createTime,
    updateTime: o.updateTime,
    expiryReason: o.expiryReason,
    preventedQty: dec(o.prevented, s.qd),
    orderListId: o.list?.id ?? -1,
    stpMode: o.stp,
  };
}

/** The public view of an own trade. */
export function tradeView(s: Sym, t: TradeRec, feeScale: number): AccountTrade {
  return {
    tradeId: String(t.id),
    orderId: String(t.orderId),
    symbol: s.name,
    price: dec(t.price, s.pd),
    qty: dec(t.qty, s.qd),
    quoteQty: dec(t.quote, s.pd + s.qd),
    commission: dec(t.fee, feeScale),
    // Commission is charged in the asset received: base for the buyer, quote for the seller.
    commissionAsset: t.isBuyer ? s.base : s.quote,
    matchId: String(t.id),
    isBuyer: t.isBuyer,
    isMaker: t.isMaker,
    isBestMatch: true,
    time: t.time,
  };
}

/** Details of the last fill carried by a TRADE report. */
export interface FillInfo {
  readonly qty: number;
  readonly price: number;
  /** price x qty at notional scale. */
  readonly quote: ScaledAmount;
  /** Commission at `feeScale`. */
  readonly fee: ScaledAmount;
  readonly feeAsset: string;
  readonly feeScale: number;
  readonly tradeId: number;
  readonly isMaker: boolean;
}

/** fmt of a scaled amount, either kind. */
function fmtAmount(v: ScaledAmount, scale: number): string {
  return typeof v === 'number' ? fmt(v, scale) : fmtBig(v, scale);
}

/** An executionReport for the order's current state. */
export function executionReport(o: Ord, x: ExecutionTypeName, now: number, fill: FillInfo | null, r: RejectReasonName = 'NONE'): ExecutionReportEvent {
  const s = o.sym;
  const ns = s.pd + s.qd;
  // q, p, P and F never change after entry (a quoteOrderQty order's quantity is fixed at entry too).
  const fixed = (o.fixedStrings ??= [fmt(o.qty, s.qd), fmt(o.price, s.pd), fmt(o.stopPrice, s.pd), fmt(o.icebergQty, s.qd)]);
  return {
    type: 'executionReport',
    accountId: o.acct.id,
    e: 'executionReport',
    E: now,
    s: s.name,
    c: o.clientId,
    S: o.isBuy ? 'BUY' : 'SELL',
    o: o.type,
    f: o.tif,
    q: fixed[0],
    p: fixed[1],
    P: fixed[2],
    F: fixed[3],
    C: x === 'CANCELED' ? o.clientId : '',
    x,
    X: o.status,
    r,
    i: o.idStr,
    l: fill ? fmt(fill.qty, s.qd) : '0',
    z: fmt(o.filled, s.qd),
    L: fill ? fmt(fill.price, s.pd) : '0',
    n: fill ? fmtAmount(fill.fee, fill.feeScale) : '0',
    N: fill ? fill.feeAsset : null,
    T: now,
    t: fill ? fill.tradeId : -1,
    w: o.working,
    m: fill ? fill.isMaker : false,
    O: o.createTime,
    Z: fmtAmount(o.cumQuoteAmount, ns),
    Y: fill ? fmtAmount(fill.quote, ns) : '0',
    eR: o.expiryReason,
    g: o.list?.id ?? -1,
  };
}

/**
 * {@link executionReport} in scaled form (the same fields and values, decimals as scaled integers):
 * no text at all, for listeners subscribed with `{ reports: 'scaled' }`.
 */
export function scaledExecutionReport(o: Ord, x: ExecutionTypeName, now: number, fill: FillInfo | null, r: RejectReasonName = 'NONE'): ScaledExecutionReport {
  const s = o.sym;
  return {
    type: 'scaledExecutionReport',
    accountId: o.acct.id,
    E: now,
    s: s.name,
    c: o.clientId,
    S: o.isBuy ? 'BUY' : 'SELL',
    o: o.type,
    f: o.tif,
    priceScale: s.pd,
    qtyScale: s.qd,
    feeScale: fill ? fill.feeScale : 0,
    q: o.qty,
    p: o.price,
    P: o.stopPrice,
    F: o.icebergQty,
    C: x === 'CANCELED' ? o.clientId : '',
    x,
    X: o.status,
    r,
    i: o.idStr,
    l: fill ? fill.qty : 0,
    z: o.filled,
    L: fill ? fill.price : 0,
    n: fill ? fill.fee : 0,
    N: fill ? fill.feeAsset : null,
    T: now,
    t: fill ? fill.tradeId : -1,
    w: o.working,
    m: fill ? fill.isMaker : false,
    O: o.createTime,
    Z: o.cumQuoteAmount,
    Y: fill ? fill.quote : 0,
    eR: o.expiryReason,
    g: o.list?.id ?? -1,
  };
}

/**
 * {@link scaledExecutionReport} written into `w`, an earlier report of it (the engine's reused
 * report for listeners with transientReports): the same fields, assigned in the literal's order.
 */
export function writeScaledExecutionReport(w: Writable<ScaledExecutionReport>, o: Ord, x: ExecutionTypeName, now: number, fill: FillInfo | null, r: RejectReasonName = 'NONE'): ScaledExecutionReport {
  const s = o.sym;
  w.type = 'scaledExecutionReport';
  w.accountId = o.acct.id;
  w.E = now;
  w.s = s.name;
  w.c = o.clientId;
  w.S = o.isBuy ? 'BUY' : 'SELL';
  w.o = o.type;
  w.f = o.tif;
  w.priceScale = s.pd;
  w.qtyScale = s.qd;
  w.feeScale = fill ? fill.feeScale : 0;
  w.q = o.qty;
  w.p = o.price;
  w.P = o.stopPrice;
  w.F = o.icebergQty;
  w.C = x === 'CANCELED' ? o.clientId : '';
  w.x = x;
  w.X = o.status;
  w.r = r;
  w.i = o.idStr;
  w.l = fill ? fill.qty : 0;
  w.z = o.filled;
  w.L = fill ? fill.price : 0;
  w.n = fill ? fill.fee : 0;
  w.N = fill ? fill.feeAsset : null;
  w.T = now;
  w.t = fill ? fill.tradeId : -1;
  w.w = o.working;
  w.m = fill ? fill.isMaker : false;
  w.O = o.createTime;
  w.Z = o.cumQuoteAmount;
  w.Y = fill ? fill.quote : 0;
  w.eR = o.expiryReason;
  w.g = o.list?.id ?? -1;
  return w;
}

/** The wire executionReport of a scaled one: exactly what the engine builds for a wire listener. */
export function wireReport(r: ScaledExecutionReport): ExecutionReportEvent {
  const ps = r.priceScale;
  const qs = r.qtyScale;
  return {
    type: 'executionReport',
    accountId: r.accountId,
    e: 'executionReport',
    E: r.E,
    s: r.s,
    c: r.c,
    S: r.S,
    o: r.o,
    f: r.f,
    q: fmt(r.q, qs),
    p: fmt(r.p, ps),
    P: fmt(r.P, ps),
    F: fmt(r.F, qs),
    C: r.C,
    x: r.x,
    X: r.X,
    r: r.r,
    i: r.i,
    l: fmt(r.l, qs),
    z: fmt(r.z, qs),
    L: fmt(r.L, ps),
    n: fmtAmount(r.n, r.feeScale),
    N: r.N,
    T: r.T,
    t: r.t,
    w: r.w,
    m: r.m,
    O: r.O,
    Z: fmtAmount(r.Z, ps + qs),
    Y: fmtAmount(r.Y, ps + qs),
    eR: r.eR,
    g: r.g,
  };
}
