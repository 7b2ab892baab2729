/**
 * What a notification is about and how much it matters. Critical alerts are never dropped (at most
 * coalesced into one message with others, in order); info has a per-minute budget and what
 * exceeds it is counted and summarised.
 *
 * Part of what is critical is only said in the log (the execution side journals and logs it; the
 * console imports nothing of it): {@link CRITICAL_LOG_MESSAGES} names those lines by their exact
 * message, and a test checks each one still exists in the source.
 */

/** Priorities of a notification. */
export const Priority = { critical: 'critical', info: 'info' } as const;
/** A priority. */
export type PriorityName = keyof typeof Priority;

/** Every kind of notification and its priority. */
export const ALERT_KINDS = {
  /** The run started. */
  started: 'critical',
  /** The run stopped (with the reason and what was left). */
  stopped: 'critical',
  /** A trading-state change of the run or a strategy, with its reason. */
  state: 'critical',
  /** A strategy threw and was stopped. */
  failure: 'critical',
  /** Streams or the REST API unreachable for longer than the outage threshold, and back again. */
  unreachable: 'critical',
  /** An order whose placement outcome is unknown (timeout, 5XX). */
  unknownOrder: 'critical',
  /** Reconciliation found the account and the ledger apart, or could not run. */
  reconcile: 'critical',
  /** The daily loss limit was reached: only reducing orders pass. */
  dailyLoss: 'critical',
  /** An order of unknown outcome settled, or one the exchange does not know closed (reason ORDER_LOST). */
  orderResolved: 'critical',
  fill: 'info',
  reconnects: 'info',
  rejections: 'info',
  daily: 'info',
  suppressed: 'info',
} as const satisfies Record<string, PriorityName>;
/** A notification kind. */
export type AlertKind = keyof typeof ALERT_KINDS;

/** The priority of a kind. */
export function priorityOf(kind: AlertKind): PriorityName {
  return ALERT_KINDS[kind];
}

/**
 * Log lines (exact `msg`, level warn or above) that are critical alerts. The text sent is the
 * message with the line's fields; the fields are already redacted by the logger.
 */
export const CRITICAL_LOG_MESSAGES: Readonly<Record<string, AlertKind>> = {
  'open orders on the account that this bot did not place (left alone)': 'reconcile',
  'reconciliation failed; will retry from the poll loop': 'reconcile',
  'open API circuit open': 'unreachable',
};

/** One notification. */
export interface Notification {
  readonly kind: AlertKind;
  readonly t: number;
  readonly text: string;
  readonly data?: unknown;
  /** When several critical alerts went out as one message: each of them, in order. */
  readonly parts?: readonly Notification[];
}
