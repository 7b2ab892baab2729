/**
 * Request pipeline of the open API hosts: faults (maintenance, black hole, delay), weight
 * accounting with 429/418 and Retry-After, authentication, the order-rate limit, the route,
 * and the envelope. X-MBX-USED-WEIGHT-* goes on every response, X-MBX-ORDER-COUNT-* on
 * successful order responses.
 */
import { type Clock, ExchangeError } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import type { FaultController } from './faults.js';
import { DropConnection, type HostHandler, type Reply, type RequestContext } from './http-host.js';
import { authenticateOpen } from './open-auth.js';
import type { OpenRoute } from './open-routes.js';
import { errorReply, okBody } from './open-wire.js';
import { ApiCode } from './params.js';
import type { OrderCounter, WeightLimiter } from './rate-limits.js';

/** Waits, or resolves early when the sandbox stops; never leaves a timer behind. */
export interface Waiter {
  sleep(ms: number): Promise<void>;
  /** Resolves only when the sandbox stops. */
  forever(): Promise<void>;
}

/** Dependencies of an open API host. */
export interface OpenHostDeps {
  readonly routes: readonly OpenRoute[];
  readonly limiter: WeightLimiter;
  readonly orderCounter: OrderCounter;
  readonly faults: FaultController;
  readonly keys: ReadonlyMap<string, SandboxAccount>;
  readonly clock: Clock;
  readonly waiter: Waiter;
}

/** Builds the request handler of one open API host. */
export function openHostHandler(deps: OpenHostDeps): HostHandler {
  const table = new Map<string, Map<string, OpenRoute>>();
  for (const r of deps.routes) {
    let byMethod = table.get(r.path);
    if (!byMethod) table.set(r.path, (byMethod = new Map()));
    byMethod.set(r.method, r);
  }
  return async (ctx: RequestContext): Promise<Reply> => {
    const f = deps.faults.forRequest('open', ctx.path);
    if (f.blackhole) {
      await deps.waiter.forever();
      throw new ExchangeError(503, ApiCode.SERVICE_UNAVAILABLE, 'sandbox stopping', ctx.path);
    }
    if (f.delayMs > 0) await deps.waiter.sleep(f.delayMs);
    const byMethod = table.get(ctx.path);
    const route = byMethod?.get(ctx.method);
    const weight = route ? route.weight(ctx) : 1;
    const verdict = deps.limiter.take(ctx.ip, weight);
    const now = deps.clock.now();
    const style = route?.style ?? 'msg';
    if (!verdict.ok) {
      // The spec sends Retry-After with 418 and 429 only; a firewall 403 carries just the weight
      // headers. Its body and code are not shown: the envelope with -1003, the status tells it apart.
      if (verdict.status === 403) return errorReply(new ExchangeError(403, ApiCode.TOO_MANY_REQUESTS, 'Request blocked: the web application firewall limit was violated.', ctx.path), style, now, verdict.headers);
      const msg = verdict.status === 418 ? `Way too many requests; IP banned for ${verdict.retryAfterSec} s.` : `Too many requests; retry after ${verdict.retryAfterSec} s.`;
      return errorReply(new ExchangeError(verdict.status, ApiCode.TOO_MANY_REQUESTS, msg, ctx.path), style, now, { ...verdict.headers, 'Retry-After': String(verdict.retryAfterSec) });
    }
    const headers: Record<string, string> = { ...verdict.headers };
    try {
      if (f.maintenance) throw new ExchangeError(503, ApiCode.SERVICE_UNAVAILABLE, 'Service unavailable: system maintenance.', ctx.path);
      if (!byMethod) throw new ExchangeError(404, ApiCode.NOT_FOUND, `No such endpoint: ${ctx.method} ${ctx.path}`, ctx.path);
      if (!route) throw new ExchangeError(405, ApiCode.NOT_FOUND, `Method ${ctx.method} is not allowed for ${ctx.path}`, ctx.path);
      const account = authenticateOpen(ctx, route.security, deps.keys, now);
      if (route.orders && account) {
        const wait = deps.orderCounter.wouldExceed(account.id);
        if (wait > 0) {
          headers['Retry-After'] = String(wait);
          throw new ExchangeError(429, ApiCode.TOO_MANY_ORDERS, `Too many new orders; retry after ${wait} s.`, ctx.path);
        }
      }
      const result = route.handle({ ctx, account, now });
      if (route.orders && account) {
        for (let i = 0; i < route.orders; i++) Object.assign(headers, deps.orderCounter.count(account.id));
      }
      if ('bare' in result) return { status: 200, body: result.bare, headers };
      return { status: 200, body: okBody(result.data, style, now), headers };
    } catch (e) {
      if (e instanceof DropConnection) throw e;
      const err = e instanceof ExchangeError ? e : new ExchangeError(500, ApiCode.UNKNOWN, `Internal error: ${e instanceof Error ? e.message : String(e)}`, ctx.path);
      return errorReply(err, style, deps.clock.now(), headers);
    }
  };
}
