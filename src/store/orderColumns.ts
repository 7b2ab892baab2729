/**
 * An order record as the ledger's orders row holds it: the parameters of the row's INSERT and
 * UPDATE, the record after a patch, and which columns a patch changed. Records are built field by
 * field, never as `{ ...o, field }`: on Node 20 each property added after a spread makes a new
 * hidden class (~0.6 KB each, ~6 KB for an order record), and records of many shapes send the code
 * that reads them megamorphic.
 */
import type { Decimal } from '../core/decimal.js';
import { scrubSecretText } from '../core/secretScrub.js';
import type { OrderRecord } from './records.js';

/** Fields of an order that may change after it was journalled. */
export type OrderPatch = { -readonly [K in 'orderId' | 'state' | 'cumQty' | 'cumQuoteQty' | 'sentAt' | 'reason' | 'venue']?: OrderRecord[K] };

/** Free text for a row (an exchange's reject message, a risk rule's words): secret values scrubbed. */
export function scrubbed(text: string | null | undefined): string | null {
  return text === undefined || text === null ? null : scrubSecretText(text);
}

const str = (d: Decimal | undefined): string | null => (d === undefined ? null : d.toFixed());

/** Two decimals that the row would hold as different text (the same object is the same text). */
const decimalDiffers = (a: Decimal, b: Decimal): boolean => a !== b && a.toFixed() !== b.toFixed();

/**
 * Columns of an order that an update may change, and whether two records hold different values
 * in it (as the row's text: a reason as scrubbed); updated_at, last, always changes.
 */
export const UPDATE_COLUMNS: readonly { readonly column: string; readonly differs: (a: OrderRecord, b: OrderRecord) => boolean }[] = [
  { column: 'order_id', differs: (a, b) => a.orderId !== b.orderId },
  { column: 'state', differs: (a, b) => a.state !== b.state },
  { column: 'cum_qty', differs: (a, b) => decimalDiffers(a.cumQty, b.cumQty) },
  { column: 'cum_quote_qty', differs: (a, b) => decimalDiffers(a.cumQuoteQty, b.cumQuoteQty) },
  { column: 'sent_at', differs: (a, b) => a.sentAt !== b.sentAt },
  { column: 'reason', differs: (a, b) => a.reason !== b.reason && scrubbed(a.reason) !== scrubbed(b.reason) },
  { column: 'venue', differs: (a, b) => a.venue !== b.venue },
  { column: 'updated_at', differs: () => true },
];

/**
 * The columns (bits of UPDATE_COLUMNS) whose values differ between two records, updated_at always. An
 * UPDATE rewrites the index entries of every indexed column it sets, equal value or not: writing
 * order_id with the send (an order's sentAt, before its request) cost an index page of WAL more
 * than the row's one.
 */
export function changedColumns(before: OrderRecord, after: OrderRecord): number {
  let mask = 0;
  for (let i = 0; i < UPDATE_COLUMNS.length; i++) if ((UPDATE_COLUMNS[i] as (typeof UPDATE_COLUMNS)[number]).differs(before, after)) mask |= 1 << i;
  return mask;
}

/** `before` with the fields `patch` defines and `updatedAt` = `ts`. */
export function patchedOrder(before: OrderRecord, patch: OrderPatch, ts: number): OrderRecord {
  return {
    clientId: before.clientId,
    strategy: before.strategy,
    intentId: before.intentId,
    symbol: before.symbol,
    side: before.side,
    orderType: before.orderType,
    timeInForce: before.timeInForce,
    price: before.price,
    quantity: before.quantity,
    quoteOrderQty: before.quoteOrderQty,
    stopPrice: before.stopPrice,
    icebergQty: before.icebergQty,
    stpMode: before.stpMode,
    venue: patch.venue ?? before.venue,
    orderId: patch.orderId ?? before.orderId,
    state: patch.state ?? before.state,
    cumQty: patch.cumQty ?? before.cumQty,
    cumQuoteQty: patch.cumQuoteQty ?? before.cumQuoteQty,
    createdAt: before.createdAt,
    sentAt: patch.sentAt ?? before.sentAt,
    updatedAt: ts,
    reason: patch.reason ?? before.reason,
  };
}

/** An order as its row reads back: exactly the journalled fields, the reason scrubbed. */
export function asStored(o: OrderRecord): OrderRecord {
  return patchedOrder(o, o.reason === undefined ? {} : { reason: scrubSecretText(o.reason) }, o.updatedAt);
}

/** The named parameters of an orders row. */
export function orderParams(o: OrderRecord): Record<string, unknown> {
  return {
    client_id: o.clientId,
    strategy: o.strategy,
    intent_id: o.intentId,
    symbol: o.symbol,
    side: o.side,
    order_type: o.orderType,
    time_in_force: o.timeInForce ?? null,
    price: str(o.price),
    quantity: str(o.quantity),
    quote_order_qty: str(o.quoteOrderQty),
    stop_price: str(o.stopPrice),
    iceberg_qty: str(o.icebergQty),
    stp_mode: o.stpMode ?? null,
    venue: o.venue,
    order_id: o.orderId ?? null,
    state: o.state,
    cum_qty: o.cumQty.toFixed(),
    cum_quote_qty: o.cumQuoteQty.toFixed(),
    created_at: o.createdAt,
    sent_at: o.sentAt ?? null,
    updated_at: o.updatedAt,
    reason: scrubbed(o.reason),
  };
}
