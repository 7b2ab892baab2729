/**
 * The legacy /v1 interface as the router's fallback while the open API circuit is open: which
 * orders it can carry, placing them, finding one whose answer was lost, cancelling and refreshing.
 *
 * /v1 has no clientId: an UNKNOWN legacy order is matched by symbol, side, price, quantity and
 * time among orders nobody tracks (legacy active orders here, or all orders once the open API is
 * back), and is never re-sent: only the open API can prove it absent.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderStatusName } from '../core/enums.js';
import { splitSymbol } from '../core/symbols.js';
import type { Order, SymbolInfo } from '../core/types.js';
import type { PlaceIntent } from '../bus/intents.js';
import type { OrderRecord } from '../store/records.js';
import type { LegacyOrderView } from './ports.js';
import { errInfo, settleFailedCancel, type RouterCore } from './routerCore.js';

/** Which legacy order shapes the /v1 interface can carry (decided in {@link legacyEligible}). */
const LEGACY_QUOTE = 'IDR';

/** The legacy interface trades IDR pairs only. */
export function legacyPairOk(symbol: string): boolean {
  try {
    return splitSymbol(symbol).quote === LEGACY_QUOTE;
  } catch {
    return false;
  }
}

/**
 * Whether an order can be carried by /v1 create: an IDR pair, LIMIT (GTC, no iceberg, no STP
 * choice, since /v1 has no field for them) or MARKET with a base quantity. A market BUY is refused
 * here because /v1 does not say whether its `quantity` is base or rupiah for a buy.
 */
export function legacyEligible(o: Pick<PlaceIntent, 'symbol' | 'orderType' | 'side' | 'timeInForce' | 'icebergQty' | 'stpMode' | 'quantity' | 'quoteOrderQty' | 'price'>, info?: ReadonlyMap<string, SymbolInfo>): boolean {
  if (!legacyPairOk(o.symbol)) return false;
  if (info && info.size > 0 && !info.has(o.symbol)) return false;
  if (o.quantity === undefined || o.quoteOrderQty !== undefined || o.icebergQty !== undefined || o.stpMode !== undefined) return false;
  if (o.orderType === 'LIMIT') return o.price !== undefined && (o.timeInForce === undefined || o.timeInForce === 'GTC');
  if (o.orderType === 'MARKET') return o.side === 'SELL';
  return false;
}

/** Sends a placement on /v1; an answer without an orderId leaves the order UNKNOWN. */
export async function placeLegacy(core: RouterCore, o: OrderRecord, failed: (err: unknown) => void): Promise<void> {
  const legacy = core.legacy;
  if (!legacy || o.quantity === undefined) return;
  core.stats.legacyRequests++;
  try {
    const ack = await legacy.createOrder({
      symbol: o.symbol,
      side: o.side,
      type: o.orderType === 'MARKET' ? 'MARKET' : 'LIMIT',
      quantity: o.quantity,
      ...(o.price !== undefined && o.orderType !== 'MARKET' ? { price: o.price } : {}),
    });
    if (ack.orderId !== undefined) core.tracker.attachOrderId(o.clientId, ack.orderId, 'legacy');
    else core.tracker.markUnknown(o.clientId, 'legacy create answered without an orderId');
  } catch (err) {
    failed(err);
  }
}

/** Looks for an UNKNOWN legacy order among the legacy active orders (same side, price, quantity, not tracked). */
export async function findLegacyActive(core: RouterCore, o: OrderRecord): Promise<void> {
  const legacy = core.legacy;
  if (!legacy || o.quantity === undefined) return;
  try {
    const active = await legacy.activeOrders();
    const match = active.find(
      (v) =>
        v.symbol === o.symbol &&
        v.side === o.side &&
        v.quantity.eq(o.quantity ?? v.quantity) &&
        (o.orderType === 'MARKET' || o.price === undefined || v.price.eq(o.price)) &&
        v.time >= core.exchangeTime(o.sentAt ?? o.createdAt) - 2000 &&
        !core.tracker.byOrderId(v.orderId),
    );
    if (match) {
      core.lookups.settled(o.clientId);
      core.tracker.attachOrderId(o.clientId, match.orderId, 'legacy-reconcile');
      core.tracker.applyOrder(orderOfLegacy(match, o), 'legacy-reconcile');
    } else {
      core.lookupUnsettled(o.clientId);
    }
  } catch (err) {
    core.o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'legacy active-order lookup failed');
    core.lookupUnsettled(o.clientId, err);
  }
}

