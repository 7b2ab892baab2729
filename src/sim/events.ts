/**
 * Events the engine emits for every state change, in the order they happen. Decimal fields are
 * exact canonical decimal strings (no exponent, no trailing zeros: the form of Decimal#toFixed()),
 * so the same inputs give byte-identical JSON.
 */
import type {
  ExecutionTypeName,
  ExpiryReasonName,
  OrderSideName,
  OrderStatusName,
  OrderTypeName,
  RejectReasonName,
  TimeInForceName,
} from '../core/enums.js';

/** executionReport with every field of the user data stream (wire keys) plus the owning account. */
export interface ExecutionReportEvent {
  readonly type: 'executionReport';
  readonly accountId: string;
  readonly e: 'executionReport';
  /** Event time. */
  readonly E: number;
  readonly s: string;
  /** Client order id. */
  readonly c: string;
  readonly S: OrderSideName;
  readonly o: OrderTypeName;
  readonly f: TimeInForceName;
  readonly q: string;
  readonly p: string;
  readonly P: string;
  readonly F: string;
  /** Original client order id of the order being canceled ('' otherwise). */
  readonly C: string;
  readonly x: ExecutionTypeName;
  readonly X: OrderStatusName;
  readonly r: RejectReasonName;
  /** Order id. */
  readonly i: string;
  readonly l: string;
  readonly z: string;
  readonly L: string;
  readonly n: string;
  readonly N: string | null;
  readonly T: number;
  /** Trade id, -1 when none. */
  readonly t: number;
  readonly w: boolean;
  readonly m: boolean;
  readonly O: number;
  readonly Z: string;
  readonly Y: string;
  readonly eR: ExpiryReasonName;
  /** OCO list id, -1 when none (not a spec field; kept for trackers). */
  readonly g: number;
}

/**
 * An exact amount as a count of 10^-scale units: a safe-integer number, or a bigint for amounts
 * the engine holds beyond 2^53 (a bigint may also hold a small value; read both kinds).
 */
export type ScaledAmount = number | bigint;

/**
 * The executionReport of {@link ExecutionReportEvent} with its decimals as the engine's scaled
 * integers instead of text, for a listener subscribed with `{ reports: 'scaled' }` (the backtest's
 * SimVenue builds its Decimals straight from them: no text is written and parsed back per fill).
 * Every other field is the wire report's, with the same value. The decimal fields, each an exact
 * count of 10^-scale units: prices (`p`, `P`, `L`) at `priceScale`, quantities (`q`, `F`, `l`,
 * `z`) at `qtyScale`, quote amounts (`Z`, `Y`) at `priceScale + qtyScale`, the commission (`n`)
 * at `feeScale`. Fields the wire report gives as '0' (no fill: `l`, `L`, `n`, `Y`) are 0 here.
 * `wireReport` (views.ts) formats one into the wire report the engine would have built.
 */
export interface ScaledExecutionReport {
  readonly type: 'scaledExecutionReport';
  readonly accountId: string;
  /** Event time. */
  readonly E: number;
  readonly s: string;
  /** Client order id. */
  readonly c: string;
  readonly S: OrderSideName;
  readonly o: OrderTypeName;
  readonly f: TimeInForceName;
  /** Decimals of the symbol's prices. */
  readonly priceScale: number;
  /** Decimals of the symbol's quantities. */
  readonly qtyScale: number;
  /** Decimals of the commission's asset (0 when there is no fill). */
  readonly feeScale: number;
  readonly q: number;
  readonly p: number;
  readonly P: number;
  readonly F: number;
  /** Original client order id of the order being canceled ('' otherwise). */
  readonly C: string;
  readonly x: ExecutionTypeName;
  readonly X: OrderStatusName;
  readonly r: RejectReasonName;
  /** Order id. */
  readonly i: string;
  readonly l: number;
  readonly z: number;
  readonly L: number;
  readonly n: ScaledAmount;
  readonly N: string | null;
  readonly T: number;
  /** Trade id, -1 when none. */
  readonly t: number;
  readonly w: boolean;
  readonly m: boolean;
  readonly O: number;
  readonly Z: ScaledAmount;
  readonly Y: ScaledAmount;
  readonly eR: ExpiryReasonName;
  /** OCO list id, -1 when none. */
  readonly g: number;
}

