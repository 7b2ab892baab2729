/**
 * The verdict on one intent before it reaches a venue: the one decision type of the order path.
 * The risk checker returns it (with its reason codes: src/risk/types.ts), the pipeline journals
 * and counts it, and the strategy runner acts on it (sends the intent, or the adjusted one, or
 * tells the strategy why not).
 */
import type { PlaceIntent } from './intents.js';

/** The intent passes as it is. */
export interface IntentAccept {
  readonly kind: 'accept';
}

/** The intent passes after rounding (risk mode 'adjust'); `intent` is what must be sent. */
export interface IntentAdjust {
  readonly kind: 'adjust';
  readonly intent: PlaceIntent;
  /** Which fields were rounded, e.g. ['price', 'quantity']. */
  readonly fields: readonly string[];
}

/** The intent is refused. `message` names the field and its value. */
export interface IntentReject {
  readonly kind: 'reject';
  /** A machine-readable reason (the risk checker's codes, or the pipeline's own: TRADING_HALTED, JOURNAL_FAILED, ...). */
  readonly reason: string;
  readonly message: string;
}

/** Accept, adjust or reject. */
export type IntentDecision = IntentAccept | IntentAdjust | IntentReject;
