/**
 * What a result says about a strategy's orders (how many, filled, cancelled, rejected, the filled
 * share of the quantity ordered), kept as running counts: an order is folded in when it ends, so a
 * long run holds a record only for the orders still open, not one for every order it placed.
 */
import type { Decimal } from '../core/decimal.js';
import { DecimalSum } from '../core/decimalSum.js';
import type { TrackedOrderStateName } from '../bus/events.js';

/** An order as the counts see it when it ends. */
export interface CountedOrder {
  readonly qty: Decimal | undefined;
  readonly cumQty: Decimal;
  readonly state: TrackedOrderStateName;
}

/** Running counts of ended orders. */
export class OrderCounts {
  orders = 0;
  withFill = 0;
  filled = 0;
  canceled = 0;
  rejected = 0;
  /** Ordered and filled quantity over the orders that stated a quantity (exact sums). */
  readonly qtyOrdered = new DecimalSum();
  readonly qtyFilled = new DecimalSum();

  /** Counts one order (an ended one, or one still open when the result is built). */
  add(o: CountedOrder): void {
    this.orders++;
    // Sign tests instead of gt(0): no Decimal(0) built per order.
    if (o.cumQty.isPositive() && !o.cumQty.isZero()) this.withFill++;
    if (o.state === 'FILLED') this.filled++;
    else if (o.state === 'CANCELED' || o.state === 'EXPIRED') this.canceled++;
    else if (o.state === 'REJECTED') this.rejected++;
    if (o.qty !== undefined && o.qty.isPositive() && !o.qty.isZero()) {
      this.qtyOrdered.add(o.qty);
      this.qtyFilled.add(o.cumQty);
    }
  }

  /** Adds another set of counts (the total over strategies). */
  merge(c: OrderCounts): void {
    this.orders += c.orders;
    this.withFill += c.withFill;
    this.filled += c.filled;
    this.canceled += c.canceled;
    this.rejected += c.rejected;
    this.qtyOrdered.addSum(c.qtyOrdered);
    this.qtyFilled.addSum(c.qtyFilled);
  }

  /** A copy with `open` orders (still open at the end) added. */
  withOpen(open: readonly CountedOrder[]): OrderCounts {
    const c = new OrderCounts();
    c.merge(this);
    for (const o of open) c.add(o);
    return c;
  }
}
