/**
 * The executionReports of each order form a chain: NEW, then fills whose cumulative quantity grows
 * by each fill's last quantity, then a final status. A report whose predecessor has not arrived
 * shows a gap (a report still on its way or lost); the user stream holds it briefly instead of
 * handing a strategy a fill before the fill or acknowledgement that came first at the exchange.
 */
import type { Decimal } from '../../core/decimal.js';
import type { ExecutionReportEvent } from '../../core/marketEvents.js';
import type { OrderStatusName } from '../../core/enums.js';

/** Statuses after which an order has no further report. */
const FINAL: ReadonlySet<OrderStatusName> = new Set<OrderStatusName>(['FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);

/** The cumulative quantity delivered so far per open order. */
export class OrderReportChain {
  readonly #cum = new Map<string, Decimal>();

  /** @param maxOrders orders remembered; the oldest is forgotten first (its next report then looks like a gap once). */
  constructor(private readonly maxOrders = 20_000) {}

  /**
   * Whether a report of `er`'s order came before it at the exchange and has not been delivered:
   * filled quantity it builds on that was never reported, or (for an order not seen yet) anything
   * but its first report. An order placed before the stream connected shows a gap once.
   */
  gap(er: ExecutionReportEvent): boolean {
    const before = er.executionType === 'TRADE' ? er.cumQty.minus(er.lastQty) : er.cumQty;
    const cum = this.#cum.get(keyOf(er));
    if (cum === undefined) return !(er.executionType === 'NEW' || er.executionType === 'REJECTED') || !before.isZero();
    return before.gt(cum);
  }

  /** Notes a delivered report. */
  delivered(er: ExecutionReportEvent): void {
    const key = keyOf(er);
    if (FINAL.has(er.status)) {
      this.#cum.delete(key);
      return;
    }
    const cum = this.#cum.get(key);
    // A late (older) report never moves the chain back.
    if (cum !== undefined && cum.gte(er.cumQty)) return;
    this.#cum.delete(key);
    this.#cum.set(key, er.cumQty);
    if (this.#cum.size > this.maxOrders) {
      const oldest = this.#cum.keys().next().value;
      if (oldest !== undefined) this.#cum.delete(oldest);
    }
  }
}

/** The order's id as the exchange numbers it (every report carries it); the client id otherwise. */
function keyOf(er: ExecutionReportEvent): string {
  return er.orderId !== '' ? `o${er.orderId}` : `c${er.clientId}`;
}
