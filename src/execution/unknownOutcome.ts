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
 *
 * A known order the exchange answers "does not exist" for is closed by the ORDER_LOST rule
 * (lostOrders.ts) once the lookups it names confirm it.
 */
import type { AccountTrade, Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import { findLegacyActive, refreshLegacy } from './legacyFallback.js';
import { isNoSuchOrder, ORDER_LOST } from './lostOrders.js';
import { isTerminal, stateOfStatus } from './orderState.js';
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
    try {
      core.ops.applyRest(found, 'reconcile');
    } catch (err) {
      await cancelUnrecorded(core, clientId, found);
      throw err;
    }
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

/**
 * An order found on the exchange that the ledger could not record (a full disk: the run is
 * stopping). Its wanted cancel goes out all the same, by the exchange's id: the tracker, which
 * writes before it keeps, still cannot name it, and nothing may stay resting for want of disk.
 */
async function cancelUnrecorded(core: RouterCore, clientId: string, found: Order): Promise<void> {
  if (!core.cancelWanted.has(clientId) || isTerminal(stateOfStatus(found.status))) return;
  core.cancelTried.set(clientId, core.now());
  core.stats.openRequests++;
  try {
    await core.call(() => core.open.cancelOrder({ orderId: found.orderId }));
    core.o.log.warn({ clientId, orderId: found.orderId }, 'order cancelled on the exchange; the ledger could not record it (the next start reconciles it)');
  } catch (err) {
    core.o.log.warn({ clientId, orderId: found.orderId, err: errInfo(err) }, 'cancel of an order the ledger could not record failed; tried again');
  }
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
    core.repeats.write('warn', `${o.clientId} lookup failed`, { clientId: o.clientId, err: errInfo(err) }, 'lookup by clientId failed; will retry');
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
      const x = await core.call(() => core.open.orderDetail({ orderId, clientId: o.clientId }));
      core.lost.clear(o.clientId);
      core.ops.applyRest(x, 'poll');
    } else {
      await refreshLegacy(core, o, orderId);
    }
  } catch (err) {
    if (isNoSuchOrder(err)) await noSuchOrder(core, o, orderId);
    else core.repeats.write('warn', `${o.clientId} refresh failed`, { clientId: o.clientId, err: errInfo(err) }, 'order refresh failed');
  }
}

/** The exchange answered "does not exist" for an order we hold as live: one strike of the ORDER_LOST rule (lostOrders.ts). */
async function noSuchOrder(core: RouterCore, o: OrderRecord, orderId: string): Promise<void> {
  const { clientId } = o;
  if (core.lost.of(clientId) === undefined) core.o.log.warn({ clientId, orderId }, 'the exchange says this order does not exist; looking again before closing it as lost');
  if (!core.lost.strike(clientId, core.now())) return;
  // Confirmation, as for an unknown placement: every order of the symbol since it was created.
  const found = await findByClientId(core, o);
  if (found === 'error') return;
  if (found) {
    core.lost.clear(clientId);
    core.ops.applyRest(found, 'reconcile');
    return;
  }
  const before = core.tracker.recordedQty(clientId);
  let trades: readonly AccountTrade[];
  try {
    trades = await core.call(() => core.open.accountTrades({ symbol: o.symbol, orderId, limit: 1000 }));
  } catch (err) {
    core.repeats.write('warn', `${clientId} lost trades`, { clientId, err: errInfo(err) }, 'fetching the trades of an order the exchange does not know failed; asked again later');
    return;
  }
  for (const t of trades) core.tracker.applyTrade(t);
  const cur = core.tracker.get(clientId);
  if (!cur || isTerminal(cur.state) || core.tracker.recordedQty(clientId).gt(before)) {
    // Fills it had not reported: the exchange knew it after all. Recorded, and the rule starts over.
    core.lost.clear(clientId);
    return;
  }
  closeLost(core, cur);
}

/** Closes an order the rule found lost: journal row, error line, EXPIRED with the ORDER_LOST reason. */
function closeLost(core: RouterCore, o: OrderRecord): void {
  const s = core.lost.of(o.clientId);
  const strikes = s?.count ?? 0;
  const spanSec = s === undefined ? 0 : Math.round((s.lastAt - s.firstAt) / 100) / 10;
  const now = core.now();
  const data = { clientId: o.clientId, orderId: o.orderId, strategy: o.strategy, symbol: o.symbol, state: o.state, executedQty: o.cumQty.toFixed(), strikes, spanSec };
  core.o.ledger.journal(now, 'orderLost', data);
  core.o.log.error(data, 'order closed as lost: the exchange does not know it and shows no fill of it beyond those recorded');
  core.stats.lost++;
  core.cancelDone(o.clientId);
  core.lost.clear(o.clientId);
  core.repeats.forget(o.clientId);
  core.tracker.expireLost(o.clientId, `${ORDER_LOST}: the exchange answered "does not exist" ${strikes} times over ${spanSec} s and lists neither the order nor a fill beyond those recorded`);
}
