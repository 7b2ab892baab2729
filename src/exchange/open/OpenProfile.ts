/**
 * The open API's part of the request template: HMAC-SHA256 signing over totalParams,
 * `X-MBX-APIKEY`, the server-time offset for `timestamp`, and the IP's request budget (weight
 * headers, 429/418/403 blocks of the whole IP, order-count blocks of new orders only) so the
 * IP is never hammered into a ban and a cancel is never refused for an order-count limit.
 */
import { type ExchangeError, RateLimitedError, ValidationError, signOpen, type Clock } from '../../core/index.js';
import type { HttpResponse } from '../transport/HttpTransport.js';
import { type RateLimitState, type RequestClass, parseRetryAfterMs } from '../transport/RateLimitState.js';
import type { CallSpec, InterfaceProfile, PreparedRequest } from '../transport/RestAdapter.js';
import { encodeForm } from '../transport/wire.js';
import { failureMessage } from '../transport/envelope.js';

/** Maximum recvWindow the spec allows. */
export const MAX_RECV_WINDOW = 60_000;

/** Without a Retry-After header: wait a minute after 429, and the minimum ban (2 min) after 418. */
const FALLBACK_429_MS = 60_000;
const FALLBACK_418_MS = 120_000;

/** Paths whose calls place new orders (they spend the account's order count). */
const ORDER_PATHS = new Set(['/open/v1/orders', '/open/v1/orders/oco']);
/** Calls that must get through when the budget is short: cancels and the reads reconciliation makes. */
const CRITICAL = new Set(['POST /open/v1/orders/cancel', 'GET /open/v1/orders/detail', 'GET /open/v1/orders', 'GET /open/v1/orders/trades', 'GET /open/v1/account/spot']);

/** How a call uses the IP's budget (see RateLimitState). */
export function requestClass(call: CallSpec): RequestClass {
  if (call.method === 'POST' && ORDER_PATHS.has(call.path)) return 'order';
  return CRITICAL.has(`${call.method} ${call.path}`) ? 'critical' : 'normal';
}

/**
 * A 429 for the account's order rate rather than the IP's weight. Numeric codes are "not shown":
 * -1015 is the conventional one; a message about too many orders on an order call counts too.
 */
export function isOrderCountRefusal(call: CallSpec, body: unknown): boolean {
  if (requestClass(call) !== 'order') return false;
  const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
  return code === -1015 || code === '-1015' || /too many (new )?orders|order count|order rate/i.test(failureMessage(body));
}

/** Throws ValidationError unless `v` is an integer in 1..60000. */
export function checkRecvWindow(v: number): number {
  if (!Number.isInteger(v) || v <= 0 || v > MAX_RECV_WINDOW) throw new ValidationError('recvWindow', v, `must be an integer in 1..${MAX_RECV_WINDOW} ms`);
  return v;
}

/** Credentials and time source of the open profile. */
export interface OpenProfileOptions {
  readonly apiKey: string | undefined;
  readonly apiSecret: string | undefined;
  readonly recvWindow: number | undefined;
  readonly clock: Clock;
  readonly rateLimits: RateLimitState;
  /** Current server-time offset in ms (server - local). */
  readonly timeOffset: () => number;
  /**
   * Measures the offset again after a timing-window refusal of a request signed at `preparedAt`;
   * resolves false when it will not (bounded), and then the refusal stands.
   */
  readonly resync?: (preparedAt: number) => Promise<boolean>;
}

/**
 * A refusal of a SIGNED request for its timestamp. The spec: such a request "is processed only
 * when timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow; otherwise it is
 * rejected", so it was never processed and sending it again is safe even for a new order. Its
 * numeric code is "not shown": -1021 is the conventional one; a message naming the timestamp and
 * the recvWindow is taken too, so a gateway's wording alone still counts.
 */
