/**
 * The only place that opens HTTP connections for the REST clients: one undici Pool per origin,
 * kept alive between calls, with per-request header and body timeouts.
 */
import { Pool, errors as undiciErrors } from 'undici';

/** HTTP methods the two interfaces use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One request as it goes on the wire; `path` already carries the query string. */
export interface HttpRequest {
  readonly method: HttpMethod;
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

/** A complete response; header names are lower-case. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Why a request produced no response. The distinction decides whether a non-idempotent call
 * may have taken effect: `connect` failed before a byte was sent (safe), while `timeout` and
 * `io` happened after the request may have reached the server (outcome unknown).
 */
export type TransportFailureKind = 'connect' | 'timeout' | 'io';

/** Result of {@link HttpTransport.send}: a response, or a classified failure (never thrown). */
export type SendResult =
  | { readonly ok: true; readonly response: HttpResponse }
  | { readonly ok: false; readonly kind: TransportFailureKind; readonly detail: string; readonly cause: unknown };

/** Pool settings; defaults suit a trading bot talking to a handful of hosts. */
export interface HttpTransportOptions {
  /** Sockets per origin (default 8). */
  readonly connections?: number;
  /** How long an idle socket stays open (default 30 s). */
  readonly keepAliveTimeoutMs?: number;
  /** Connect timeout (default 5 s). */
  readonly connectTimeoutMs?: number;
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Keep-alive HTTP client with one pool per origin. Call {@link close} when done. */
export class HttpTransport {
  readonly #pools = new Map<string, Pool>();
  readonly #options: Required<HttpTransportOptions>;
  #closed = false;

  constructor(options: HttpTransportOptions = {}) {
    this.#options = {
      connections: options.connections ?? 8,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    };
  }

  /** Sends one request; failures come back classified rather than thrown. */
  async send(req: HttpRequest): Promise<SendResult> {
    if (this.#closed) return { ok: false, kind: 'connect', detail: 'transport closed', cause: undefined };
    // undici's own header/body timers tick about once a second; the signal makes the deadline
    // exact and also bounds the whole exchange, not each phase separately.
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const res = await this.#pool(req.origin).request({
        method: req.method,
        path: req.path,
        headers: req.headers,
        body: req.body,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal,
      });
      const body = await res.body.text();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      }
      return { ok: true, response: { status: res.statusCode, headers, body } };
    } catch (cause) {
      if (signal.aborted) return { ok: false, kind: 'timeout', detail: `no complete response within ${req.timeoutMs} ms`, cause };
      return { ok: false, ...classify(cause), cause };
    }
  }

  /** Closes every pool; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
  }

  #pool(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.#options.connections,
        keepAliveTimeout: this.#options.keepAliveTimeoutMs,
        connect: { timeout: this.#options.connectTimeoutMs },
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }
}

function classify(cause: unknown): { kind: TransportFailureKind; detail: string } {
  if (cause instanceof undiciErrors.HeadersTimeoutError || cause instanceof undiciErrors.BodyTimeoutError) {
    return { kind: 'timeout', detail: cause.message };
  }
  if (cause instanceof undiciErrors.ConnectTimeoutError) return { kind: 'connect', detail: cause.message };
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  if (CONNECT_CODES.has(code)) return { kind: 'connect', detail: `${code} ${message}`.trim() };
  return { kind: 'io', detail: code ? `${code} ${message}` : message };
}
