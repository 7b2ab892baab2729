/**
 * Where accepted intents go. Live: the order router (open API, legacy fallback).
 * Paper and backtest: the simulated matching engine. Strategies cannot tell the difference:
 * results come back on the bus as orderUpdate and fill events.
 */
import type { Intent } from './intents.js';

/** An execution venue. */
export interface Venue {
  /** Name for logs and reports (e.g. 'open-api', 'sim'). */
  readonly name: string;
  /** Sends an intent the risk checker accepted. Never throws for exchange failures: they become events. */
  submit(intent: Intent): void;
}
