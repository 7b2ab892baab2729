/**
 * Resolution of orders whose placement outcome is unknown (5XX, timeout, a crash before the
 * answer): they are reconciled by clientId (by shape for legacy orders) before anything else is
 * sent for them, on either interface.
 *
 * "Not placed" is concluded only when the order is absent after the settle time: a signed open
 * API request older than its recvWindow is refused by the server, so once `sentAt + settleMs` has
 * passed (settleMs > recvWindow) an absent order can no longer appear.
 *
 * A legacy order (no clientId on /v1) found by shape over the open API is linked to our order
 * (its exchange orderId attached and journalled) before its snapshot is applied: unlinked, its
 * fills had no order to land on and it stayed UNKNOWN, looked up again on every pass. Repeated
 * lookups that settle nothing back off (lookupBackoff.ts).
 */
import type { Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import { findLegacyActive, refreshLegacy } from './legacyFallback.js';
import { isTerminal } from './orderState.js';
import { errInfo, type RouterCore } from './routerCore.js';

/**
 * Finds out what happened to an order (by clientId on the open API, by shape on the legacy
 * one) and applies it. An order proven absent is retried when young enough, else REJECTED.
 */
export async function resolve(core: RouterCore, clientId: string, mayRetry: boolean): Promise<void> {
  const o = core.tracker.get(clientId);
  if (!o || isTerminal(o.state)) return;
  if (o.orderId !== undefined) {
    await refreshOrder(core, o);
    return;
  }
  if (o.sentAt === undefined) {
    // Journalled, never sent (the process died between journal and send).
    core.tracker.markRejected(clientId, 'NOT_SENT: the request never left the process', 'reconcile');
    return;
  }
  if (!core.breaker.closed) {
    // The open API is needed to prove an order absent. A legacy order can still be found
    // among the active orders; absence there proves nothing (it may have filled already).
    if (o.venue === 'legacy') await findLegacyActive(core, o);
    return;
  }
  const found = await findByClientId(core, o);
  if (found === 'error') return;
  if (found) {
    core.lookups.settled(clientId);
    if (found.clientId !== o.clientId) linkLegacy(core, o, found);
    core.ops.applyRest(found, 'reconcile');
    if (core.cancelWanted.has(clientId)) await core.ops.cancel(clientId);
    return;
  }
  const now = core.now();
  if (now < o.sentAt + core.settleMs) {
    core.lookupUnsettled(clientId); // may still appear; checked again later
    return;
  }
  core.lookups.settled(clientId);
  // Legacy requests carry a nonce, not a timestamp window: absence is not proof enough to re-send.
  // An earlier run's order is not sent again either: the strategy instance that wanted it is gone,
  // and the new one (which cannot see it) places its own orders.
  if (mayRetry && o.venue !== 'legacy' && !core.earlierRun.has(clientId) && now - o.createdAt < core.maxRetryAgeMs && !core.cancelWanted.has(clientId)) {
    core.stats.retries++;
    core.o.log.info({ clientId }, 'order proven not placed; sending it again');
    core.tracker.markRetry(clientId);
    await core.ops.place(clientId);
    return;
  }
  core.tracker.markRejected(clientId, 'NOT_PLACED: absent from the exchange after the settle time', 'reconcile');
}

/** Looks an order up by clientId (open API), or by shape for legacy orders. */
async function findByClientId(core: RouterCore, o: OrderRecord): Promise<Order | undefined | 'error'> {
  try {
    const list = await core.call(() =>
      // Exchange time: with our clock ahead of the exchange's, a window in local time would miss
      // the order, prove it "absent" and send it a second time.
      core.open.allOrders({ symbol: o.symbol, type: 'ALL', startTime: core.exchangeTime(o.createdAt) - 5000, limit: 1000 }),
    );
    const byId = list.find((x) => x.clientId === o.clientId);
    if (byId || o.venue !== 'legacy') return byId;
    // Legacy orders carry no clientId: match side, price, quantity and time among orders no one tracks.
    return list.find(
      (x) =>
        x.side === o.side &&
        x.type === o.orderType &&
        (o.quantity === undefined || x.origQty.eq(o.quantity)) &&
        (o.price === undefined || o.orderType === 'MARKET' || x.price.eq(o.price)) &&
        x.createTime >= core.exchangeTime(o.sentAt ?? o.createdAt) - 2000 &&
        !core.tracker.byOrderId(x.orderId),
    );
  } catch (err) {
    core.o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'lookup by clientId failed; will retry');
    core.lookupUnsettled(o.clientId, err);
    return 'error';
  }
}

/** Links a legacy order found by shape to ours: its exchange orderId, journalled, so its reports and fills land on it. */
function linkLegacy(core: RouterCore, o: OrderRecord, x: Order): void {
  core.o.ledger.journal(core.now(), 'legacyLink', { clientId: o.clientId, orderId: x.orderId });
  core.o.log.info({ clientId: o.clientId, orderId: x.orderId, status: x.status }, 'legacy order found by shape; linked to our order');
  core.tracker.attachOrderId(o.clientId, x.orderId, 'legacy-link');
}

/** Refreshes a known order from the open API (or the legacy one while the breaker is open). */
export async function refreshOrder(core: RouterCore, o: OrderRecord): Promise<void> {
  const orderId = o.orderId;
  if (orderId === undefined) return;
  try {
    if (core.breaker.closed) {
      core.ops.applyRest(await core.call(() => core.open.orderDetail({ orderId, clientId: o.clientId })), 'poll');
    } else {
      await refreshLegacy(core, o, orderId);
    }
  } catch (err) {
    core.o.log.warn({ clientId: o.clientId, err: errInfo(err) }, 'order refresh failed');
  }
}
