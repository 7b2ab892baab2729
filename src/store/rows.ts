/**
 * Rows of the ledger's orders and fills tables as SQLite returns them, and their records: shared
 * by the ledger (which writes them) and the read-only reader of the console commands.
 */
import { Decimal } from '../core/decimal.js';
import type { TrackedOrderStateName } from '../bus/events.js';
import type { FillRecord, OrderRecord } from './records.js';

const dec = (s: string | null): Decimal | undefined => (s === null ? undefined : new Decimal(s));

/** An orders row as SQLite returns it. */
export interface OrderRow {
  client_id: string;
  strategy: string;
  intent_id: string;
  symbol: string;
  side: string;
  order_type: string;
  time_in_force: string | null;
  price: string | null;
  quantity: string | null;
  quote_order_qty: string | null;
  stop_price: string | null;
  iceberg_qty: string | null;
  stp_mode: string | null;
  venue: string;
  order_id: string | null;
  state: string;
  cum_qty: string;
  cum_quote_qty: string;
  created_at: number;
  sent_at: number | null;
  updated_at: number;
  reason: string | null;
}

/** A fills row as SQLite returns it. */
export interface FillRow {
  client_id: string;
  strategy: string;
  order_id: string;
  symbol: string;
  side: string;
  trade_id: string;
  price: string;
  qty: string;
  quote_qty: string;
  commission: string;
  commission_asset: string | null;
  is_maker: number;
  time: number;
  source: string;
}


/** The record of an orders row. */
export function fromOrderRow(r: OrderRow): OrderRecord {
  return {
    clientId: r.client_id,
    strategy: r.strategy,
    intentId: r.intent_id,
    symbol: r.symbol,
    side: r.side as OrderRecord['side'],
    orderType: r.order_type as OrderRecord['orderType'],
    timeInForce: (r.time_in_force ?? undefined) as OrderRecord['timeInForce'],
    price: dec(r.price),
    quantity: dec(r.quantity),
    quoteOrderQty: dec(r.quote_order_qty),
    stopPrice: dec(r.stop_price),
    icebergQty: dec(r.iceberg_qty),
    stpMode: (r.stp_mode ?? undefined) as OrderRecord['stpMode'],
    venue: r.venue as OrderRecord['venue'],
    orderId: r.order_id ?? undefined,
    state: r.state as TrackedOrderStateName,
    cumQty: new Decimal(r.cum_qty),
    cumQuoteQty: new Decimal(r.cum_quote_qty),
    createdAt: r.created_at,
    sentAt: r.sent_at ?? undefined,
    updatedAt: r.updated_at,
    reason: r.reason ?? undefined,
  };
}

/** The record of a fills row. */
export function fromFillRow(r: FillRow): FillRecord {
  return {
    clientId: r.client_id,
    strategy: r.strategy,
    orderId: r.order_id,
    symbol: r.symbol,
    side: r.side as FillRecord['side'],
    tradeId: r.trade_id,
    price: new Decimal(r.price),
    qty: new Decimal(r.qty),
    quoteQty: new Decimal(r.quote_qty),
    commission: new Decimal(r.commission),
    commissionAsset: r.commission_asset,
    isMaker: r.is_maker === 1,
    time: r.time,
    source: r.source,
  };
}
