/**
 * The legacy /v1 interface ({legacy_base_url}): twelve endpoints, header signing
 * (X-TC-APIKEY, X-TC-PAYLOAD = base64(JSON(params)), X-TC-SIGNATURE = hex HMAC-SHA384 of the
 * payload string), strictly increasing nonces per key, 401 for a wrong key, the
 * success/message_code/data envelope, the un-enveloped order book, and 60 requests per IP per
 * endpoint per minute answered with `{"err_str":"limit exceeded"}`. Orders go to the same engine
 * and account as the open API.
 *
 * Decisions where the spec says "not shown", written down here:
 * - X-TC-SIGNATURE must be lowercase hex, as the spec defines it; an upper-case digest is refused
 *   with 401 (the open API's case-insensitive comparison is stated for that interface only).
 * - legacy pairs are the configured symbols spelled base+quote in lower case (btcidr for BTC_IDR);
 *   `currency` in create-order and /v1/stp is the base asset of the <CUR>_IDR symbol.
 * - bodies of create, cancel-one and cancel-selected: envelopes with message codes
 *   create_order_success (data = the active order entry), cancel_order_success (data = the order
 *   detail) and cancel_selected_order_success (data = array of canceled order ids).
 * - failures: `{"success":false,"message_code":"<reason>","data":"<human text>"}` with 400 for a bad
 *   request (invalid_nonce, invalid_parameter, order_rejected, order_not_found), 401 for a wrong key
 *   or signature (invalid_api_key, invalid_signature), 404/405 for unknown paths and methods,
 *   406 when the client refuses JSON, 503 in maintenance.
 * - the order book pages hold 100 levels a side; `page` starts at 0.
 * - numbers on this interface are JSON numbers, as the spec's tables say; they are formatting only,
 *   never used to decide anything.
 * - order detail `status`: active (NEW, PARTIALLY_FILLED), fulfilled (FILLED), cancelled (others).
 */
import { ExchangeError } from '../core/index.js';
import { DropConnection, type HostHandler, type Reply } from './http-host.js';
import { legacyAccountRoutes } from './legacy-account-routes.js';
import { legacyAuthenticator } from './legacy-auth.js';
import { fail, type LegacyDeps, type LegacyRoute } from './legacy-kit.js';
import { legacyMarketRoutes } from './legacy-market-routes.js';
import { legacyOrderRoutes } from './legacy-order-routes.js';
import { legacyView } from './legacy-view.js';

export type { LegacyDeps } from './legacy-kit.js';

/** The /v1 failure envelope of an exchange error (the handler's own catch and the host's early errors share it). */
export function legacyErrorReply(e: ExchangeError): Reply {
  return { status: e.httpStatus, body: { success: false, message_code: String(e.exchangeCode), data: e.exchangeMsg } };
}

/** Builds the legacy host's request handler: faults, routing, the per-endpoint limit, then the route. */
export function legacyHandler(deps: LegacyDeps): HostHandler {
  const view = legacyView(deps.state);
  const routes: LegacyRoute[] = [...legacyAccountRoutes(deps, view), ...legacyOrderRoutes(deps, view), ...legacyMarketRoutes(deps, view)];
  const authenticate = legacyAuthenticator(deps.state.accounts.values());
  return async (ctx) => {
    const f = deps.faults.forRequest('legacy', ctx.path);
    if (f.blackhole) {
      await deps.waiter.forever();
      return { status: 503, body: { success: false, message_code: 'service_unavailable', data: 'sandbox stopping' } };
    }
    if (f.delayMs > 0) await deps.waiter.sleep(f.delayMs);
    const matching = routes.filter((r) => (r.path.endsWith('/') ? ctx.path.startsWith(r.path) && ctx.path.length > r.path.length : ctx.path === r.path));
    const route = matching.find((r) => r.method === ctx.method);
    const endpoint = route ? `${route.method} ${route.path}` : `${ctx.method} ${ctx.path}`;
    if (!deps.limiter.take(ctx.ip, endpoint)) return { status: 429, body: { err_str: 'limit exceeded' }, headers: { 'Retry-After': String(deps.limiter.retryAfterSec()) } };
    try {
      if (f.maintenance) fail(503, 'service_unavailable', 'service unavailable (maintenance); retry later');
      if (matching.length === 0) fail(404, 'not_found', `no such endpoint ${ctx.path}`);
      if (!route) fail(405, 'method_not_allowed', `method ${ctx.method} is not allowed for ${ctx.path}`);
      const accept = ctx.headers.accept;
      if (typeof accept === 'string' && accept !== '' && !/json|\*\/\*|application\/\*/.test(accept)) fail(406, 'not_acceptable', 'only JSON is served');
      const auth = route.auth ? authenticate(ctx) : undefined;
      return route.handle(ctx, auth?.account, auth?.params ?? {}, deps.clock.now());
    } catch (e) {
      if (e instanceof DropConnection) throw e;
      if (e instanceof ExchangeError) return legacyErrorReply(e);
      return { status: 500, body: { success: false, message_code: 'internal_error', data: e instanceof Error ? e.message : String(e) } };
    }
  };
}

