/**
 * The one typed union that flows on the bus. Market and user-data events come from core;
 * the pipeline adds timers, its own order lifecycle events, risk decisions and trading state.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderSideName, OrderTypeName, RejectReasonName } from '../core/enums.js';
import type { DataStatusEvent, MarketEvent, UserDataEvent } from '../core/marketEvents.js';
import type { TradeId } from '../core/tradeId.js';
import type { Intent } from './intents.js';

/** Trading states of the risk checker. */
export const TradingState = { ACTIVE: 'ACTIVE', REDUCING: 'REDUCING', HALTED: 'HALTED' } as const;
/** A trading state name. */
export type TradingStateName = keyof typeof TradingState;

/** Lifecycle states of a tracked order (router/tracker view, venue independent). */
export const TrackedOrderState = {
  PENDING: 'PENDING',
  NEW: 'NEW',
  PARTIALLY_FILLED: 'PARTIALLY_FILLED',
  FILLED: 'FILLED',
  CANCELED: 'CANCELED',
  REJECTED: 'REJECTED',
  EXPIRED: 'EXPIRED',
  UNKNOWN: 'UNKNOWN',
} as const;
/** A tracked order state name. */
export type TrackedOrderStateName = keyof typeof TrackedOrderState;

/** States after which an order never changes again. */
export const TERMINAL_STATES: ReadonlySet<TrackedOrderStateName> = new Set(['FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);

/** True for a state after which an order never changes again. */
export function isTerminalState(s: TrackedOrderStateName): boolean {
  return TERMINAL_STATES.has(s);
}

/** A periodic tick from the run's clock (virtual in backtests). */
export interface TimerEvent {
  readonly type: 'timer';
  readonly E: number;
}

/** An order of a strategy changed state (from REST answers, executionReports or polling). */
export interface OrderUpdateEvent {
  readonly type: 'orderUpdate';
  readonly E: number;
  readonly strategy: string;
  readonly clientId: string;
  readonly orderId: string | undefined;
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly orderType: OrderTypeName;
  readonly state: TrackedOrderStateName;
  readonly price: Decimal | undefined;
  /** Trigger price of a stop or take-profit order, when the publisher knows it (what a buy without a limit price locks by). */
  readonly stopPrice?: Decimal | undefined;
  readonly quantity: Decimal | undefined;
  readonly cumQty: Decimal;
  readonly cumQuoteQty: Decimal;
  readonly reason?: string;
}

/** A fill of one of a strategy's orders. */
export interface FillEvent {
  readonly type: 'fill';
  readonly E: number;
  readonly strategy: string;
  readonly clientId: string;
  readonly orderId: string;
  readonly symbol: string;
  readonly side: OrderSideName;
  /** The exchange's trade id, every digit kept ({@link TradeId}); with orderId it identifies the fill. */
  readonly tradeId: TradeId;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly quoteQty: Decimal;
  readonly commission: Decimal;
  readonly commissionAsset: string | null;
  readonly isMaker: boolean;
}

/** The risk checker refused an intent; reaches the strategy that sent it. */
export interface IntentRejectedEvent {
  readonly type: 'intentRejected';
  readonly E: number;
  readonly strategy: string;
  readonly intent: Intent;
  readonly reason: RejectReasonName | string;
  readonly message: string;
}

/** The trading state changed (limits, operator command, resync). */
export interface TradingStateEvent {
  readonly type: 'tradingState';
  readonly E: number;
  readonly state: TradingStateName;
  readonly reason: string;
}

/** Everything that can flow on the bus. */
export type BusEvent =
  | MarketEvent
  | UserDataEvent
  | DataStatusEvent
  | TimerEvent
  | OrderUpdateEvent
  | FillEvent
  | IntentRejectedEvent
  | TradingStateEvent;

/** The `type` tag of any bus event. */
export type BusEventType = BusEvent['type'];

/** Compile-time exhaustiveness guard for `switch (event.type)`. */
export function assertNever(x: never): never {
  throw new Error(`unhandled event ${JSON.stringify(x)}`);
}
