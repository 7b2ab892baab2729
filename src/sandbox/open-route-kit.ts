/**
 * What every open API route shares: the route and handler types, and the small helpers the route
 * groups (open-order-routes.ts, open-account-routes.ts, open-wallet-routes.ts,
 * open-stream-routes.ts) use to read the symbol and the account.
 */
import type { SandboxAccount, SandboxSymbol } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { RequestContext } from './http-host.js';
import type { Security } from './open-auth.js';
import type { EnvelopeStyle } from './open-wire.js';
import { ApiCode, badParam, reqString } from './params.js';
import type { UserStreamRegistry } from './user-streams.js';

/** What a route handler gets. */
export interface RouteInput {
  readonly ctx: RequestContext;
  readonly account: SandboxAccount | undefined;
  readonly now: number;
}

/** A handler result: envelope data, or a complete body that carries no envelope. */
export type RouteResult = { readonly data: unknown } | { readonly bare: unknown };

/** One open API route. */
export interface OpenRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly security: Security;
  readonly style: EnvelopeStyle;
  /** Counts against the account's order rate and carries X-MBX-ORDER-COUNT-* when it succeeds. */
  readonly orders?: number;
  weight(ctx: RequestContext): number;
  handle(input: RouteInput): RouteResult;
}

/** Dependencies of the main-host routes. */
export interface OpenRouteDeps {
  readonly state: ExchangeState;
  readonly streams: UserStreamRegistry;
  /** ws_api_url, for /v1/common/system-config. */
  wsApiUrl(): string;
  /** Fault hook around order placement: throws the 5XX when armed. */
  orderFault(when: 'before' | 'after', path: string): void;
  /** Fault hook around a cancel: throws the 5XX or the connection drop when armed. */
  cancelFault(when: 'before' | 'after', path: string): void;
  /** Fault hook after a placement was answered: rejects the accepted order when armed. */
  rejectFault(accountId: string, orderId: string): void;
  /** Fault hook on an order query: true when the answer must say SYSTEM_PROCESSING. */
  processingFault(orderId: string): boolean;
}

/** The weight of most routes. */
export const one = (): number => 1;

/** The symbol a request names, or the BAD_SYMBOL error. */
export function symbolOf(state: ExchangeState, ctx: RequestContext): SandboxSymbol {
  const name = reqString(ctx, 'symbol');
  const s = state.symbols.get(name);
  if (!s) badParam(ctx, ApiCode.BAD_SYMBOL, 'Invalid symbol.');
  return s;
}

/** The account of a route that declared a security type (always present there). */
export function must(account: SandboxAccount | undefined): SandboxAccount {
  if (!account) throw new Error('route declared a security type but got no account');
  return account;
}
