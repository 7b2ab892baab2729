/**
 * What a `kancil run` is started with: exchange addresses, credentials, plugins and timing
 * options (tests shorten the loops).
 */
import type { Logger } from 'pino';
import type { StrategyPlugin } from '../strategy/types.js';
import type { RunConfig } from './runConfig.js';

/** Exchange addresses of a run (the spec's placeholder names). */
export interface RunEndpoints {
  readonly base_url: string;
  readonly market_url: string;
  readonly depth_url?: string;
  readonly stream_url: string;
  readonly stream_url_next?: string;
  readonly stream_url_new?: string;
  readonly ws_api_url?: string;
  readonly legacy_base_url?: string;
}

/** Credentials (from the environment or an in-process sandbox; never from YAML). */
export interface RunCredentials {
  readonly apiKey?: string;
  readonly apiSecret?: string;
  readonly legacyKey?: string;
  readonly legacySecret?: string;
}

/** Options of a run. */
export interface RunSessionOptions {
  readonly config: RunConfig;
  readonly endpoints: RunEndpoints;
  readonly credentials: RunCredentials;
  readonly plugins: ReadonlyMap<string, StrategyPlugin>;
  readonly log: Logger;
  /** Longest wait for the order books before strategies start (default 15 s). */
  readonly bookReadyTimeoutMs?: number;
  /**
   * PRICE_RANGE reference prices: poll period (default 10 s) and the age after which a fetched
   * price is no longer used by the risk gate (default 30 s; the exchange then decides alone).
   */
  readonly referencePrice?: { readonly refreshMs?: number; readonly maxAgeMs?: number };
  /** How often the server-time offset is measured again during the run (default 10 minutes). */
  readonly timeSyncMs?: number;
  /** Aborted when a stop is asked for (SIGINT/SIGTERM) during start-up: the start-up's waits for the exchange end then. */
  readonly stopSignal?: AbortSignal;
  /**
   * Aborted when the books can never come (an in-process sandbox that failed): the wait for them
   * ends then. A signal or a closed stdout does not end it: such a run starts, then stops in order.
   */
  readonly booksSignal?: AbortSignal;
  /** Order router loop timing (tests; defaults: the router's own). */
  readonly router?: { readonly pollMs?: number; readonly cancelRetryMs?: number };
}
