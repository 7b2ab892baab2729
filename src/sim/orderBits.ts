/**
 * The layout of the one small integer of the engine's order record (order.ts) that holds its flags,
 * status and entry fields, and the clientId the engine generates.
 */
import { OrderStatus, OrderType, StpMode, TimeInForce, type OrderStatusName, type OrderTypeName, type StpModeName, type TimeInForceName } from '../core/enums.js';

/**
 * Layout of `Ord.bits`, one small integer: four booleans (bits 0-3), the status (core code + 2,
 * bits 4-7), and what is fixed at entry: side (bit 8), type (9-11), timeInForce (12-14) and STP
 * mode (15-17), as core codes; bit 18 once the order filled at a price other than its own (a taker
 * fill: only then is its cumulative quote stored, see cumQuote), bit 20 while the lock is derived from the remaining quantity (deriveLock;
 * bit 2 once such a lock was released).
 */
export const WORKING = 1;
export const COUNTED = 2;
export const LOCK_RELEASED = 4;
export const EVICTED = 8;
export const STATUS_SHIFT = 4;
export const STATUS_OFFSET = 2;
export const STATUS_MASK = 15 << STATUS_SHIFT;
export const BUY = 1 << 8;
export const FILLED_OFF_PRICE = 1 << 18;
export const LOCK_DERIVED = 1 << 20;
export const NEW_CODE = OrderStatus.NEW + STATUS_OFFSET;
export const PARTIAL_CODE = OrderStatus.PARTIALLY_FILLED + STATUS_OFFSET;
export const FILLED_CODE = OrderStatus.FILLED + STATUS_OFFSET;
export const CANCELED_CODE = OrderStatus.CANCELED + STATUS_OFFSET;
export const EXPIRED_CODE = OrderStatus.EXPIRED + STATUS_OFFSET;

/** Names by the core's codes (plus an offset), for decoding `Ord.bits`. */
export const TYPE_NAMES: readonly OrderTypeName[] = byCode(OrderType, 0);
export const TIF_NAMES: readonly TimeInForceName[] = byCode(TimeInForce, 0);
export const STP_NAMES: readonly StpModeName[] = byCode(StpMode, 0);
export const STATUS_NAMES: readonly OrderStatusName[] = byCode(OrderStatus, STATUS_OFFSET);
/**
 * OrderStatus[v] + STATUS_OFFSET. A switch rather than the keyed load: the setter sees five or more
 * status names, which makes `OrderStatus[v]` a megamorphic keyed load (a stub-cache probe per call).
 */
export function statusCode(v: OrderStatusName): number {
  switch (v) {
    case 'NEW':
      return NEW_CODE;
    case 'PARTIALLY_FILLED':
      return PARTIAL_CODE;
    case 'FILLED':
      return FILLED_CODE;
    case 'CANCELED':
      return CANCELED_CODE;
    case 'EXPIRED':
      return EXPIRED_CODE;
    default:
      return OrderStatus[v] + STATUS_OFFSET;
  }
}
/**
 * Side, type, timeInForce and STP mode as `Ord.bits` holds them. Switches rather than
 * `OrderType[type]` and the like: the order-creating path inlines these loads, and keyed loads by
 * varying names there went megamorphic (a stub-cache probe each, ~1 % of the matching bench).
 */
export function fixedBits(isBuy: boolean, type: OrderTypeName, tif: TimeInForceName, stp: StpModeName): number {
  let t: number;
  switch (type) {
    case 'LIMIT':
      t = OrderType.LIMIT;
      break;
    case 'MARKET':
      t = OrderType.MARKET;
      break;
    default:
      t = OrderType[type];
  }
  const f = tif === 'GTC' ? TimeInForce.GTC : TimeInForce[tif];
  let m: number;
  switch (stp) {
    case 'EXPIRE_MAKER':
      m = StpMode.EXPIRE_MAKER;
      break;
    case 'EXPIRE_TAKER':
      m = StpMode.EXPIRE_TAKER;
      break;
    case 'EXPIRE_BOTH':
      m = StpMode.EXPIRE_BOTH;
      break;
    default:
      m = StpMode[stp];
  }
  return (isBuy ? BUY : 0) | (t << 9) | (f << 12) | (m << 15);
}
function byCode<K extends string>(codes: Readonly<Record<K, number>>, offset: number): K[] {
  const out: K[] = [];
  for (const k of Object.keys(codes) as K[]) out[codes[k] + offset] = k;
  return out;
}

/** An order. Quantities are integers at the symbol's quantity scale, prices at its price scale. */

/** The clientId the engine gives an order sent without one. */
export function generatedClientId(id: number): string {
  return `sim-${id}`;
}