export function isTimestampRefusal(e: ExchangeError): boolean {
  if (e.httpStatus >= 500) return false;
  if (e.exchangeCode === -1021 || e.exchangeCode === '-1021') return true;
  return /timestamp/i.test(e.exchangeMsg) && /recvwindow|ahead of|server time/i.test(e.exchangeMsg);
}

/** Signing and rate-limit policy of the open API. */
export class OpenProfile implements InterfaceProfile {
  constructor(private readonly o: OpenProfileOptions) {}

  /** Refuses locally (RateLimitedError, nothing sent) what the IP's budget does not allow now. */
  admit(call: CallSpec): void {
    const refusal = this.o.rateLimits.admit(requestClass(call));
    if (refusal) throw new RateLimitedError(call.endpoint, refusal.waitMs, refusal.bannedUntil, undefined, refusal.reason);
  }

  /**
   * Parameters go where the call puts them: `query` in the query string, `body` in a form body.
   * For signed calls `timestamp`/`recvWindow` join the body when there is one (else the query),
   * and `signature` is appended last to that same part, so the server can strip it and
   * recompute over query string + body exactly as sent.
   */
  prepare(call: CallSpec, basePath: string): PreparedRequest {
    const headers: Record<string, string> = {};
    let query = encodeForm(call.query);
    let body = call.body ? encodeForm(call.body) : undefined;
    if (call.auth !== 'none') {
      if (!this.o.apiKey) throw new ValidationError('apiKey', '<unset>', `${call.endpoint} needs an API key`);
      headers['X-MBX-APIKEY'] = this.o.apiKey;
    }
    if (call.auth === 'signed') {
      if (!this.o.apiSecret) throw new ValidationError('apiSecret', '<unset>', `${call.endpoint} is SIGNED and needs an API secret`);
      const recvWindow = call.recvWindow ?? this.o.recvWindow;
      const extra = encodeForm({ recvWindow: recvWindow === undefined ? undefined : checkRecvWindow(recvWindow), timestamp: Math.round(this.o.clock.now() + this.o.timeOffset()) });
      const inBody = body !== undefined && body !== '';
      if (inBody) body = `${body}&${extra}`;
      else query = query ? `${query}&${extra}` : extra;
      const signature = signOpen(this.o.apiSecret, query, body ?? '');
      if (inBody) body = `${body}&signature=${signature}`;
      else query = `${query}&signature=${signature}`;
    }
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    return { path: `${basePath}${call.path}${query ? `?${query}` : ''}`, headers, ...(body !== undefined ? { body } : {}) };
  }

  /** After a timestamp refusal of a SIGNED call: measure the offset again (bounded) and send it once more. */
  async recover(call: CallSpec, error: ExchangeError, preparedAt: number): Promise<boolean> {
    if (call.auth !== 'signed' || !this.o.resync || !isTimestampRefusal(error)) return false;
    return this.o.resync(preparedAt);
  }

  observe(_call: CallSpec, _origin: string, response: HttpResponse): void {
    this.o.rateLimits.recordHeaders(response.headers);
  }

  /**
   * 429 and 418, and 403: the spec's use of 403 is "the web application firewall limit was
   * violated", a limit like the others. Refused as a definite failure and sent again at once, it
   * kept hitting the firewall with every intent; it now blocks the host like a 429.
   */
  rateLimited(call: CallSpec, _origin: string, response: HttpResponse, body: unknown): RateLimitedError | undefined {
    const status = response.status;
    if (status !== 429 && status !== 418 && status !== 403) return undefined;
    const now = this.o.clock.now();
    const waitMs = parseRetryAfterMs(response.headers['retry-after'], now, status === 418 ? FALLBACK_418_MS : FALLBACK_429_MS);
    if (status === 429 && isOrderCountRefusal(call, body)) this.o.rateLimits.blockOrders(now + waitMs);
    else {
      if (status === 429) this.o.rateLimits.learnLimit(response.headers);
      this.o.rateLimits.block(now + waitMs, status);
    }
    return new RateLimitedError(call.endpoint, waitMs, status === 418 ? now + waitMs : undefined, status, failureMessage(body));
  }
}