/** outboundAccountPosition: balances of the assets that changed in one operation. */
export interface AccountPositionEvent {
  readonly type: 'outboundAccountPosition';
  readonly accountId: string;
  readonly e: 'outboundAccountPosition';
  readonly E: number;
  /** Maker and taker commission rates in bips; buyer and seller rates are 0 (the engine charges only maker/taker). */
  readonly m: number;
  readonly t: number;
  readonly b: number;
  readonly s: number;
  /** Can trade, can withdraw, can deposit. */
  readonly T: boolean;
  readonly W: boolean;
  readonly D: boolean;
  /** Time of last account update. */
  readonly u: number;
  readonly B: readonly { readonly a: string; readonly f: string; readonly l: string }[];
}

/** A public trade (own or replayed). Order ids are '0' for replayed liquidity. */
export interface TradeEvent {
  readonly type: 'trade';
  readonly symbol: string;
  readonly id: number;
  readonly price: string;
  readonly qty: string;
  readonly buyerOrderId: string;
  readonly sellerOrderId: string;
  readonly isBuyerMaker: boolean;
  readonly time: number;
}

/** A change of the visible book: U..u consecutive with the previous event's u + 1; absolute level quantities. */
export interface DepthDiffEvent {
  readonly type: 'depthUpdate';
  readonly symbol: string;
  readonly E: number;
  readonly U: number;
  readonly u: number;
  readonly b: readonly (readonly [string, string])[];
  readonly a: readonly (readonly [string, string])[];
}

/** OCO list status change (the user data stream's listStatus shape). */
export interface ListStatusEvent {
  readonly type: 'listStatus';
  readonly accountId: string;
  readonly e: 'listStatus';
  readonly E: number;
  readonly s: string;
  readonly g: number;
  readonly c: 'OCO';
  readonly l: 'EXEC_STARTED' | 'ALL_DONE';
  readonly L: 'EXECUTING' | 'ALL_DONE';
  readonly r: RejectReasonName;
  readonly C: string;
  readonly T: number;
  readonly O: readonly { readonly s: string; readonly i: string; readonly c: string }[];
}

/** The reference price of a symbol changed. */
export interface ReferencePriceEvent {
  readonly type: 'referencePrice';
  readonly symbol: string;
  readonly referencePrice: string | null;
  readonly time: number;
}

/** Every engine event. */
export type EngineEvent =
  | ExecutionReportEvent
  | AccountPositionEvent
  | TradeEvent
  | DepthDiffEvent
  | ListStatusEvent
  | ReferencePriceEvent;

/** A synchronous event listener. */
export type EngineListener = (event: EngineEvent) => void;

/** Every engine event but the executionReport: what both kinds of listener receive alike. */
export type NonReportEvent = Exclude<EngineEvent, ExecutionReportEvent>;

/** The events of a listener subscribed with `{ reports: 'scaled' }`: executionReports in scaled form. */
export type ScaledEngineEvent = NonReportEvent | ScaledExecutionReport;

/** A synchronous listener of {@link ScaledEngineEvent}s. */
export type ScaledEngineListener = (event: ScaledEngineEvent) => void;

/** Options of `MatchingEngine.subscribe`. */
export interface SubscribeOptions {
  /**
   * False: deliver only account events (executionReport, outboundAccountPosition, listStatus), so
   * an engine whose listeners all say so builds no trade, depthUpdate or referencePrice events.
   * Default true.
   */
  readonly marketData?: boolean;
  /**
   * False: no outboundAccountPosition events, so an engine whose listeners all say so (and that
   * buffers nothing) builds none (a venue that reads only executionReports). Default true.
   */
  readonly accountPositions?: boolean;
  /**
   * 'scaled': executionReports arrive as {@link ScaledExecutionReport} (scaled integers, no text),
   * and while no buffer or other listener wants the wire form, its strings are not built. The
   * listener is then a {@link ScaledEngineListener}. Default 'wire'.
   */
  readonly reports?: 'wire' | 'scaled';
}

/** {@link SubscribeOptions} of a listener that takes scaled executionReports. */
export interface ScaledSubscribeOptions extends SubscribeOptions {
  readonly reports: 'scaled';
  /**
   * True: the listener reads a report only during its call and keeps no reference to it, so while
   * every scaled listener says so the engine may hand out one report object again and again,
   * overwritten for the next report (a backtest's SimVenue builds its own events from the fields:
   * one object less per report, ~1.6 MB a run of the with-orders bench). A report delivered while
   * another is still being delivered (a listener called back into the engine) is a new object.
   * Default false.
   */
  readonly transientReports?: boolean;
}

/** {@link SubscribeOptions} of a listener that takes wire executionReports (the default). */
export interface WireSubscribeOptions extends SubscribeOptions {
  readonly reports?: 'wire';
}