/** Refreshes a known order over /v1 (the open API is down). */
export async function refreshLegacy(core: RouterCore, o: OrderRecord, orderId: string): Promise<void> {
  if (!core.legacy || !legacyPairOk(o.symbol)) return;
  const v = await core.legacy.getOrder(orderId);
  core.tracker.applyOrder(orderOfLegacy(v, o), 'legacy-poll');
}

/** Cancels a known order over /v1 (the open API is down), then refreshes it. */
export async function cancelLegacy(core: RouterCore, o: OrderRecord, orderId: string): Promise<void> {
  const legacy = core.legacy;
  if (!legacy) return;
  core.stats.legacyRequests++;
  try {
    await legacy.cancelOrder(orderId);
    core.cancelDone(o.clientId);
    await core.ops.refreshOrder(o);
  } catch (err) {
    // A refusal (the order is no longer open: an earlier cancel whose answer was lost took
    // effect, or it filled) settles only by looking; unrefreshed, the poll loop would re-send
    // the cancel forever, spending the legacy rate limit, until a stream report happened by.
    await settleFailedCancel(core, o, err, 'legacy cancel');
  }
}

/** One /v1 "cancel selected" call for several orders (kinder to its 60/min limit), then a refresh of each. */
export async function cancelSelectedLegacy(core: RouterCore, orders: readonly OrderRecord[]): Promise<void> {
  const legacy = core.legacy;
  if (!legacy) return;
  core.stats.legacyRequests++;
  try {
    await legacy.cancelOrders(orders.map((o) => o.orderId ?? ''));
    for (const o of orders) core.cancelDone(o.clientId);
  } catch (err) {
    core.o.log.warn({ err: errInfo(err) }, 'legacy cancel-selected failed');
  }
  for (const o of orders) await core.serialised(o.clientId, () => core.ops.refreshOrder(o));
}

/**
 * A /v1 status word as an order status. The spec shows only `active` (order list) and
 * `fulfilled` (order detail). Only words that say the order ended end it; any other word is read
 * from the quantities, because taking a live order for cancelled would stop tracking it (no
 * cancel retry, no fills) while it can still fill. A wrong "live" is corrected by the next
 * open-API refresh.
 */
function statusOfLegacy(status: string, filled: Decimal, quantity: Decimal): OrderStatusName {
  switch (status.toLowerCase()) {
    case 'fulfilled':
    case 'filled':
      return 'FILLED';
    case 'cancelled':
    case 'canceled':
      return 'CANCELED';
    case 'rejected':
      return 'REJECTED';
    case 'expired':
      return 'EXPIRED';
    default:
      if (quantity.gt(0) && filled.gte(quantity)) return 'FILLED';
      return filled.gt(0) ? 'PARTIALLY_FILLED' : 'NEW';
  }
}

/** A legacy order view as an open-API order snapshot, so the tracker has one input shape. */
function orderOfLegacy(v: LegacyOrderView, o: OrderRecord): Order {
  const filled = v.quantity.minus(v.availableQuantity);
  const status = statusOfLegacy(v.status, filled, v.quantity);
  return {
    orderId: v.orderId,
    clientId: o.clientId,
    symbol: o.symbol,
    side: v.side,
    type: v.type,
    status,
    price: v.price,
    origQty: v.quantity,
    origQuoteQty: v.price.mul(v.quantity),
    executedQty: filled,
    executedPrice: v.price,
    // The legacy view has no executed quote amount; the tracker keeps the larger of what it knows.
    executedQuoteQty: filled.mul(v.price),
    stopPrice: v.price.mul(0),
    icebergQty: v.price.mul(0),
    createTime: v.time,
  };
}
