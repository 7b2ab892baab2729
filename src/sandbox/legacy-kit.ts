/**
 * What the legacy /v1 routes share: the route type, the host's dependencies, the success envelope
 * and failure, the number and time formats, and the parameter readers. Decisions are listed in
 * legacy-api.ts.
 */
import { createHash } from 'node:crypto';
import { type Clock, Decimal, ExchangeError } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { FaultController } from './faults.js';
import type { Reply, RequestContext } from './http-host.js';
import type { Waiter } from './open-host.js';
import type { LegacyLimiter } from './rate-limits.js';

/** Dependencies of the legacy host. */
export interface LegacyDeps {
  readonly state: ExchangeState;
  readonly faults: FaultController;
  readonly limiter: LegacyLimiter;
  readonly clock: Clock;
  readonly waiter: Waiter;
  /** Fault hook around order placement: throws the 5XX when armed. */
  orderFault(when: 'before' | 'after', path: string): void;
  /** Fault hook around a cancel of one order (submission "2"): throws the 5XX or the connection drop when armed. */
  cancelFault(when: 'before' | 'after', path: string): void;
}

/** The parameters of a request: the decoded X-TC-PAYLOAD object, or none for a public route. */
export type Params = Record<string, unknown>;

/** One legacy route. */
export interface LegacyRoute {
  readonly method: 'GET' | 'POST';
  /** Path, or a prefix ending in '/' for the order book. */
  readonly path: string;
  readonly auth: boolean;
  handle(ctx: RequestContext, account: SandboxAccount | undefined, params: Params, now: number): Reply;
}

/** Throws the failure envelope with this HTTP status, message code and text. */
export function fail(status: number, messageCode: string, text: string): never {
  throw new ExchangeError(status, messageCode, text, '');
}

/** The success envelope. */
export const ok = (messageCode: string, data: unknown): Reply => ({ status: 200, body: { success: true, message_code: messageCode, data } });
/** A Decimal as a JSON number (formatting only). */
export const num = (d: Decimal): number => Number(d.toFixed());
/** A time as ISO 8601. */
export const iso = (t: number): string => new Date(t).toISOString();
/** A stable UUID-shaped id derived from a string. */
export const uuidOf = (s: string): string => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * A positive JSON number parameter as a decimal string. The spec types quantity, price and amount
 * as JSON numbers: a string is refused, not converted. The number's shortest decimal form goes
 * through Decimal, so 5e-7 reads as 0.0000005, not as malformed.
 */
export const positiveNumber = (p: Params, k: string): string => {
  const v = p[k];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(400, 'invalid_parameter', `${k} must be a positive JSON number`);
  return new Decimal(v).toFixed();
};

/** An order id parameter: a positive safe integer. */
export const orderIdOf = (p: Params, k = 'orderId'): number => {
  const v = p[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) fail(400, 'invalid_parameter', `${k} must be a positive integer`);
  return v;
};

