/**
 * The legacy /v1 part of the request template: HMAC-SHA384 header signing with a nonce in the
 * base64 JSON payload, the client-side 60-requests-per-endpoint-per-minute window, and the
 * `err_str: limit exceeded` answer mapped to RateLimitedError.
 */
import { RateLimitedError, ValidationError, signLegacy, type Clock } from '../../core/index.js';
import type { HttpResponse } from '../transport/HttpTransport.js';
import { isRecord } from '../transport/envelope.js';
import type { EndpointWindowLimiter } from '../transport/EndpointWindowLimiter.js';
import { parseRetryAfterMs } from '../transport/RateLimitState.js';
import type { CallSpec, InterfaceProfile, PreparedRequest } from '../transport/RestAdapter.js';
import { encodeForm, encodeJson } from '../transport/wire.js';
import type { NonceStore } from './NonceStore.js';

/** Requests per endpoint per minute (spec Limits). */
export const LEGACY_REQUESTS_PER_MINUTE = 60;

/** Credentials and limiter of the legacy profile. */
export interface LegacyProfileOptions {
  readonly apiKey: string | undefined;
  readonly apiSecret: string | undefined;
  readonly nonces: () => NonceStore;
  readonly limiter: EndpointWindowLimiter;
  readonly clock: Clock;
}

/** Rate-limit key: the endpoint without path parameters (`GET /v1/orderbook/btcidr` counts as `GET /v1/orderbook`). */
export function legacyRateKey(call: CallSpec): string {
  return call.endpoint;
}

/** Signing and limits of the legacy interface. */
export class LegacyProfile implements InterfaceProfile {
  constructor(private readonly o: LegacyProfileOptions) {}

  admit(call: CallSpec): void {
    const d = this.o.limiter.tryAcquire(legacyRateKey(call));
    if (!d.ok) throw new RateLimitedError(call.endpoint, d.retryAfterMs, undefined, undefined, `client-side limit of ${this.o.limiter.limit} requests per minute for this endpoint`);
  }

  /**
   * Authenticated calls: the parameters object (with a fresh nonce) is carried only in
   * X-TC-PAYLOAD; POSTs also send the same JSON as the body because the spec says all bodies
   * are JSON and the server may read either. Public calls send their parameters in the query.
   */
  prepare(call: CallSpec, basePath: string): PreparedRequest {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (call.auth !== 'none') {
      if (!this.o.apiKey || !this.o.apiSecret) throw new ValidationError(this.o.apiKey ? 'apiSecret' : 'apiKey', '<unset>', `${call.endpoint} is authenticated and needs an API key and secret`);
      const json = encodeJson({ ...call.body, nonce: this.o.nonces().next() });
      const payload = Buffer.from(json, 'utf8').toString('base64');
      headers['X-TC-APIKEY'] = this.o.apiKey;
      headers['X-TC-PAYLOAD'] = payload;
      headers['X-TC-SIGNATURE'] = signLegacy(this.o.apiSecret, payload);
      if (call.method === 'POST') body = json;
    } else if (call.method === 'POST') {
      body = encodeJson(call.body ?? {});
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const query = encodeForm(call.query);
    return { path: `${basePath}${call.path}${query ? `?${query}` : ''}`, headers, ...(body !== undefined ? { body } : {}) };
  }

  observe(): void {
    // The legacy interface sends no rate-limit headers.
  }

  rateLimited(call: CallSpec, _origin: string, response: HttpResponse, body: unknown): RateLimitedError | undefined {
    const errStr = isRecord(body) && typeof body.err_str === 'string' ? body.err_str : undefined;
    const exceeded = errStr !== undefined && /limit exceeded/i.test(errStr);
    if (!exceeded && response.status !== 429) return undefined;
    // The window is a minute; without Retry-After, wait a full one rather than probe the server.
    const waitMs = parseRetryAfterMs(response.headers['retry-after'], this.o.clock.now(), 60_000);
    this.o.limiter.blockFor(legacyRateKey(call), waitMs);
    return new RateLimitedError(call.endpoint, waitMs, undefined, response.status, errStr ?? 'too many requests');
  }
}
