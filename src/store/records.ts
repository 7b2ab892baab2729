/**
 * Rows of the ledger as the rest of the program sees them. Money and quantities are Decimal in
 * memory and TEXT in SQLite, so a value read back is bit-for-bit the value written.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderSideName, OrderTypeName, StpModeName, TimeInForceName } from '../core/enums.js';
import type { TradeId } from '../core/tradeId.js';
import type { TrackedOrderStateName } from '../bus/events.js';

/** Which interface an order was sent to (or will be): decides where cancels and reconciliation go. */
export type OrderVenueName = 'open' | 'legacy' | 'sim';

/** One order as the ledger and the tracker hold it, keyed by our clientId. */
export interface OrderRecord {
  readonly clientId: string;
  readonly strategy: string;
  readonly intentId: string;
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly orderType: OrderTypeName;
  readonly timeInForce: TimeInForceName | undefined;
  readonly price: Decimal | undefined;
  readonly quantity: Decimal | undefined;
  readonly quoteOrderQty: Decimal | undefined;
  readonly stopPrice: Decimal | undefined;
  readonly icebergQty: Decimal | undefined;
  readonly stpMode: StpModeName | undefined;
  readonly venue: OrderVenueName;
  readonly orderId: string | undefined;
  readonly state: TrackedOrderStateName;
  readonly cumQty: Decimal;
  readonly cumQuoteQty: Decimal;
  /** Epoch ms when the order was journalled (before the request went out). */
  readonly createdAt: number;
  /** Epoch ms when the placement request was last sent (for the unknown-outcome settle rule). */
  readonly sentAt: number | undefined;
  readonly updatedAt: number;
  /** Last reject/expiry/unknown reason. */
  readonly reason: string | undefined;
}

/** One fill; unique on (orderId, tradeId) so replays and reconciliations never count twice. */
export interface FillRecord {
  readonly clientId: string;
  readonly strategy: string;
  readonly orderId: string;
  readonly symbol: string;
  readonly side: OrderSideName;
  /** Exact digits ({@link TradeId}), stored as TEXT. */
  readonly tradeId: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly quoteQty: Decimal;
  readonly commission: Decimal;
  readonly commissionAsset: string | null;
  readonly isMaker: boolean;
  /** Exchange transaction time, ms. */
  readonly time: number;
  /** Where the fill was learnt: 'stream', 'rest', 'sim'. */
  readonly source: string;
}

/**
 * A fill kept out of the fills table because it contradicts itself, its order or its symbol (a
 * price of 1e29, a negative fee, more filled than ordered). Never delivered to a strategy; the
 * order is reconciled over REST, and the exchange's true version of the trade, once it arrives,
 * is recorded in fills (its key there is still free).
 */
export interface QuarantineRecord {
  readonly ts: number;
  readonly clientId: string;
  readonly orderId: string;
  /** "" for an order snapshot (executed past its quantity, say) rather than a fill. */
  readonly tradeId: string;
  /** Where the fill came from: 'stream', 'rest'. */
  readonly source: string;
  readonly reason: string;
  /** The fill's (or snapshot's) values as received (decimal strings). */
  readonly data: Readonly<Record<string, string | number | boolean | null>>;
}

/** A risk decision on one intent. */
export interface RiskDecisionRecord {
  readonly intentId: string;
  readonly accepted: boolean;
  readonly reason: string | undefined;
  readonly message: string | undefined;
  /** True when the risk checker rounded price/quantity before accepting. */
  readonly adjusted: boolean;
}

/** One state transition of an order. */
export interface TransitionRecord {
  readonly clientId: string;
  readonly ts: number;
  readonly from: TrackedOrderStateName | null;
  readonly to: TrackedOrderStateName;
  readonly source: string;
  readonly detail: string | undefined;
}
