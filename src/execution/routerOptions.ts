/** Settings of the order router and the shapes it exposes, apart from the router so its parts can share them. */
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Balance, SymbolInfo } from '../core/types.js';
import type { Ledger } from '../store/Ledger.js';
import type { OrderRecord } from '../store/records.js';
import type { BreakerOptions, BreakerState } from './CircuitBreaker.js';
import type { ExecLogger } from './log.js';
import type { LookupBackoffOptions } from './lookupBackoff.js';
import type { LostOrderOptions } from './lostOrders.js';
import type { LegacyOrderPort, OpenOrderPort } from './ports.js';
import type { OrderTracker } from './OrderTracker.js';

/** Router settings. */
export interface OrderRouterOptions {
  readonly open: OpenOrderPort;
  /** Legacy /v1 client adapter; without it there is no fallback. */
  readonly legacy?: LegacyOrderPort;
  readonly tracker: OrderTracker;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly log: ExecLogger;
  /** Symbols of the run (reconciliation scope, legacy eligibility). */
  readonly symbols: readonly string[];
  /** Exchange symbol info by BASE_QUOTE name, when known (order types the symbol allows). */
  readonly symbolInfo?: ReadonlyMap<string, SymbolInfo>;
  readonly breaker?: BreakerOptions;
  /** Time after sending before an absent order is declared not placed; must exceed recvWindow (default 6000). */
  readonly settleMs?: number;
  /** An order proven not placed is sent again only while younger than this (default 10000 ms); else REJECTED. */
  readonly maxRetryAgeMs?: number;
  /** How far back start-up reconciliation looks for account trades (default 24 h). */
  readonly tradeLookbackMs?: number;
  /** Poll period of the background loop (UNKNOWN orders, half-open probe); 0 disables the timer (default 500). */
  readonly pollMs?: number;
  /** Wait for stream fills before fetching them by orderId when REST shows more executed (default 1000 ms). */
  readonly fillGapMs?: number;
  /** A cancel that did not settle (unknown outcome, no usable interface) is tried again after this (default 2000 ms). */
  readonly cancelRetryMs?: number;
  /**
   * Symbols whose orders no user data stream of the run reports (symbol type 2 has none; a type
   * other than the stream's): their live orders are polled, and their fills fetched, instead.
   */
  readonly unstreamedSymbols?: readonly string[];
  /**
   * Check period of the live orders of an unstreamed symbol (default 2000 ms). Each check is one
   * open-orders query per symbol; only the orders it shows changed are then queried one by one.
   */
  readonly orderPollMs?: number;
  /**
   * Check period of each live order of a streamed symbol (default 60000 ms; 0: never), done as
   * for orderPollMs. A stream can stay connected and still lose a report; this bounds how long
   * such a loss goes unseen.
   */
  readonly streamedPollMs?: number;
  /**
   * Exchange time minus local time in ms (the open client's measured offset; default 0). Order
   * lookups filter on the exchange's createTime, so their windows must be in exchange time.
   */
  readonly timeOffsetMs?: () => number;
  /** Pacing of the repeated lookups of an order whose outcome is unknown (defaults: 250 ms doubling to 30 s). */
  readonly lookupBackoff?: LookupBackoffOptions;
  /** When an order the exchange says does not exist is closed as lost (lostOrders.ts; defaults: 3 answers over 5 s). */
  readonly lostOrders?: LostOrderOptions;
  /** Called with every balance snapshot fetched from the exchange (it records them; without it the router does). */
  readonly onBalances?: (balances: readonly Balance[]) => void;
  /** Called when the breaker changes state (the pipeline turns it into a log line / trading state). */
  readonly onBreaker?: (state: BreakerState, why: string) => void;
  /**
   * Called with the error of a task the router runs on its own (a poll, a cancel, a lookup) that
   * threw past its own handling: nothing else could catch it, so the run's owner stops on it
   * (RunFailure). Without it the error is logged.
   */
  readonly onTaskFailure?: (err: unknown, where: string) => void;
}

/** What the order-count filters read of an open order the bot did not place. */
export interface UntrackedOrder {
  readonly symbol: string;
  readonly orderType: OrderRecord['orderType'];
  readonly icebergQty: Decimal;
}

/** Counters for the status line and tests. */
export interface RouterStats {
  openRequests: number;
  legacyRequests: number;
  reconciliations: number;
  retries: number;
  /** Orders closed as lost (the exchange does not know them). */
  lost: number;
}
