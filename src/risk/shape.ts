/**
 * The checks that involve no arithmetic: trading state HALTED, symbol, order type, mandatory and
 * forbidden parameters per type, iceberg rules, STP mode, book readiness for market orders.
 * Shared by the fast checker and the decimal reference, which differ only in how they compute.
 */
import type { Decimal } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';
import { fmt, reject } from './messages.js';
import { ICEBERG_TYPES, PRICED_TYPES, STOP_TYPES, type SymbolRules } from './rules.js';
import type { RiskContext, RiskReject } from './types.js';

function positive(field: string, v: Decimal | undefined): RiskReject | undefined {
  if (v === undefined || (v.s > 0 && !v.isZero())) return undefined;
  return reject('INVALID_PARAMETER', `${field}=${fmt(v)} must be positive`);
}

/**
 * Returns the first shape violation of a place intent, or undefined. `sym` undefined means the
 * symbol is unknown. Order of checks is part of the contract (both implementations rely on it).
 */
export function checkShape(intent: PlaceIntent, sym: SymbolRules | undefined, ctx: RiskContext): RiskReject | undefined {
  if (sym === undefined) return reject('UNKNOWN_SYMBOL', `symbol=${JSON.stringify(intent.symbol)} is not a known symbol`);
  const state = ctx.stateFor(intent.symbol);
  if (state === 'HALTED') return reject('TRADING_HALTED', `symbol=${intent.symbol}: trading is HALTED, only cancels pass`);
  if (!sym.info.spotTradingEnable) return reject('TRADING_DISABLED', `symbol=${intent.symbol}: spot trading is disabled`);
  const type = intent.orderType;
  if (!sym.orderTypes.has(type)) return reject('ORDER_TYPE_NOT_SUPPORTED', `orderType=${type} is not allowed on ${intent.symbol}`);

  const priced = PRICED_TYPES.has(type);
  const stop = STOP_TYPES.has(type);
  if (priced && intent.price === undefined) return reject('MISSING_PARAMETER', `price is required for ${type}`);
  if (!priced && intent.price !== undefined) return reject('INVALID_PARAMETER', `price=${fmt(intent.price)} is not used by ${type}`);
  if (stop && intent.stopPrice === undefined) return reject('MISSING_PARAMETER', `stopPrice is required for ${type}`);
  if (!stop && intent.stopPrice !== undefined) return reject('INVALID_PARAMETER', `stopPrice=${fmt(intent.stopPrice)} is not used by ${type}`);
  if (intent.quoteOrderQty !== undefined) {
    // Spec: type 2 takes quantity (sell) or quoteOrderQty (buy); never both.
    if (type !== 'MARKET' || intent.side !== 'BUY') return reject('INVALID_PARAMETER', `quoteOrderQty=${fmt(intent.quoteOrderQty)} is only for MARKET BUY orders`);
    if (intent.quantity !== undefined) return reject('INVALID_PARAMETER', `quantity=${fmt(intent.quantity)} and quoteOrderQty=${fmt(intent.quoteOrderQty)} are mutually exclusive`);
  } else if (intent.quantity === undefined) {
    return reject('MISSING_PARAMETER', type === 'MARKET' && intent.side === 'BUY' ? 'quantity or quoteOrderQty is required for MARKET BUY' : `quantity is required for ${type}`);
  }
  const bad = positive('quantity', intent.quantity) ?? positive('quoteOrderQty', intent.quoteOrderQty) ?? positive('price', intent.price) ?? positive('stopPrice', intent.stopPrice) ?? positive('icebergQty', intent.icebergQty);
  if (bad) return bad;

  if (intent.icebergQty !== undefined) {
    if (!ICEBERG_TYPES.has(type)) return reject('INVALID_PARAMETER', `icebergQty=${fmt(intent.icebergQty)} is not allowed with ${type}`);
    if (!sym.info.icebergEnable) return reject('ICEBERG_DISABLED', `icebergQty=${fmt(intent.icebergQty)}: iceberg orders are disabled on ${intent.symbol}`);
    // Spec rule 3: an order with icebergQty must have timeInForce GTC (absent means the GTC default).
    if (intent.timeInForce !== undefined && intent.timeInForce !== 'GTC') return reject('ICEBERG_NOT_GTC', `timeInForce=${intent.timeInForce}: an iceberg order must be GTC`);
  }
  if (intent.stpMode !== undefined && !sym.stpModes.has(intent.stpMode)) {
    return reject('STP_MODE_NOT_ALLOWED', `stpMode=${intent.stpMode} is not allowed on ${intent.symbol}`);
  }
  if (type === 'MARKET') {
    // A market order's cost is estimated from the book; a book being rebuilt cannot estimate it.
    const book = ctx.market.book(intent.symbol);
    if (book === undefined || !book.ready) return reject('BOOK_NOT_READY', `symbol=${intent.symbol}: no ready order book to estimate a MARKET order`);
  }
  return undefined;
}
