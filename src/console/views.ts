/**
 * JSON shapes of what the console serves (the API, the page's live feed, notifications): money and
 * quantities as strings with every digit, times as epoch ms. Built from the run's own records.
 */
import type { FillEvent, IntentRejectedEvent, OrderUpdateEvent } from '../bus/events.js';
import { ZERO, type Decimal } from '../core/decimal.js';
import { splitSymbol } from '../core/symbols.js';
import type { FillRecord, OrderRecord } from '../store/records.js';
import type { BookTopView, PositionView } from './source.js';

/** An order for the page and the API. */
export interface OrderJson {
  readonly clientId: string;
  readonly orderId: string | undefined;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: string;
  readonly type: string;
  readonly price: string | undefined;
  readonly quantity: string | undefined;
  readonly executed: string;
  readonly state: string;
  readonly reason: string | undefined;
  readonly t: number;
}

/** A fill for the page and the API. */
export interface FillJson {
  readonly t: number;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: string;
  readonly price: string;
  readonly qty: string;
  readonly quoteQty: string;
  readonly commission: string;
  readonly commissionAsset: string | null;
  readonly maker: boolean;
  readonly clientId: string;
  readonly tradeId: string;
}

/** A refused intent with the risk checker's reason. */
export interface RejectionJson {
  readonly t: number;
  readonly strategy: string;
  readonly kind: string;
  readonly symbol: string | undefined;
  readonly reason: string;
  readonly message: string;
}

/** A position with its PnL in the quote asset. */
export interface PositionJson {
  readonly strategy: string;
  readonly symbol: string;
  readonly quote: string;
  readonly position: string;
  readonly fills: number;
  readonly volume: string;
  readonly mark: string | undefined;
  readonly pnl: string;
  /** pnl split at average cost (when the run keeps the basis): closed trades, and the open position at the mark. */
  readonly realized?: string;
  readonly unrealized?: string;
}

/** Top of a book. */
export interface BookJson {
  readonly symbol: string;
  readonly ready: boolean;
  readonly bid: string | undefined;
  readonly bidQty: string | undefined;
  readonly ask: string | undefined;
  readonly askQty: string | undefined;
}

/** From a ledger order record. */
export function orderJson(o: OrderRecord): OrderJson {
  return { clientId: o.clientId, orderId: o.orderId, strategy: o.strategy, symbol: o.symbol, side: o.side, type: o.orderType, price: o.price?.toFixed(), quantity: (o.quantity ?? o.quoteOrderQty)?.toFixed(), executed: o.cumQty.toFixed(), state: o.state, reason: o.reason, t: o.updatedAt };
}

/** From an orderUpdate event. */
export function orderUpdateJson(e: OrderUpdateEvent, t: number): OrderJson {
  return { clientId: e.clientId, orderId: e.orderId, strategy: e.strategy, symbol: e.symbol, side: e.side, type: e.orderType, price: e.price?.toFixed(), quantity: e.quantity?.toFixed(), executed: e.cumQty.toFixed(), state: e.state, reason: e.reason, t };
}

/** From a fill event or a ledger fill (`time` is the exchange's). */
export function fillJson(f: FillEvent | FillRecord): FillJson {
  const t = 'time' in f ? f.time : f.E;
  return { t, strategy: f.strategy, symbol: f.symbol, side: f.side, price: f.price.toFixed(), qty: f.qty.toFixed(), quoteQty: f.quoteQty.toFixed(), commission: f.commission.toFixed(), commissionAsset: f.commissionAsset, maker: f.isMaker, clientId: f.clientId, tradeId: f.tradeId };
}

/** From an intentRejected event. */
export function rejectionJson(e: IntentRejectedEvent, t: number): RejectionJson {
  return { t, strategy: e.strategy, kind: e.intent.kind, symbol: e.intent.kind === 'cancelAll' ? e.intent.symbol : e.intent.symbol, reason: String(e.reason), message: e.message };
}

/** PnL of a position: cash plus the position at its mark (cash only while no mark is known). */
export function positionPnl(p: PositionView): Decimal {
  return p.mark === undefined ? p.cash : p.cash.plus(p.position.mul(p.mark));
}

/** From a position view. */
export function positionJson(p: PositionView): PositionJson {
  const split = p.basis === undefined ? {} : { realized: p.cash.plus(p.basis).toFixed(), unrealized: (p.mark === undefined ? ZERO : p.position.mul(p.mark).minus(p.basis)).toFixed() };
  return { strategy: p.strategy, symbol: p.symbol, quote: splitSymbol(p.symbol).quote, position: p.position.toFixed(), fills: p.fills, volume: p.volume.toFixed(), mark: p.mark?.toFixed(), pnl: positionPnl(p).toFixed(), ...split };
}

/** Total PnL per quote asset over positions. */
export function pnlByQuote(positions: readonly PositionView[]): Record<string, string> {
  const out = new Map<string, Decimal>();
  for (const p of positions) {
    const q = splitSymbol(p.symbol).quote;
    out.set(q, (out.get(q) ?? ZERO).plus(positionPnl(p)));
  }
  return Object.fromEntries([...out].map(([k, v]) => [k, v.toFixed()]));
}

/** From a book top. */
export function bookJson(b: BookTopView): BookJson {
  return { symbol: b.symbol, ready: b.ready, bid: b.bid?.price.toFixed(), bidQty: b.bid?.qty.toFixed(), ask: b.ask?.price.toFixed(), askQty: b.ask?.qty.toFixed() };
}

/** One page of a run's fills, newest first, with how many there are in all. */
export interface FillPageJson {
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly fills: readonly FillJson[];
}

/** Fills `offset` to `offset + limit` counted from the newest of `all` (oldest first, as the ledger keeps them). */
export function fillPage(all: readonly FillRecord[], offset: number, limit: number): FillPageJson {
  const end = Math.max(0, all.length - offset);
  const fills = all.slice(Math.max(0, end - limit), end).reverse().map(fillJson);
  return { total: all.length, offset, limit, fills };
}
