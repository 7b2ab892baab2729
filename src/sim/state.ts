/**
 * The engine's internal mutable state in one place: symbols (symbol.ts), accounts (account.ts),
 * orders and OCO lists (order.ts), with the account and symbol types closed over the order record.
 * Nothing here is exported from the package index.
 */
import { Acct as AcctOf } from './account.js';
import type { Ord } from './order.js';
import { Sym as SymOf } from './symbol.js';

export { Bal } from './amount.js';
export { History, type OpenCounts } from './account.js';
export { Ord, OrderList, type Pos } from './order.js';
export { generatedClientId } from './orderBits.js';
export { dec, p10, scaleExact, scaleExactBig, type PubTrade, type RangeBounds, type ScaledLot } from './symbol.js';
export type { TradeRec } from './trades.js';

/** An account of the engine, holding Ord records. */
export type Acct = AcctOf<Ord>;
export const Acct: new (...args: ConstructorParameters<typeof AcctOf>) => Acct = AcctOf;
/** A symbol of the engine, holding Ord records. */
export type Sym = SymOf<Ord>;
export const Sym: new (...args: ConstructorParameters<typeof SymOf>) => Sym = SymOf;

/** The order id inside a generated clientId, or -1. */
export function idOfGeneratedClientId(clientId: string): number {
  if (!clientId.startsWith('sim-')) return -1;
  const n = Number(clientId.slice(4));
  return Number.isSafeInteger(n) && n > 0 && String(n) === clientId.slice(4) ? n : -1;
}
