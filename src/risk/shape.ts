/**
 * The checks that involve no arithmetic: trading state HALTED, symbol, order type, mandatory and
 * forbidden parameters per type, iceberg rules, STP mode, book readiness for market orders.
 * Shared by the fast checker and the decimal reference, which differ only in how they compute.
 */
import type { Decimal } from '../core/decimal.js';
import type { TradingStateName } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { rejectParts } from './messages.js';
import { T_ICEBERG, T_PRICED, T_STOP, typeTraits, type SymbolRules } from './rules.js';
import type { RiskContext, RiskReject } from './types.js';

// Module constants instead of imported bindings in the hot path (see checkIntent.ts).
const traitsOf = typeTraits;
const PRICED = T_PRICED;
const STOPS = T_STOP;
const ICEBERG = T_ICEBERG;

function positive(field: string, v: Decimal | undefined): RiskReject | undefined {
  if (v === undefined) return undefined;
  // isZero() read directly (decimal.js: a zero has leading word 0; NaN and Infinity have no
  // words): the method call costs more than the rest of the test, five times per check.
  const d = v.d as number[] | null;
  if (v.s > 0 && (d === null || d[0] !== 0)) return undefined;
  return rejectParts('INVALID_PARAMETER', field, '=', v, ' must be positive');
}

/**
 * Trading state the last `checkShape` call read and the order type's traits it computed (so the
 * caller does not ask the context twice); traits are set once the symbol and state passed.
 */
export const shapeState: { value: TradingStateName; traits: number } = { value: 'ACTIVE', traits: 0 };

/**
 * Returns the first shape violation of a place intent, or undefined. `sym` undefined means the
 * symbol is unknown. Order of checks is part of the contract (both implementations rely on it).
 */
export function checkShape(intent: PlaceIntent, sym: SymbolRules | undefined, ctx: RiskContext): RiskReject | undefined {
  if (sym === undefined) return rejectParts('UNKNOWN_SYMBOL', 'symbol=', JSON.stringify(intent.symbol), ' is not a known symbol');
  const state = ctx.stateFor(intent.symbol);
  shapeState.value = state;
  if (state === 'HALTED') return rejectParts('TRADING_HALTED', 'symbol=', intent.symbol, ': trading is HALTED, only cancels pass');
  if (!sym.info.spotTradingEnable) return rejectParts('TRADING_DISABLED', 'symbol=', intent.symbol, ': spot trading is disabled');
  const type = intent.orderType;
  const traits = traitsOf(type);
  shapeState.traits = traits;
  if ((sym.orderTypeMask & traits) === 0) return rejectParts('ORDER_TYPE_NOT_SUPPORTED', 'orderType=', type, ' is not allowed on ', intent.symbol);

  const { price, stopPrice, quantity, quoteOrderQty, icebergQty } = intent;
  const priced = (traits & PRICED) !== 0;
  const stop = (traits & STOPS) !== 0;
  if (priced && price === undefined) return rejectParts('MISSING_PARAMETER', 'price is required for ', type);
  if (!priced && price !== undefined) return rejectParts('INVALID_PARAMETER', 'price=', price, ' is not used by ', type);
  if (stop && stopPrice === undefined) return rejectParts('MISSING_PARAMETER', 'stopPrice is required for ', type);
  if (!stop && stopPrice !== undefined) return rejectParts('INVALID_PARAMETER', 'stopPrice=', stopPrice, ' is not used by ', type);
  if (quoteOrderQty !== undefined) {
    // Spec: type 2 takes quantity (sell) or quoteOrderQty (buy); never both.
    if (type !== 'MARKET' || intent.side !== 'BUY') return rejectParts('INVALID_PARAMETER', 'quoteOrderQty=', quoteOrderQty, ' is only for MARKET BUY orders');
    if (quantity !== undefined) return rejectParts('INVALID_PARAMETER', 'quantity=', quantity, ' and quoteOrderQty=', quoteOrderQty, ' are mutually exclusive');
  } else if (quantity === undefined) {
    return type === 'MARKET' && intent.side === 'BUY' ? rejectParts('MISSING_PARAMETER', 'quantity or quoteOrderQty is required for MARKET BUY') : rejectParts('MISSING_PARAMETER', 'quantity is required for ', type);
  }
  const bad = positive('quantity', quantity) ?? positive('quoteOrderQty', quoteOrderQty) ?? positive('price', price) ?? positive('stopPrice', stopPrice) ?? positive('icebergQty', icebergQty);
  if (bad) return bad;

  if (icebergQty !== undefined) {
    if ((traits & ICEBERG) === 0) return rejectParts('INVALID_PARAMETER', 'icebergQty=', icebergQty, ' is not allowed with ', type);
    if (!sym.info.icebergEnable) return rejectParts('ICEBERG_DISABLED', 'icebergQty=', icebergQty, ': iceberg orders are disabled on ', intent.symbol);
    // Spec rule 3: an order with icebergQty must have timeInForce GTC (absent means the GTC default).
    if (intent.timeInForce !== undefined && intent.timeInForce !== 'GTC') return rejectParts('ICEBERG_NOT_GTC', 'timeInForce=', intent.timeInForce, ': an iceberg order must be GTC');
  }
  if (intent.stpMode !== undefined && !sym.stpModes.has(intent.stpMode)) {
    return rejectParts('STP_MODE_NOT_ALLOWED', 'stpMode=', intent.stpMode, ' is not allowed on ', intent.symbol);
  }
  if (type === 'MARKET') {
    // A market order's cost is estimated from the book; a book being rebuilt cannot estimate it.
    const book = ctx.market.book(intent.symbol);
    if (book === undefined || !book.ready) return rejectParts('BOOK_NOT_READY', 'symbol=', intent.symbol, ': no ready order book to estimate a MARKET order');
  }
  return undefined;
}
