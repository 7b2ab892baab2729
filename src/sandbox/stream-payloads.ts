/**
 * Payloads of the market and user data streams, with the spec's exact keys. Pure functions:
 * the stream server decides when to send them.
 */
import { type KlineIntervalName, marketSymbol, type SymbolInfo } from '../core/index.js';
import type { AccountPositionEvent, ExecutionReportEvent, TradeEvent } from '../sim/index.js';
import type { SandboxAccount } from './config.js';
import type { MiniTickerValues, StoredAggTrade, WireCandle } from './market-data.js';

/** Upper-case market spelling used in stream payloads' `s` (type 1: no underscore). */
export function payloadSymbol(info: SymbolInfo): string {
  return marketSymbol(info.symbol, info.type);
}

const idNum = (id: string): number | string => {
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
};

/** `<symbol>@trade`. */
export function tradePayload(info: SymbolInfo, t: TradeEvent, now: number): Record<string, unknown> {
  return { e: 'trade', E: now, s: payloadSymbol(info), t: t.id, p: t.price, q: t.qty, b: idNum(t.buyerOrderId), a: idNum(t.sellerOrderId), T: t.time, m: t.isBuyerMaker, M: true };
}

/** `<symbol>@aggTrade`. */
export function aggTradePayload(info: SymbolInfo, a: StoredAggTrade, now: number): Record<string, unknown> {
  return { e: 'aggTrade', E: now, s: payloadSymbol(info), a: a.a, p: a.p, q: a.q, f: a.f, l: a.l, T: a.T, m: a.m, M: a.M };
}

/** `<symbol>@kline_<interval>`. */
export function klinePayload(info: SymbolInfo, interval: KlineIntervalName, k: WireCandle, closed: boolean, now: number): Record<string, unknown> {
  const s = payloadSymbol(info);
  return { e: 'kline', E: now, s, k: { t: k.t, T: k.T, s, i: interval, f: k.f, L: k.L, o: k.o, c: k.c, h: k.h, l: k.l, v: k.v, n: k.n, x: closed, q: k.q, V: k.V, Q: k.Q, B: '0' } };
}

/** `<symbol>@miniTicker` and the elements of `!miniTicker@arr`. */
export function miniTickerPayload(info: SymbolInfo, t: MiniTickerValues, now: number): Record<string, unknown> {
  return { e: '24hrMiniTicker', E: now, s: payloadSymbol(info), c: t.c, o: t.o, h: t.h, l: t.l, v: t.v, q: t.q };
}

/**
 * executionReport with every field the spec lists. `s` is the BASE_QUOTE symbol of the open
 * API, because the user data stream reports orders placed through /open/v1 (a decision: the
 * spec does not say which spelling). `I` and `M` are "ignore" fields: 0 and false.
 */
export function executionReportPayload(ev: ExecutionReportEvent): Record<string, unknown> {
  return {
    e: 'executionReport',
    E: ev.E,
    s: ev.s,
    c: ev.c,
    S: ev.S,
    o: ev.o,
    f: ev.f,
    q: ev.q,
    p: ev.p,
    P: ev.P,
    F: ev.F,
    g: ev.g,
    C: ev.C,
    x: ev.x,
    X: ev.X,
    r: ev.r,
    i: idNum(ev.i),
    l: ev.l,
    z: ev.z,
    L: ev.L,
    n: ev.n,
    N: ev.N,
    T: ev.T,
    t: ev.t,
    I: 0,
    w: ev.w,
    m: ev.m,
    M: false,
    O: ev.O,
    Z: ev.Z,
    Y: ev.Y,
    eR: ev.eR,
  };
}

/** outboundAccountPosition with the account flags and commission rates (bips) the spec lists. */
export function accountPositionPayload(ev: AccountPositionEvent, account: SandboxAccount): Record<string, unknown> {
  return {
    e: 'outboundAccountPosition',
    E: ev.E,
    m: account.makerCommission.mul(10_000).toNumber(),
    t: account.takerCommission.mul(10_000).toNumber(),
    b: 0,
    s: 0,
    T: account.canTrade,
    W: account.canWithdraw,
    D: account.canDeposit,
    u: ev.u,
    B: ev.B.map((b) => ({ a: b.a, f: b.f, l: b.l })),
  };
}
