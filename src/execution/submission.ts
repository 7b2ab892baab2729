/**
 * Sending orders and cancels: the open API first, the legacy /v1 interface while the open API
 * circuit is open. Every order is journalled (PENDING, with its clientId) before any request, and
 * `sentAt` is written before the request goes out (in the gate's commit for an order the open API
 * takes at once, see OrderRouter.journalGate), so a crash at any point leaves a ledger that names it. A placement whose outcome is unknown (5XX, timeout) leaves the order UNKNOWN, never
 * failed: resolution (unknownOutcome.ts) finds out what happened before anything else is sent.
 */
import { AuthenticationError, ExchangeError, NetworkError, RateLimitedError, UnknownOutcomeError, ValidationError } from '../core/errors.js';
import type { OrderRecord, OrderVenueName } from '../store/records.js';
import { cancelLegacy, legacyEligible, legacyPairOk, placeLegacy } from './legacyFallback.js';
import { isTerminal } from './orderState.js';
import { errInfo, settleFailedCancel, type RouterCore } from './routerCore.js';

/** Sends a PENDING order on the venue the breaker allows, or closes it when none can carry it. */
export async function place(core: RouterCore, clientId: string): Promise<void> {
  const o = core.tracker.get(clientId);
  if (!o || o.state !== 'PENDING') return;
  const venue = chooseVenue(core, o);
  if (venue === undefined) {
    core.tracker.markRejected(clientId, 'VENUE_UNAVAILABLE: open API circuit open and the order cannot go to the legacy interface');
    return;
  }
  try {
    core.tracker.markSent(clientId, venue);
  } catch (err) {
    // sentAt must be journalled before the request (a restart would otherwise take a sent order
    // for one never sent): without it nothing goes out, and the order is closed, not left PENDING.
    const info = errInfo(err);
    core.o.log.error({ clientId, err: info }, 'could not journal the send; order not sent');
    core.tracker.notSent(clientId, `NOT_SENT: the ledger could not record the send (${info.message})`);
    return;
  }
  if (venue === 'open') await placeOpen(core, o);
  else await placeLegacy(core, o, (err) => placementFailed(core, o, err, 'legacy'));
}

function chooseVenue(core: RouterCore, o: OrderRecord): OrderVenueName | undefined {
  if (core.breaker.closed) return 'open';
  if (core.legacy && legacyEligible(o, core.o.symbolInfo)) return 'legacy';
  return undefined;
}

async function placeOpen(core: RouterCore, o: OrderRecord): Promise<void> {
  core.stats.openRequests++;
  try {
    const x = await core.open.newOrder({
      symbol: o.symbol,
      side: o.side,
      type: o.orderType,
      clientId: o.clientId,
      ...(o.timeInForce !== undefined ? { timeInForce: o.timeInForce } : {}),
      ...(o.quantity !== undefined ? { quantity: o.quantity } : {}),
      ...(o.quoteOrderQty !== undefined ? { quoteOrderQty: o.quoteOrderQty } : {}),
      ...(o.price !== undefined ? { price: o.price } : {}),
      ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
      ...(o.icebergQty !== undefined ? { icebergQty: o.icebergQty } : {}),
      ...(o.stpMode !== undefined ? { selfTradePreventionMode: o.stpMode } : {}),
    });
    core.breaker.recordSuccess();
    core.ops.applyRest(x, 'rest');
  } catch (err) {
    placementFailed(core, o, err, 'open');
  }
}

/** Classifies a placement failure: unknown outcome, definite refusal, or not sent at all. */
function placementFailed(core: RouterCore, o: OrderRecord, err: unknown, via: OrderVenueName): void {
  const info = errInfo(err);
  const tracker = core.tracker;
  const log = core.o.log;
  if (via === 'open') core.noteOpenFailure(err);
  if (err instanceof UnknownOutcomeError) {
    log.warn({ clientId: o.clientId, via, err: info }, 'placement outcome unknown; reconciling before anything else');
    tracker.markUnknown(o.clientId, `${via}: ${err.reason}`);
  } else if (err instanceof NetworkError) {
    // Connection refused before a byte went out: nothing reached the exchange.
    tracker.markRejected(o.clientId, `NETWORK: ${err.message}`);
  } else if (err instanceof RateLimitedError) {
    tracker.markRejected(o.clientId, `RATE_LIMITED: retry after ${err.retryAfterMs} ms`);
  } else if (err instanceof ExchangeError && err.httpStatus >= 500) {
    tracker.markUnknown(o.clientId, `${via}: HTTP ${err.httpStatus}`);
  } else if (err instanceof ExchangeError || err instanceof ValidationError || err instanceof AuthenticationError) {
    log.warn({ clientId: o.clientId, via, err: info }, 'order refused');
    tracker.markRejected(o.clientId, `${err.code}: ${err.message}`);
  } else {
    // A bug or an unexpected failure after the request may have gone out: assume unknown.
    log.error({ clientId: o.clientId, via, err: info }, 'unexpected placement failure; treating outcome as unknown');
    tracker.markUnknown(o.clientId, `${via}: ${info.message}`);
  }
}

/**
 * Cancels a live order: on the open API, or on /v1 while the open API is down when the order's
 * exchange id is known. An order that cannot be named yet is resolved first (resolution honours
 * the wanted cancel); a cancel that did not settle is tried again by the poll loop.
 */
export async function cancel(core: RouterCore, clientId: string): Promise<void> {
  const o = core.tracker.get(clientId);
  if (!o || isTerminal(o.state)) {
    core.cancelDone(clientId);
    return;
  }
  if (o.state === 'UNKNOWN' || (o.state === 'PENDING' && o.orderId === undefined)) {
    // Cannot cancel what we cannot name yet; resolution comes first and honours cancelWanted.
    await core.ops.resolve(clientId, false);
    return;
  }
  const orderId = o.orderId;
  core.cancelTried.set(clientId, core.now());
  if (core.breaker.closed) {
    core.stats.openRequests++;
    try {
      const x = await core.open.cancelOrder(orderId !== undefined ? { orderId } : { clientId });
      core.breaker.recordSuccess();
      core.ops.applyRest(x, 'cancel');
      core.cancelDone(clientId);
    } catch (err) {
      core.noteOpenFailure(err);
      await settleFailedCancel(core, o, err, 'cancel');
    }
  } else if (core.legacy && orderId !== undefined && legacyPairOk(o.symbol)) {
    await cancelLegacy(core, o, orderId);
  } else {
    core.repeats.write('warn', `${clientId} cancel not possible`, { clientId }, 'cancel not possible now: open API circuit open and the legacy interface cannot name this order');
  }
}
